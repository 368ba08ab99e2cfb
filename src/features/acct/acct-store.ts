// The accounts' own records (designations, events, imported rates, corrections), one store per account, kept as
// the journal is kept: its folder judged, never through a link, written under a hold judged by its holder's liveness,
// append-only (a record a line, appended), each record carrying the hash of the one before it and the chain's head
// kept in a file of its own with the digest of the records it counts, so that an edit, a re-sealed chain or records
// removed from the end are found. A command reads the parts it needs (every record but rates, and the rates it
// values or checks), each checked against its digest, through an index of where each part's records are, kept
// beside them; what does not hold is read whole. With the team store the records live there, beside the journal,
// under the journal's own lock, each append one transaction with its head, each record's part in its row.
import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
} from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod/mini';
import { AuthError, HeldError, StateError, UsageError } from '../../core/errors.js';
import { newSession } from '../../core/files/file-lock.js';
import {
  describeReadError,
  openRegularFileSync,
  readRegularFileSync,
  refuseUntrustedFolder,
  sizeInWords,
} from '../../core/security/bounded-read.js';
import { readBoundedJson } from '../../core/security/json-keys.js';
import { canonicalJson } from '../../core/files/canonical-json.js';
import { describeHolder } from '../../platform/journal/client-journal.js';
import { JournalError } from '../../platform/journal/entry.js';
import { namedHolds } from '../../platform/journal/journal.js';
import { ensureDir } from '../../platform/journal/journal-files.js';
import { isTeamJournal, keyFingerprint } from '../../platform/journal/index.js';
import { journalDir } from '../../platform/journal/location.js';
import { writeAllSync, writeFileDurably } from '../../core/files/durable-write.js';
import { shellWord } from '../../core/program.js';
import type { CommandContext } from '../../platform/runtime/context.js';
import type { JsonObject } from '../../core/objects.js';
import { extendSha256, isSha256State, sha256Of } from './sha256-state.js';

const KINDS = ['designation', 'event', 'rates', 'correction', 'close', 'entity', 'policy', 'approval'] as const;
type RecordKind = (typeof KINDS)[number];

/** Who made a record: the name given, the profile and the key's fingerprint (never the key) it was made with. */
const AUTHOR = z.object({ name: z.string(), profile: z.optional(z.string()), key: z.optional(z.string()) });
export type Author = z.infer<typeof AUTHOR>;

const RECORD = z.object({
  seq: z.number(),
  kind: z.enum(KINDS),
  recorded_at: z.string(),
  /** Who made it; an older hedge wrote the profile alone, or nothing for a key from the environment. */
  by: z.optional(z.union([z.string(), AUTHOR])),
  body: z.record(z.string(), z.unknown()),
  prev: z.string(),
  hash: z.string(),
});
const FILE = z.object({ records: z.array(RECORD) });
const HEAD = z.object({
  count: z.number(),
  hash: z.string(),
  /** The bytes of the file that hold the records counted, and their SHA-256: records read as they were written are
   * taken as checked when they were written (absent in an older hedge's head, and on the team store). */
  bytes: z.optional(z.number()),
  digest: z.optional(z.string()),
});
export type AcctRecord = z.infer<typeof RECORD>;

/** What a read accepts, and so what an append may make: an append past it is refused before anything is written. */
const MAX_BYTES = 32 * 1024 * 1024;
/** How long a writer waits for another live writer of the same store before it says who holds it. */
const HOLD_WAIT_MS = 10_000;

/** What the store's place is worked out from. */
type StorePorts = Pick<CommandContext, 'env' | 'credentials' | 'journalChoice' | 'journal'>;

/** A record's hash: of the one before it, then of its own fields (seq, kind, recorded_at, by where known, body). */
const hashOf = ({ prev, hash: _, ...fields }: Omit<AcctRecord, 'hash'> & { hash?: string }) =>
  createHash('sha256')
    .update(prev + canonicalJson(fields))
    .digest('hex');

/** No key configured at all: the keyless `local` store's case (a profile logged out is an error, never `local`). */
export const noKeyConfigured = (error: unknown) =>
  error instanceof AuthError && /^No API key is configured/.test(error.message);

/** The store of the account a key opens: its environment and the base URL the key is used at (the partner-scoped path;
 * the version segment at its end left out, so a new version of the API keeps the books), readable, with a hash of both
 * so that no two accounts share one. */
export function accountStoreName(environment: string, baseUrl: string) {
  const url = new URL(baseUrl);
  const where = url.host + url.pathname.replace(/\/v\d+\/?$/i, '').replace(/\/+$/, '');
  const hash = createHash('sha256').update(`${environment} ${where}`).digest('hex').slice(0, 8);
  return `${environment}-${where.replace(/[^A-Za-z0-9.-]+/g, '_').slice(0, 64)}-${hash}`;
}

/** A store's folder on this machine. */
export const storeFolder = (env: CommandContext['env'], name: string) => join(journalDir(env), 'acct', name);

/** The store of the account the key opens (`accountStoreName`), `demo` for the demo, or `local` when no key is
 * configured at all (relationships over forwards held elsewhere, seen by no account). */
