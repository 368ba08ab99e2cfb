// The journal's archives: the resolved entries a rotation moves out of the active segment, in a file per UTC day an
// entry began, and their index, which finds an entry by its id, key, group or hedge, or by its side or request on a
// day, or by the ten minutes it began in, without reading the rest. The index is made from the archives (a rotation
// indexes what it archives; the first command that needs older archives indexes them all), so nothing is only there.
import * as z from 'zod/mini';
import { closeSync, fstatSync, readdirSync, readSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { utcDay } from '../../core/utc-text.js';
import { canonicalJson } from '../../core/files/canonical-json.js';
import { fileIdentity, prepareDurableWrite, syncDirectory, unlinkQuietly } from '../../core/files/durable-write.js';
import { readRegularFileSync } from '../../core/security/bounded-read.js';
import { EVENT, foldJournal, isUnresolved, readRow, sideOf, type JournalEntry, type SkippedLine } from './entry.js';
import { sha256Hex } from './row-integrity.js';
import type { RowFilter } from './client-journal.js';
import {
  ensureDir,
  JOURNAL_FILE,
  journalIo,
  openForAppend,
  openForRead,
  readSegment,
  syncFile,
  writeAll,
} from './journal-files.js';

export const ARCHIVE_DIR_NAME = 'journal-archive';
const INDEX_DIR_NAME = 'index';
const ARCHIVE_FILE = /^journal-(\d{4}-\d{2}-\d{2})\.jsonl$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;
/** A short time is read by the ten minutes its entries began in (as many as two hours of them), a longer one by day. */
const SLOT_MS = 600_000;
const MAX_SLOTS = 12;
/** What one lookup reads of an archive at most: an entry is a few lines of at most a row's bound each. */
const MAX_CHUNK_BYTES = 64 * 1024 * 1024;
const BUCKETS = 256;

/** The index's own record, replaced whole after each change of the index. */
const MANIFEST = z.object({
  version: z.literal(1),
  /** The active segment (its fileIdentity) the index was last made or added to beside: another means a rotation it
   * missed. */
  segment: z.string(),
  /** The latest creation time of an entry indexed: a read of a time after it needs no archive. */
  newest: z.nullable(z.string()),
  /** Each bucket's bytes as written, comma-separated: one found shorter lost writes (the machine crashed). */
  buckets: z.string().check(z.regex(new RegExp(`^\\d+(,\\d+){${BUCKETS - 1}}$`))),
});
type Manifest = Omit<z.infer<typeof MANIFEST>, 'buckets'> & { buckets: number[] };

/** An index line: a term, then where its entry's lines are (the archive's day, byte offset and length). */
const INDEX_LINE = z.tuple([z.string(), z.string(), z.number(), z.number()]);
type Location = { day: string; offset: number; length: number };

/** The terms the index finds an entry by: what a write asks of history (a row by id, key, group or hedge; the rows of
 * a side, or of a request, begun on a day; the rows begun in ten minutes). */
function termsOf(entry: JournalEntry, day: string) {
  const side = sideOf(entry);
  const created = Date.parse(entry.created_at);
  const hedges = new Set([entry.hedge_id, entry.context?.rolled_hedge_id].filter((id) => typeof id === 'string'));
  return [
    `i:${entry.id}`,
    ...(typeof entry.idempotency_key === 'string' ? [`k:${entry.idempotency_key}`] : []),
    ...(typeof entry.group === 'string' ? [`g:${entry.group}`] : []),
    ...[...hedges].map((hedge) => `h:${hedge}`),
    ...(side ? [`s:${side}|${day}`] : []),
    `r:${requestTerm({ ...entry, body: entry.request?.body })}|${day}`,
    ...(Number.isNaN(created) ? [] : [`t:${slotOf(created)}`]),
  ];
}

/** A request's identity and body as one short text (the "same request" rule's, less a roll's group and leg). */
const requestTerm = (request: {
  environment: unknown;
  base_url_host: unknown;
  key_id: unknown;
  command: unknown;
  body: unknown;
}) =>
  sha256Hex(
    canonicalJson([request.environment, request.base_url_host, request.key_id, request.command, request.body ?? null]),
    32,
  );

/** The ten minutes a time is in, as its ISO text's first 15 characters (`2026-11-29T10:4`). */
const slotOf = (at: number) => new Date(at - (at % SLOT_MS)).toISOString().slice(0, 15);

/** The archives of the journal folder `dir`, read by term through the index, or day by day. `underLock` runs what
 * makes the index again under the journal's lock. */
export function journalArchive(
  dir: string,
  options: {
    underLock: <T>(body: () => T | Promise<T>) => Promise<T>;
    onSkip?: (skip: SkippedLine & { file?: string }) => void;
  },
) {
  const folder = join(dir, ARCHIVE_DIR_NAME);
  const index = join(folder, INDEX_DIR_NAME);
  const { onSkip = () => {} } = options;

  /** Under the journal's lock: the index made again from the archives unless it is whole beside the active segment. */
  const repair = () =>
    options.underLock(async () => {
      const segment = segmentOf(join(dir, 'journal.jsonl'));
      const manifest = readManifest(index);
      return manifest?.segment === segment && !damaged(index, manifest) ? manifest : await indexAll(dir, segment);
    });

  return {
    folder,
    repair,

    /** The index beside the active segment as read (`segment`, read before this): the manifest to read it by;
     * `again` when a rotation moved entries out of the segment since (it is to be read again); none without archives. */
    async current(segment: string): Promise<Manifest | 'again' | undefined> {
      const manifest = readManifest(index);
      if (manifest?.segment === segment) return manifest;
      if (!manifest && archiveFiles(dir).length === 0) return undefined;
      await repair();
      return 'again';
    },

    /** The entries found by any of `terms`, read from their archives only; `damaged` when a bucket lost writes. */
    lookup(manifest: Manifest, terms: string[]): JournalEntry[] | 'damaged' {
      const found = new Map<string, Location>();
      for (const term of terms) {
        const text = readBucket(index, manifest, bucketOf(term));
        if (text === 'damaged') return text;
        const prefix = `[${JSON.stringify(term)},`;
        for (let at = text.startsWith(prefix) ? 0 : text.indexOf(`\n${prefix}`); at >= 0;) {
          const start = text[at] === '\n' ? at + 1 : at;
          const end = text.indexOf('\n', start);
          const line = readRow(text.slice(start, end < 0 ? undefined : end), INDEX_LINE);
          if (typeof line !== 'string') {
            const [, day, offset, length] = line;
            found.set(`${day}:${offset}:${length}`, { day, offset, length });
          }
          at = end < 0 ? -1 : text.indexOf(`\n${prefix}`, end);
        }
      }
      return readLocations(folder, [...found.values()], onSkip);
    },

    /** The archives a read of `since`…`until` may find entries in, newest day first (none when every entry indexed
     * began before `since`). */
    days(manifest: Manifest | undefined, { since, until }: Times) {
      if (since !== undefined && manifest && (manifest.newest === null || Date.parse(manifest.newest) < since))
        return [];
      return archiveFiles(dir)
        .filter(
          ({ day }) => (since === undefined || day >= utcDay(since)) && (until === undefined || day <= utcDay(until)),
        )
        .reverse();
    },

    /** The index terms a read is answered by (any one will do); undefined when it is read by day (by a long time
     * alone, or every row). */
    termsFor(manifest: Manifest, filter: RowFilter) {
      const { id, idempotencyKey, group, hedge, request, side, since, until, idPrefix, idSuffix } = filter;
      if (id !== undefined) return [`i:${id}`];
      if (idempotencyKey !== undefined) return [`k:${idempotencyKey}`];
      if (group !== undefined) return [`g:${group}`];
      if (hedge !== undefined) return [`h:${hedge}`];
      if (since === undefined || idPrefix || idSuffix) return;
      // A time after every entry indexed finds none.
      if (manifest.newest === null || Date.parse(manifest.newest) < since) return [];
      const last = Math.min(Date.parse(manifest.newest), until ?? Infinity);
      const each = (step: number, from: number, term: (at: number) => string) => {
        const terms = [];
        for (let at = from; at <= last; at += step) terms.push(term(at));
        return terms;
      };
      if (request) return each(DAY_MS, Date.parse(utcDay(since)), (at) => `r:${requestTerm(request)}|${utcDay(at)}`);
      if (side !== undefined) return each(DAY_MS, Date.parse(utcDay(since)), (at) => `s:${side}|${utcDay(at)}`);
      const from = since - (since % SLOT_MS);
      if (last - from <= MAX_SLOTS * SLOT_MS) return each(SLOT_MS, from, (at) => `t:${slotOf(at)}`);
    },
  };
}

type Times = Pick<RowFilter, 'since' | 'until'>;

/** The folder's archive files, oldest day first. */
function archiveFiles(dir: string) {
  const folder = join(dir, ARCHIVE_DIR_NAME);
  return (journalIo(folder, 'read', () => readdirSync(folder)) ?? []).sort().flatMap((name) => {
    const day = ARCHIVE_FILE.exec(name)?.[1];
    return day ? [{ day, path: join(folder, name) }] : [];
  });
}

/** The active segment's identity (another after each rotation), or `none`. */
function segmentOf(file: string) {
  const stats = journalIo(file, 'read', () => statSync(file, { bigint: true }));
  return stats ? fileIdentity(stats) : 'none';
}

/** A term's bucket: the low byte of its FNV-1a hash, in hex. */
function bucketOf(term: string) {
  let hash = 0x811c9dc5;
  for (let at = 0; at < term.length; at++) hash = Math.imul(hash ^ term.charCodeAt(at), 0x01000193);
  return (hash & 0xff).toString(16).padStart(2, '0');
}
const bucketPath = (index: string, bucket: number | string) =>
  join(index, `${typeof bucket === 'number' ? bucket.toString(16).padStart(2, '0') : bucket}.jsonl`);
const manifestPath = (index: string) => join(index, 'manifest.json');

/** The manifest, or none when missing or unreadable (the index is then made again: the archives hold all it says). */
function readManifest(index: string): Manifest | undefined {
  const text = readSegment(manifestPath(index));
  const manifest = text === undefined ? undefined : readRow(text, MANIFEST);
  if (manifest === undefined || typeof manifest === 'string') return;
  return { ...manifest, buckets: manifest.buckets.split(',').map(Number) };
}

function writeManifest(index: string, manifest: Manifest) {
  const path = manifestPath(index);
  const text = JSON.stringify({ ...manifest, buckets: manifest.buckets.join(',') });
  journalIo(path, 'write', () => prepareDurableWrite(path, `${text}\n`).commit());
}

/** A bucket's text, or `damaged` when it is shorter than the index wrote it. */
function readBucket(index: string, manifest: Manifest, bucket: string) {
  const path = bucketPath(index, bucket);
  const bytes = journalIo(path, 'read', () => readRegularFileSync(path, JOURNAL_FILE)) ?? Buffer.alloc(0);
  return bytes.length < manifest.buckets[parseInt(bucket, 16)] ? 'damaged' : bytes.toString('utf8');
}

/** Whether a bucket lost writes the manifest says were made (the machine crashed before they reached the disk). */
function damaged(index: string, manifest: Manifest) {
  return manifest.buckets.some(
    (bytes, bucket) =>
      bytes > 0 && (journalIo(index, 'read', () => statSync(bucketPath(index, bucket)))?.size ?? 0) < bytes,
  );
}

/** The entries at `locations`, each archive's chunks read and folded together (copies of one entry fold as in a whole
 * archive); a line that cannot be read is told with its archive and line. */
function readLocations(folder: string, locations: Location[], onSkip: (skip: SkippedLine & { file?: string }) => void) {
  const chunks: Array<{ text: string; file: string; offset: number }> = [];
  const byDay = new Map<string, Location[]>();
  for (const location of locations)
    (byDay.get(location.day) ?? byDay.set(location.day, []).get(location.day)!).push(location);
  for (const [day, here] of byDay) {
    const file = join(folder, `journal-${day}.jsonl`);
    const fd = openForRead(file);
    if (fd === undefined) continue;
    try {
      for (const { offset, length } of here.sort((a, b) => a.offset - b.offset)) {
        if (length > MAX_CHUNK_BYTES) continue;
        const buffer = Buffer.alloc(length);
        const text = buffer.subarray(0, readSync(fd, buffer, 0, length, offset)).toString('utf8');
        chunks.push({ text: text.endsWith('\n') ? text : `${text}\n`, file, offset });
      }
    } finally {
      closeSync(fd);
    }
  }
  const starts: number[] = [];
  let lines = 0;
  for (const chunk of chunks) {
    starts.push(lines);
    lines += chunk.text.split('\n').length - 1;
  }
  return foldJournal(chunks.map((chunk) => chunk.text).join(''), ({ line, reason }) => {
    const at = starts.findLastIndex((start) => start < line);
    const { file, offset } = chunks[at];
    onSkip({ file, line: lineAt(file, offset) + line - starts[at] - 1, reason });
  });
}

/** The number of the line starting at byte `offset` of an archive (counted only for a line said skipped). */
function lineAt(file: string, offset: number) {
  const bytes = journalIo(file, 'read', () => readRegularFileSync(file, JOURNAL_FILE)) ?? Buffer.alloc(0);
  return bytes.subarray(0, offset).toString('latin1').split('\n').length;
}

/** The index made again from every archive (from nothing), beside the active segment `segment`: its lines written
 * every so many entries, and the process's other work (the lock's upkeep) let run between two archives. */
async function indexAll(dir: string, segment: string) {
  const folder = join(dir, ARCHIVE_DIR_NAME);
  const index = join(folder, INDEX_DIR_NAME);
  ensureDir(folder, { inside: true });
  ensureDir(index, { inside: true });
  // The manifest first: a crash while the index is made leaves none, and the next reader makes it again.
  unlinkQuietly(manifestPath(index));
  for (const name of journalIo(index, 'read', () => readdirSync(index)) ?? [])
    if (name.endsWith('.jsonl')) unlinkQuietly(join(index, name));
  const manifest: Manifest = { version: 1, segment, newest: null, buckets: Array<number>(BUCKETS).fill(0) };
  let lines = new Map<string, string[]>();
  let held = 0;
  for (const { day, path } of archiveFiles(dir)) {
    held += indexArchive(path, day, manifest, lines);
    if (held > FLUSH_ENTRIES) {
      writeIndex(index, manifest, lines);
      [lines, held] = [new Map(), 0];
    }
    await new Promise((next) => setImmediate(next));
  }
  writeIndex(index, manifest, lines);
  writeManifest(index, manifest);
  return manifest;
}

/** How many entries' index lines a build of the index holds before it writes them. */
const FLUSH_ENTRIES = 10_000;

/** The index lines of every entry in an archive; how many entries. */
function indexArchive(path: string, day: string, manifest: Manifest, lines: Map<string, string[]>) {
  const text = readSegment(path) ?? '';
  // Each entry's lines, from its first to its last (a rotation writes them together).
  const spans = new Map<string, Location>();
  let offset = 0;
  for (const line of text.split('\n').slice(0, -1)) {
    const size = Buffer.byteLength(line) + 1;
    const id = idOf(line);
    const span = id === undefined ? undefined : spans.get(id);
    if (span) span.length = offset + size - span.offset;
    else if (id !== undefined) spans.set(id, { day, offset, length: size });
    offset += size;
  }
  const entries = foldJournal(text);
  for (const entry of entries) {
    const span = spans.get(entry.id);
    if (span) addEntry(manifest, lines, entry, span);
  }
  return entries.length;
}

/** An entry's index lines, its creation time counted in `newest`. */
function addEntry(manifest: Manifest, lines: Map<string, string[]>, entry: JournalEntry, at: Location) {
  for (const term of termsOf(entry, at.day)) {
    const bucket = bucketOf(term);
    (lines.get(bucket) ?? lines.set(bucket, []).get(bucket)!).push(
      JSON.stringify([term, at.day, at.offset, at.length]),
    );
  }
  const created = Date.parse(entry.created_at);
  if (!Number.isNaN(created) && (manifest.newest === null || created > Date.parse(manifest.newest)))
    manifest.newest = new Date(created).toISOString();
}

/** Appends the index lines to their buckets (not synced: the manifest, synced after, says how long each must be);
 * `damaged`, writing nothing, when one of them is shorter than the manifest says (it lost writes in a crash). */
function writeIndex(index: string, manifest: Manifest, lines: Map<string, string[]>) {
  const opened = [...lines].map(([bucket, added]) => {
    const path = bucketPath(index, bucket);
    return { at: parseInt(bucket, 16), path, added, fd: openForAppend(path) };
  });
  try {
    if (opened.some(({ at, fd }) => fstatSync(fd).size < manifest.buckets[at])) return 'damaged';
    for (const { at, path, added, fd } of opened) {
      writeAll(fd, `${added.join('\n')}\n`, path);
      manifest.buckets[at] = fstatSync(fd).size;
    }
  } finally {
    for (const { fd } of opened) closeSync(fd);
  }
}

/** Moves the resolved entries of the active segment (all but the newest `keepResolved`, and any of a group with an
 * unresolved entry) into the archive of their creation day and indexes them, then replaces the active segment with
 * what stays: archives and index first, so that a crash between leaves an entry in both places, never in neither. */
export async function rotate(
  file: string,
  text: string,
  {
    keepResolved,
    keepBytes,
    today,
  }: {
    keepResolved: number;
    /** The resolved entries kept take at most this many bytes (so a rotation always leaves room to grow). */
    keepBytes: number;
    /** UTC day for lines that are not events (kept, in that day's archive). */
    today: string;
  },
) {
  const linesOf = new Map<string, string[]>();
  const stray: string[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const id = idOf(line);
    if (id === undefined) stray.push(line);
    else (linesOf.get(id) ?? linesOf.set(id, []).get(id)!).push(line);
  }
  const entries = foldJournal(text);
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  // The groups of unresolved entries; an ungrouped entry's undefined group is in none of them.
  const openGroups = new Set(entries.filter(isUnresolved).flatMap((entry) => entry.group ?? []));
  const keep = new Set(
    entries.filter((entry) => isUnresolved(entry) || openGroups.has(entry.group!)).map((entry) => entry.id),
  );
  // The newest resolved entries stay.
  const resolved = entries.filter((candidate) => !isUnresolved(candidate)).reverse();
  let keptBytes = 0;
  for (const entry of resolved.slice(0, keepResolved)) {
    keptBytes += (linesOf.get(entry.id) ?? []).reduce((sum, line) => sum + line.length + 1, 0);
    if (keptBytes > keepBytes) break;
    keep.add(entry.id);
  }
  // The entry with the journal's highest seq stays, so that the next begin counts on from it.
  const highest = entries.filter((entry) => entry.seq !== undefined).sort((a, b) => b.seq! - a.seq!)[0];
  if (highest) keep.add(highest.id);

  const kept: string[] = [];
  /** Per day, each archived entry with its lines (one without a creation event goes with the stray lines of today). */
  const archived = new Map<string, Array<{ entry?: JournalEntry; lines: string[] }>>();
  const add = (day: string, batch: { entry?: JournalEntry; lines: string[] }) =>
    (archived.get(day) ?? archived.set(day, []).get(day)!).push(batch);
  for (const [id, idLines] of linesOf) {
    const entry = byId.get(id);
    if (keep.has(id)) kept.push(...idLines);
    else add(entry && DAY.test(utcDay(entry.created_at)) ? utcDay(entry.created_at) : today, { entry, lines: idLines });
  }
  if (stray.length) add(today, { lines: stray });
  if (archived.size === 0) return;

  const folder = join(dirname(file), ARCHIVE_DIR_NAME);
  const index = join(folder, INDEX_DIR_NAME);
  ensureDir(folder, { inside: true });
  ensureDir(index, { inside: true });
  // An index that missed a rotation (an older hedge's, a crash's) is made again first, with the archives as they are.
  const segment = segmentOf(file);
  const read = readManifest(index);
  let manifest = read?.segment === segment ? read : await indexAll(dirname(file), segment);
  const lines = new Map<string, string[]>();
  for (const [day, batches] of archived) {
    const path = join(folder, `journal-${day}.jsonl`);
    const fd = openForAppend(path);
    try {
      let size = fstatSync(fd).size;
      // A torn last line in the archive (a crash mid-rotation) must not swallow the first one added.
      const last = Buffer.alloc(1);
      const lead = size > 0 && readSync(fd, last, 0, 1, size - 1) && last[0] !== 0x0a ? '\n' : '';
      size += lead.length;
      for (const { entry, lines: entryLines } of batches) {
        const length = entryLines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
        if (entry) addEntry(manifest, lines, entry, { day, offset: size, length });
        size += length;
      }
      writeAll(fd, `${lead}${batches.flatMap((batch) => batch.lines).join('\n')}\n`, path);
      syncFile(fd, path);
    } finally {
      closeSync(fd);
    }
  }
  syncDirectory(folder);
  // What was just archived is indexed with the rest when the index is made again.
  if (writeIndex(index, manifest, lines) === 'damaged') manifest = await indexAll(dirname(file), segment);
  const active = journalIo(file, 'write', () => prepareDurableWrite(file, kept.length ? `${kept.join('\n')}\n` : ''))!;
  manifest.segment = active.identity;
  writeManifest(index, manifest);
  journalIo(file, 'write', () => active.commit());
}

/** The id of an event line, without parsing all of it when it starts as the journal writes it. */
function idOf(line: string) {
  const fast = /^\{"id":"([^"\\]+)"/.exec(line);
  if (fast) return fast[1];
  const event = readRow(line, EVENT);
  return typeof event === 'string' ? undefined : event.id;
}