async function storeOf(ctx: StorePorts) {
  const credentials = await ctx.credentials().catch((error: unknown) => {
    if (noKeyConfigured(error)) return undefined;
    throw error;
  });
  const name = !credentials
    ? 'local'
    : credentials.sources.baseUrl === 'demo'
      ? 'demo'
      : accountStoreName(credentials.environment, credentials.baseUrl);
  const top = journalDir(ctx.env);
  const dir = storeFolder(ctx.env, name);
  const file = join(dir, 'records.json');
  // Where the journal is kept: the team store when it is chosen (never for --demo), the local file otherwise.
  const journal = (await ctx.journalChoice()).kind === 'postgres' ? await ctx.journal() : undefined;
  const team = journal && isTeamJournal(journal) ? journal : undefined;
  return {
    name,
    team,
    /** The store as messages name it. */
    shown: team ? `"${name}" in the team journal store ${team.location}` : file,
    top,
    dir,
    file,
    head: join(dir, 'head.json'),
    index: join(dir, 'index.json'),
    /** Who makes a record here: `given` (--by), else HEDGE_USER, else this machine's user and host; with the profile
     * and the key's fingerprint. */
    author: (given?: string): Author => ({
      name: authorName(ctx.env, given),
      ...(credentials?.profileName !== undefined && { profile: credentials.profileName }),
      ...(credentials && { key: keyFingerprint(credentials.apiKey) }),
    }),
    /** Where this account's records may have been kept before: the store an older hedge named after the key's prefix,
     * and `local`, kept while no key was configured. */
    before:
      name === 'local' || name === 'demo'
        ? []
        : [`${credentials!.environment}-${credentials!.apiKey.split('_')[0]}`, 'local'],
  };
}
type Store = Awaited<ReturnType<typeof storeOf>>;

/** A name a person is known by in the records: printable, 1 to 64 characters. */
const NAME = /^[\x20-\x7e]{1,64}$/;

/** Who a record is made by: the name given (`--by`), else HEDGE_USER, else this machine's user at its host. */
function authorName(env: CommandContext['env'], given: string | undefined) {
  for (const [source, value] of [
    ['--by', given],
    ['HEDGE_USER', env.HEDGE_USER],
  ] as const) {
    if (value === undefined) continue;
    if (!NAME.test(value.trim()))
      throw new UsageError(
        `${source}: expected who makes the record, 1 to 64 printable characters such as "Ada Obi" (a name, not the key).`,
      );
    return value.trim();
  }
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    // A uid with no name in the password database.
    user = `uid ${process.getuid?.() ?? 'unknown'}`;
  }
  return `${user}@${hostname()}`;
}

/** The name of who made a record (an older hedge's: its profile, or none). */
export const madeBy = (record: Pick<AcctRecord, 'by'>) => (typeof record.by === 'string' ? record.by : record.by?.name);

/** A store file's text, or undefined when there is none yet: never through a link, only this user's (or root's). */
function readStoreFile(store: Store, path: string, maxBytes = MAX_BYTES) {
  // Judged as the journal's: whoever may change these folders could swap or remove a record; hedge's own folders in
  // it are never links (which another could point elsewhere).
  refuseUntrustedFolder(store.top);
  for (const folder of [join(store.top, 'acct'), store.dir]) {
    if (lstatSync(folder, { throwIfNoEntry: false })?.isSymbolicLink())
      throw new StateError(
        `The accounting records' folder ${folder} is a symbolic link; hedge does not follow it. Replace the link with the folder itself (or remove it).`,
        { path: folder },
      );
    refuseUntrustedFolder(folder);
  }
  if (!existsSync(path)) return;
  try {
    return readRegularFileSync(path, { maxBytes, guard: 'trusted', noFollow: true });
  } catch (error) {
    throw new UsageError(`Cannot read the accounting records ${path}: ${describeReadError(error)}.`);
  }
}

const changed = (path: string, what: string) =>
  new UsageError(
    `The accounting records ${path} were changed outside hedge: ${what}. Restore them from a backup; hedge never edits a record.`,
  );

const LEGACY = '{"records":';
const digestOf = (...pieces: Uint8Array[]) => {
  const hash = createHash('sha256');
  for (const piece of pieces) hash.update(piece);
  return hash.digest('hex');
};

/** The market whose rates a record holds (a rates record, or a correction of them); none for any other record. */
export const ratesMarketOf = ({ kind, body }: Pick<AcctRecord, 'kind' | 'body'>) =>
  kind === 'rates' || (kind === 'correction' && body.of === 'rates') ? String(body.market) : undefined;

/** The part of the store a record is read with: '' for every record but rates (which every read takes); a market's rates
 * of one year (`USDTNGN 2026`: a day's rate, a year's file), or of several (`USDTNGN`). */
function partOf(record: AcctRecord) {
  const market = ratesMarketOf(record);
  if (market === undefined) return '';
  const rows: unknown = record.body.rows;
  const years = new Set(
    Array.isArray(rows) ? rows.map((row) => String((row as { date?: unknown })?.date).slice(0, 4)) : [],
  );
  return years.size === 1 ? `${market} ${[...years][0]}` : market;
}

/** Whether a record of rates names its market's quote (the market's from then on). */
const namesQuote = (record: AcctRecord) => ratesMarketOf(record) !== undefined && Boolean(record.body.quote);

/** Which rates a read takes besides every other record: all, or those a function of the others names. */
export type RatesNeeded = 'all' | ((others: readonly AcctRecord[]) => Iterable<RatesOf>);
/** A market's rates: all of them, or those of some years (dates in them), with its quote. */
export type RatesOf = string | { market: string; years: readonly string[] };

/** The parts a store is read by: each one's count and the digest of its lines (one after another, each ending in a
 * newline), and each market's part that holds its last record naming its quote. The team store's head keeps them;
 * the file's index, with where each part's lines are. */
const PARTS = z.object({
  /** The bytes of every record's line, each with its newline. */
  bytes: z.number(),
  parts: z.record(z.string(), z.object({ count: z.number(), digest: z.string() })),
  quotes: z.record(z.string(), z.string()),
});
type Parts = z.infer<typeof PARTS>;

/** What a read gives: the records asked for in seq order, and the chain's end as read (records past the head too). */
interface StoreRead {
  records: AcctRecord[];
  count: number;
  hash: string;
  /** The bytes of every record's line, each with its newline (records.json's whole lines end there: where the next
   * record goes); none while records.json is not a record a line (an older hedge's, or none yet): written whole next. */
  bytes?: number;
  /** Read by parts: an append extends what describes them. */
  layout?: Layout;
  /** Read whole: every record's line and where each begins; an append describes the parts anew. */
  whole?: { file: Buffer; starts: number[] };
}
/** The parts as described when read (the file's index, the team store's head), the records past them (the file's),
 * the lines of each part read, and how to read others' lines. */
type Layout = {
  described: Parts;
  index?: Index;
  past: Lines;
  parts: Map<string, Buffer>;
  more: (names: readonly string[]) => Promise<Map<string, Buffer> | undefined>;
};
/** Records with their lines: the bytes that hold them and where each line begins in them. */
type Lines = { records: AcctRecord[]; text: Buffer; starts: number[] };
const NO_LINES: Lines = { records: [], text: Buffer.alloc(0), starts: [] };

/** The records, checked, read by parts where what describes them serves (every record of the parts asked for: what a
 * read of every record would give of them), else every record read. */
async function readStore(store: Store, rates: RatesNeeded): Promise<StoreRead> {
  if (store.team) return (await readTeamParts(store, rates)) ?? (await readTeamWhole(store));
  // The head before the records: a writer writes them the other way round, so a read between its two writes sees
  // records past the head, never fewer.
  // Every record is read whole (one read), never part by part: an append after it writes the index anew.
  const head = readHead(store, readStoreFile(store, store.head)?.toString('utf8'));
  const parts = head && rates !== 'all' ? await readThroughIndex(store, head, rates) : undefined;
  return parts ?? readWhole(store, head);
}

/** The records' count and last hash beside them. */
const ended = (records: AcctRecord[]) => ({ records, count: records.length, hash: records.at(-1)?.hash ?? '' });

/** Every record of the team store's chain, each hashed: written with their head in one transaction and read in one
 * snapshot, so records past the head were added outside. */
async function readTeamWhole(store: Store): Promise<StoreRead> {
  const read = await store.team!.acctRecords.read(store.name, MAX_BYTES);
  if (read.bytes > MAX_BYTES)
    throw new UsageError(
      `Cannot read the accounting records ${store.shown}: they hold more than ${sizeInWords(MAX_BYTES)}.`,
    );
  const file = Buffer.from(read.lines ?? '');
  const { records, starts } = recordLines(store, file, 0);
  return {
    ...ended(checkRecords(store, readHead(store, read.head), read.lines === undefined ? undefined : records, true)),
    bytes: file.length,
    whole: { file, starts },
  };
}

/** Each line of `text` as a record, and where each begins: the first `asWritten` as written (its digest read
 * already), every other one read within bounds; one that is not a record is refused naming it. */
function recordLines(store: Store, text: Buffer, asWritten: number) {
  const records: AcctRecord[] = [];
  const starts: number[] = [];
  for (let start = 0, end; start < text.length; start = end + 1) {
    end = text.indexOf(0x0a, start);
    starts.push(start);
    // Each line decoded alone: no copy of the whole as text.
    const line = text.toString('utf8', start, end);
    if (records.length < asWritten) {
      records.push(JSON.parse(line) as AcctRecord);
      continue;
    }
    const record = readBoundedJson(line, { maxBytes: MAX_BYTES, maxDepth: 15 }, RECORD);
    if (typeof record === 'string')
      throw new UsageError(
        `The accounting records ${store.shown} are not hedge's: record ${records.length + 1}: ${record}.`,
      );
    records.push(record);
  }
  return { records, starts };
}

/** Every record of records.json, checked: those its head's digest vouches for linked (taken as checked when they were
 * written), every other one hashed too. */
function readWhole(store: Store, head: z.infer<typeof HEAD> | undefined): StoreRead {
  const file = readStoreFile(store, store.file);
  if (file === undefined || file.subarray(0, LEGACY.length).toString() === LEGACY)
    return ended(checkRecords(store, head, file && wholeFile(store, file.toString('utf8')), false));
  // A record a line; what follows the last newline is a write cut short, which holds no record.
  const bytes = file.lastIndexOf(0x0a) + 1;
  // Read as written (the head's digest): taken as checked then, each record's chain linked but not hashed again.
  const asWritten =
    head?.bytes !== undefined && head.bytes <= bytes && digestOf(file.subarray(0, head.bytes)) === head.digest
      ? head.count
      : 0;
  const { records, starts } = recordLines(store, file.subarray(0, bytes), asWritten);
  return {
    ...ended(checkRecords(store, head, records, false, asWritten)),
    bytes,
    whole: { file: file.subarray(0, bytes), starts },
  };
}

/** An older hedge's file as records (one document). */
function wholeFile(store: Store, text: string) {
  const read = readBoundedJson(text, { maxBytes: MAX_BYTES, maxDepth: 16 }, FILE);
  if (typeof read === 'string') throw new UsageError(`The accounting records ${store.shown} are not hedge's: ${read}.`);
  return read.records;
}

function readHead(store: Store, headText: string | undefined) {
  const head = headText === undefined ? undefined : readBoundedJson(headText, { maxBytes: 1024, maxDepth: 2 }, HEAD);
  const headName = store.team ? 'hedge.acct_heads' : store.head;
  if (typeof head === 'string') throw changed(store.shown, `the head of its chain (${headName}) is unreadable`);
  return head;
}

/** The records' chain checked, each from the one before it (the first `asWritten` linked only: read as written), and
 * against its head. */
function checkRecords(
  store: Store,
  head: z.infer<typeof HEAD> | undefined,
  records: AcctRecord[] | undefined,
  exact: boolean,
  asWritten = 0,
) {
  const headName = store.team ? 'hedge.acct_heads' : store.head;
  if (records === undefined) {
    if (head && head.count > 0) throw changed(store.shown, 'the records are gone while their head is there');
    return [];
  }
  let prev = '';
  records.forEach((record, index) => {
    if (record.seq !== index + 1 || record.prev !== prev || (index >= asWritten && hashOf(record) !== record.hash))
      throw changed(store.shown, `record ${index + 1}'s hash does not follow from the records before it`);
    prev = record.hash;
  });
  if (head === undefined) throw changed(store.shown, `the head of its chain (${headName}) is missing`);
  // Written after the records: a crash between the two leaves records past the head, never fewer.
  if (records.length < head.count)
    throw changed(store.shown, `its last ${head.count - records.length} record(s) were removed`);
  if (exact && records.length > head.count)
    throw changed(store.shown, `${records.length - head.count} record(s) were added past its head`);
  if (head.count > 0 && records[head.count - 1].hash !== head.hash)
    throw changed(store.shown, `its chain was sealed again: record ${head.count} is not the one its head names`);
  return records;
}

// ---- Read by parts: every record but rates, and the rates asked for, each part checked against its digest ----

/** The records of whole lines, each read as a record (and, `check`, hashed), with where each begins; none where one is
 * not a record. */
function linesOf(text: Buffer, check: boolean): Lines | undefined {
  const lines: Lines = { records: [], text, starts: [] };
  for (let start = 0, end; start < text.length; start = end + 1) {
    end = text.indexOf(0x0a, start);
    lines.starts.push(start);
    const line = text.toString('utf8', start, end);
    let record;
    try {
      record = check ? readBoundedJson(line, { maxBytes: MAX_BYTES, maxDepth: 15 }, RECORD) : JSON.parse(line);
    } catch {
      return undefined;
    }
    // Read as written, a record's shape is trusted as it was when written; enough of it to be told apart is checked.
    if (typeof record?.body !== 'object' || record.body === null || (check && hashOf(record) !== record.hash))
      return undefined;
    lines.records.push(record as AcctRecord);
  }
  return lines;
}

/** Whether `text` is one record, the last of the chain its head names: a chain sealed again, or records that are not
 * the ones described, are read whole. */
function isLast(text: string | Buffer | undefined, count: number, hash: string) {
  const last = text === undefined ? undefined : linesOf(Buffer.from(`${text.toString().trimEnd()}\n`), true)?.records;
  return last?.length === 1 && last[0].seq === count && last[0].hash === hash;
}

/** The parts that hold the rates asked for (all: every part), those past them too; none where no part is named for a
 * market's quote. */
function partsOf(described: Parts, past: readonly AcctRecord[], asked: Iterable<RatesOf> | undefined) {
  const all = new Set([...Object.keys(described.parts), ...past.map(partOf)]);
  if (!asked) return all;
  const quotes = new Map(Object.entries(described.quotes));
  for (const record of past) if (namesQuote(record)) quotes.set(ratesMarketOf(record)!, partOf(record));
  const names = new Set<string>();
  for (const each of asked) {
    const market = typeof each === 'string' ? each : each.market;
    const ofMarket = [...all].filter((name) => name === market || name.startsWith(`${market} `));
    if (typeof each === 'string') ofMarket.forEach((name) => names.add(name));
    else if (ofMarket.length) {
      // The part the market's quote is read from, and the years asked for with the records of several years.
      const quoted = quotes.get(market);
      if (quoted === undefined || !all.has(quoted)) return undefined;
      const years = each.years.length ? [market, ...each.years.map((year) => `${market} ${year}`)] : [];
      for (const name of [quoted, ...years]) if (all.has(name)) names.add(name);
    }
  }
  return names;
}

/** A part's records, read from its lines as written (its digest): taken as checked then, as a whole read takes what the
 * head's digest vouches for; none where they are not as described (the digest, the count, each record's part). */
function partRecords(described: Parts, name: string, lines?: Buffer) {
  const text = lines ?? Buffer.alloc(0);
  const part = described.parts[name];
  const held = part && digestOf(text) === part.digest ? linesOf(text, false)?.records : text.length ? undefined : [];
  return held?.length === (part?.count ?? 0) && held.every((record) => partOf(record) === name) ? held : undefined;
}

/** The records of the parts asked for, with the lines of each part read; none where a part is not as described (its
 * digest, its count, each record's part): then every record is read, which says what is wrong, if anything. */
async function readByParts(
  described: Parts,
  past: Lines,
  rates: RatesNeeded,
  linesIn: Layout['more'],
): Promise<Pick<StoreRead, 'records' | 'layout'> | undefined> {
  const parts = new Map<string, Buffer>();
  const take = async (names: string[]) => {
    const texts = await linesIn(names);
    const records: AcctRecord[] = [];
    for (const name of names) {
      const held = texts && partRecords(described, name, texts.get(name));
      if (!held) return undefined;
      parts.set(name, texts.get(name) ?? Buffer.alloc(0));
      records.push(...held, ...past.records.filter((record) => partOf(record) === name));
    }
    return records;
  };
  const others = await take(['']);
  const names = others && partsOf(described, past.records, rates === 'all' ? undefined : rates(others));
  const ofRates = names && (await take([...names].filter((name) => name !== '')));
  if (!ofRates) return undefined;
  return {
    records: [...others!, ...ofRates].sort((a, b) => a.seq - b.seq),
    layout: { described, past, parts, more: linesIn },
  };
}

// ---- The file's index: where each part's lines are in records.json ----

const INDEX = z.object({
  /** Another hedge's index (another version) is not used: the records are read whole, and the next append writes it. */
  version: z.literal(1),
  /** The records it covers: the first `count`, the last (`hash`) beginning at `last`, in records.json's first `bytes`. */
  count: z.number(),
  hash: z.string(),
  bytes: z.number(),
  last: z.number(),
  /** The SHA-256 state of those bytes: the head's digest is extended from it. */
  state: z.string().check(z.refine(isSha256State)),
  /** Each part as PARTS has it, with where its lines are: runs of whole lines, `offset,length` pairs in base 36. */
  parts: z.record(z.string(), z.object({ count: z.number(), digest: z.string(), spans: z.string() })),
  quotes: z.record(z.string(), z.string()),
});
type Index = z.infer<typeof INDEX>;
/** A span a record at the most, each a few characters. */
const MAX_INDEX_BYTES = 8 * 1024 * 1024;

/** A part's spans, or none where they are not spans of the first `bytes`. */
function spansOf(text: string, bytes: number) {
  const numbers = text ? text.split(',').map((each) => (/^[0-9a-z]{1,8}$/.test(each) ? parseInt(each, 36) : NaN)) : [];
  for (let at = 0; at < numbers.length; at += 2) if (!(numbers[at] + numbers[at + 1] <= bytes)) return undefined;
  return numbers.length % 2 ? undefined : numbers;
}

/** `length` bytes of the open file at `position`, or none where it ends first. */
function readAt(fd: number, position: number, length: number) {
  const bytes = Buffer.allocUnsafe(length);
  for (let done = 0; done < length;) {
    const read = readSync(fd, bytes, done, length - done, position + done);
    if (read === 0) return undefined;
    done += read;
  }
  return bytes;
}

/** The lines of each part named, read by its spans. */
function linesAt(fd: number, index: Index, names: readonly string[]) {
  const texts = new Map<string, Buffer>();
  for (const name of names) {
    const spans = spansOf(index.parts[name]?.spans ?? '', index.bytes);
    if (!spans) return undefined;
    let length = 0;
    for (let at = 1; at < spans.length; at += 2) length += spans[at];
    const text = Buffer.allocUnsafe(length);
    for (let at = 0, done = 0; at < spans.length; done += spans[at + 1], at += 2)
      if (readSync(fd, text, done, spans[at + 1], spans[at]) !== spans[at + 1]) return undefined;
    texts.set(name, text);
  }
  return texts;
}

/** records.json open to be read where it is, or none. */
function openRecords(store: Store) {
  try {
    return openRegularFileSync(store.file, { maxBytes: MAX_BYTES, guard: 'trusted', noFollow: true });
  } catch {
    return undefined;
  }
}

/** The file's index, or none where there is none to use. */
function readIndex(store: Store) {
  try {
    const text = readStoreFile(store, store.index, MAX_INDEX_BYTES)?.toString('utf8');
    const index =
      text === undefined ? undefined : readBoundedJson(text, { maxBytes: MAX_INDEX_BYTES, maxDepth: 4 }, INDEX);
    return typeof index === 'string' ? undefined : index;
  } catch {
    return undefined;
  }
}

/** The records asked for read by the index, those past it (another hedge's append, a crash before the index was
 * written) each checked; none where it does not serve (none, another's, not this file's: its counts, its last record,
 * a part), and then the whole file is read, which says what is wrong, if anything. */
async function readThroughIndex(store: Store, head: z.infer<typeof HEAD>, rates: RatesNeeded) {
  const index = readIndex(store);
  if (!index || index.count < 1 || index.count > head.count) return undefined;
  const fd = openRecords(store);
  if (fd === undefined) return undefined;
  try {
    const size = fstatSync(fd).size;
    const counted = Object.values(index.parts).reduce((sum, part) => sum + part.count, 0);
    if (index.bytes > size || index.last >= index.bytes || counted !== index.count) return undefined;
    if (!isLast(readAt(fd, index.last, index.bytes - index.last), index.count, index.hash)) return undefined;
    const rest = readAt(fd, index.bytes, size - index.bytes);
    const past = rest && linesOf(rest.subarray(0, rest.lastIndexOf(0x0a) + 1), true);
    if (!past) return undefined;
    let prev = index.hash;
    for (const [at, record] of past.records.entries()) {
      if (record.seq !== index.count + at + 1 || record.prev !== prev) return undefined;
      prev = record.hash;
    }
    const count = index.count + past.records.length;
    const atHead = head.count === index.count ? index.hash : past.records[head.count - index.count - 1]?.hash;
    if (count < head.count || atHead !== head.hash) return undefined;
    const read = await readByParts(index, past, rates, async (names) => linesAt(fd, index, names));
    if (!read) return undefined;
    // Parts an append adds to that were not read, read from the file again.
    const more = async (names: readonly string[]) => {
      const again = openRecords(store);
      try {
        return again === undefined ? undefined : linesAt(again, index, names);
      } finally {
        if (again !== undefined) closeSync(again);
      }
    };
    return {
      ...read,
      count,
      hash: prev,
      bytes: index.bytes + past.text.length,
      layout: { ...read.layout!, index, more },
    };
  } finally {
    closeSync(fd);
  }
}

// ---- The team store's parts: described in its head, each record's part in its row ----

/** The records asked for read by parts, checked in one snapshot against the head (how many there are, the last one's
 * hash) and each part against its digest; none where the head describes no parts (an older hedge's), or where they are
 * not as described: then every record is read, which says what is wrong, if anything. */
async function readTeamParts(store: Store, rates: RatesNeeded) {
  const acct = store.team!.acctRecords;
  const head = await acct.readHead(store.name);
  if (!head || head.parts === undefined || head.held !== head.count || !isLast(head.last, head.count, head.hash))
    return undefined;
  const described = readBoundedJson(head.parts, { maxBytes: MAX_INDEX_BYTES, maxDepth: 4 }, PARTS);
  if (typeof described === 'string') return undefined;
  // The parts as of the head read: records a writer adds meanwhile come after it.
  const linesIn = async (names: readonly string[]) => {
    const rows = await acct.readParts(store.name, names, head.count, MAX_BYTES);
    if (rows.reduce((sum, row) => sum + row.bytes, 0) > MAX_BYTES || rows.some((row) => row.lines === undefined))
      return undefined;
    return new Map(rows.map((row) => [row.part, Buffer.from(row.lines!)]));
  };
  const read = await readByParts(described, NO_LINES, rates, linesIn);
  return read && { ...read, count: head.count, hash: head.hash, bytes: described.bytes };
}

/** The records of the environment's store (every record but rates, and the rates `rates` names), their chain checked
 * against its head, in seq order; none when nothing was recorded yet. */
export async function readRecords(ctx: StorePorts, rates: RatesNeeded) {
  return (await readStore(await storeOf(ctx), rates)).records;
}

/** Where records are kept that this account's store (holding none) might have held: each earlier store of it that holds
 * any, and how to move it here, as a sentence to add to a message; empty when there is none. */
export async function recordsElsewhere(ctx: StorePorts) {
  const store = await storeOf(ctx);
  const found: string[] = [];
  for (const name of store.before) {
    const why =
      name === 'local' ? 'kept while no key was configured' : "named after the key's prefix by an older hedge";
    if (store.team) {
      if (!(await store.team.acctRecords.read(name, 0)).bytes) continue;
      const moved = (table: string) => `UPDATE hedge.${table} SET store = '${store.name}' WHERE store = '${name}'`;
      found.push(
        `"${name}" in the team journal store (${why}); if they are this account's, move them here in one transaction: ${moved('acct_records')}; ${moved('acct_heads')}`,
      );
      continue;
    }
    const dir = storeFolder(ctx.env, name);
    if (!lstatSync(dir, { throwIfNoEntry: false })?.isDirectory() || !readdirSync(dir).length) continue;
    const empty = existsSync(store.dir) ? `rmdir ${shellWord(store.dir)} && ` : '';
    found.push(
      `${dir} (${why}); if they are this account's, move them here: ${empty}mv ${shellWord(dir)} ${shellWord(store.dir)}`,
    );
  }
  return found.length ? ` Records are kept elsewhere: ${found.join('; ')}.` : '';
}

/** Appends records while this process holds the store, each made by `by` (--by; see `author`); `make` is given the
 * records read under it (every record but rates, and the rates `rates` names), and a refusal (a throw) writes nothing,
 * as does an empty list. `beforeWrite` is given the sealed records before they are written, to write what must exist
 * first (a memo): when it throws, nothing is recorded. */
export async function appendRecords(
  ctx: StorePorts & Pick<CommandContext, 'clock'>,
  kind: RecordKind,
  rates: RatesNeeded,
  make: (records: AcctRecord[], by: Author) => readonly JsonObject[] | Promise<readonly JsonObject[]>,
  { by: given, beforeWrite }: { by?: string; beforeWrite?: (added: AcctRecord[]) => void } = {},
) {
  const store = await storeOf(ctx);
  // Who, before anything is held: a name that cannot be one is refused with nothing recorded.
  const by = store.author(given);
  if (!store.team) {
    ensureDir(store.top);
    ensureDir(join(store.top, 'acct'), { inside: true });
    ensureDir(store.dir, { inside: true });
  }
  // A hold judged by its holder's liveness, never by age: a writer stopped mid-write (Ctrl-Z) keeps it. On the team
  // store it is the journal's lock (its session's advisory lock), which a colleague's writer waits for the same way.
  const scope = `acct|${store.name}`;
  const taken = store.team
    ? await store.team.lock(scope, { waitMs: HOLD_WAIT_MS })
    : await namedHolds({
        dir: store.top,
        session: newSession(),
        now: () => ctx.clock.now(),
        sleep: (ms) => ctx.clock.sleep(ms),
      }).take(scope, HOLD_WAIT_MS);
  if (!taken.held)
    throw new HeldError(
      `The accounting records ${store.shown} are being written by another hedge process (${describeHolder(taken.holder)}); nothing was recorded.`,
      { holder: taken.holder, hint: 'Run it again when that command has ended (a stopped one: `fg` it, or end it).' },
    );
  try {
    const read = await readStore(store, rates);
    const bodies = await make(read.records, by);
    if (!bodies.length) return [];
    const recordedAt = new Date(ctx.clock.now()).toISOString();
    const added: AcctRecord[] = [];
    let prev = read.hash;
    for (const body of bodies) {
      const unsealed = {
        seq: read.count + added.length + 1,
        kind,
        recorded_at: recordedAt,
        by,
        body,
        prev,
      };
      added.push({ ...unsealed, hash: (prev = hashOf(unsealed)) });
    }
    // A record a line, appended after those read; an older hedge's file (or none yet) written whole: what a read
    // accepts bounds what may be written.
    const written = read.bytes === undefined ? [...read.records, ...added] : added;
    const text = Buffer.from(`${written.map((record) => JSON.stringify(record)).join('\n')}\n`);
    const total = (read.bytes ?? 0) + text.length;
    if (total > MAX_BYTES)
      throw new UsageError(
        `Recording this would make the accounting records ${store.shown} ${sizeInWords(total)}, past the ${sizeInWords(MAX_BYTES)} they may hold; nothing was recorded.`,
      );
    beforeWrite?.(added);
    const lines = { records: written, text, starts: lineStarts(text) };
    const after = await describedAfter(store, read, lines);
    if (store.team) {
      await store.team.acctRecords.append(
        store.name,
        read.count,
        added.map((record) => JSON.stringify(record)),
        added.at(-1)!.hash,
        {
          of: added.map(partOf),
          described: JSON.stringify(after.described),
          ...(after.anew && { reparted: after.anew.map(partOf) }),
        },
      );
      return added;
    }
    try {
      // The first records follow an empty head, so that no read ever finds records without one.
      if (!read.count) writeHead(store, { count: 0, hash: '' });
      if (read.bytes === undefined) writeFileDurably(store.file, text);
      else appendDurably(store.file, read.bytes, text);
    } catch (error) {
      throw new JournalError(
        `Cannot write the accounting records ${store.file}: ${describeReadError(error)}; nothing was recorded.`,
        { path: store.file, hint: 'Free the disk (or make the folder writable by this user), then run it again.' },
      );
    }
    // Past this point the records are made: a head or an index left behind is one a later append writes again.
    try {
      const index = after.described as Index;
      writeHead(store, { count: index.count, hash: index.hash, bytes: total, digest: sha256Of(index.state) });
      writeFileDurably(store.index, `${JSON.stringify(index)}\n`);
    } catch {
      // The records read past an older head or index (a crash between the writes reads the same).
    }
    return added;
  } finally {
    await taken.hold.release();
  }
}

/** Where each line of `text` begins. */
function lineStarts(text: Buffer) {
  const starts = [];
  for (let at = 0; at < text.length; at = text.indexOf(0x0a, at) + 1) starts.push(at);
  return starts;
}

/** What describes the parts once `lines` are written after the records read: what was read extended (the parts they
 * add to read first where they were not), or described anew from every record (after a read of every one, or where a
 * part they add to is not as described: every record is read again, which says what is wrong, if anything). `anew`:
 * every record, where the team store's rows are given their parts again. */
async function describedAfter(
  store: Store,
  read: StoreRead,
  lines: Lines,
): Promise<{ described: Parts | Index; anew?: AcctRecord[] }> {
  const { layout } = read;
  if (layout) {
    const past = { ...layout.past, records: [...layout.past.records, ...lines.records] };
    const all = {
      ...past,
      text: Buffer.concat([past.text, lines.text]),
      starts: [...past.starts, ...lines.starts.map((at) => at + past.text.length)],
    };
    const missing = [...new Set(all.records.map(partOf))].filter(
      (name) => !layout.parts.has(name) && layout.described.parts[name],
    );
    const more = missing.length ? await layout.more(missing) : new Map<string, Buffer>();
    if (more && missing.every((name) => partRecords(layout.described, name, more.get(name)))) {
      const before = new Map([...layout.parts, ...more]);
      return {
        described: layout.index ? indexAfter(layout.index, before, all) : partsAfter(layout.described, before, all),
      };
    }
    return describedAfter(store, await readEvery(store), lines);
  }
  // Every record read: the parts described from their lines (an older hedge's file, or none, is written whole).
  const every: Lines = read.whole
    ? {
        records: [...read.records, ...lines.records],
        text: Buffer.concat([read.whole.file, lines.text]),
        starts: [...read.whole.starts, ...lines.starts.map((at) => at + read.whole!.file.length)],
      }
    : lines;
  const described = store.team ? partsAfter(undefined, new Map(), every) : indexAfter(undefined, new Map(), every);
  return { described, anew: read.records };
}

/** Every record, read as the store reads them whole. */
const readEvery = async (store: Store) =>
  store.team
    ? readTeamWhole(store)
    : readWhole(store, readHead(store, readStoreFile(store, store.head)?.toString('utf8')));

/** The parts once `lines` (the records after those described, from where they end) are added: each part's count and
 * digest (from its lines before, `before`), the bytes of every line, each market's part for its quote. */
function partsAfter(described: Parts | undefined, before: ReadonlyMap<string, Buffer>, lines: Lines): Parts {
  const parts = { ...described?.parts };
  const quotes = { ...described?.quotes };
  const pieces = new Map<string, Buffer[]>();
  lines.records.forEach((record, at) => {
    const name = partOf(record);
    const added = pieces.get(name) ?? [];
    pieces.set(name, added);
    added.push(lines.text.subarray(lines.starts[at], lines.starts[at + 1] ?? lines.text.length));
    if (namesQuote(record)) quotes[ratesMarketOf(record)!] = name;
  });
  for (const [name, added] of pieces)
    parts[name] = {
      count: (parts[name]?.count ?? 0) + added.length,
      digest: digestOf(before.get(name) ?? Buffer.alloc(0), ...added),
    };
  return { bytes: (described?.bytes ?? 0) + lines.text.length, parts, quotes };
}

/** The file's index once `lines` are added: the parts (partsAfter), where each one's lines are (lines one after
 * another in the file are one span), the last record and the state of the whole file's bytes. */
function indexAfter(index: Index | undefined, before: ReadonlyMap<string, Buffer>, lines: Lines): Index {
  const from = index?.bytes ?? 0;
  const { bytes, parts, quotes } = partsAfter(index, before, lines);
  const spans = new Map<string, number[]>();
  lines.records.forEach((record, at) => {
    const name = partOf(record);
    const found = spans.get(name) ?? spansOf(index?.parts[name]?.spans ?? '', from)!;
    spans.set(name, found);
    const [start, end] = [from + lines.starts[at], from + (lines.starts[at + 1] ?? lines.text.length)];
    if (found.length && found.at(-2)! + found.at(-1)! === start) found[found.length - 1] += end - start;
    else found.push(start, end - start);
  });
  const last = lines.records.at(-1)!;
  return {
    version: 1,
    count: last.seq,
    hash: last.hash,
    bytes,
    last: from + lines.starts.at(-1)!,
    state: extendSha256(index?.state, lines.text),
    parts: Object.fromEntries(
      Object.entries(parts).map(([name, part]) => [
        name,
        {
          ...part,
          spans:
            spans
              .get(name)
              ?.map((number) => number.toString(36))
              .join(',') ?? index!.parts[name].spans,
        },
      ]),
    ),
    quotes,
  };
}

/** Appends `text` to the store file after its first `bytes` (what follows them, a write cut short, is dropped), synced. */
function appendDurably(path: string, bytes: number, text: Buffer) {
  const fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW);
  try {
    if (fstatSync(fd).size > bytes) ftruncateSync(fd, bytes);
    writeAllSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

const writeHead = (store: Store, head: z.infer<typeof HEAD>) =>
  writeFileDurably(store.head, `${JSON.stringify(head)}\n`);
