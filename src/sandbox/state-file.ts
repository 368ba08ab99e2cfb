// Persistence of the engine state for the demo, which starts a fresh process per CLI command.
// Writes go to a temp file and are renamed over the target, so a crash mid-write never leaves a
// half-written state behind.
//
// The file is lines of JSON (format 2): a header (with each line's length), the state's core (an
// account's open hedges included), then one line per large part: the idempotency records, and each
// account's settled hedges and history. A part is parsed only when something reads it
// (lazy-state.ts), and a save writes a part nobody read back as the bytes it was loaded from: a
// demo command that does not look at the book's past reads only the core. Format 1 (the whole
// state as one JSON document) still loads.
//
// Two ways to keep it:
//   - StateFileWriter: one process owns the file (saves coalesced, a burst costs at most two writes);
//   - SharedStateFile: several processes use the file at once (parallel `hedge --demo` runs). Each
//     request is load → act → save under a lock the caller supplies, so no process acts on a state
//     another one has moved on from, and no save overwrites another's (the last save used to win).
//     The header carries a revision, one more at each save, and a save commits only on the
//     revision it loaded and while the lock is still its own (compare-and-swap): a holder stopped
//     past the lock's stale time, whose lock another process took over, aborts and runs its
//     request again on what the file holds now, instead of writing over it.

import { closeSync, fstatSync, openSync, readSync, renameSync } from 'node:fs';
import { rename, unlink, writeFile } from 'node:fs/promises';

import type { AccountState, EngineState, HedgeState } from './engine-state.js';
import {
  defineLazyPart,
  defineLazyRecords,
  eagerRecords,
  oldestIdempotencyHint,
  setOldestIdempotencyHint,
  unreadPart,
} from './lazy-state.js';

export interface StateFileContents {
  /** The file's format is chosen by the writer (stateFileBytes); any loaded state says 1 here. */
  version: 1;
  /** One more at each save of a shared file; 0 for a file that never had one (written before revisions). */
  revision?: number;
  /** Sandbox time minus real time at save: reloading continues the clock where it was. */
  clockOffsetMs: number;
  engine: EngineState;
}

/** A lock on a shared state file, as its holder has it. */
export interface StateFileLockHold {
  /**
   * Synchronous, asked right before a save commits: whether the lock is still this holder's and
   * will stay so for the moment of the commit. False when another process took it over (this one
   * was stopped past the stale time) or may any moment: the save then aborts.
   */
  held(): boolean;
  /** Lets go of it; leaves alone a lock another process has taken over. */
  release(): Promise<void>;
}

/**
 * Taken around each request's load → act → save of a state file several processes share; resolves
 * to the hold, or rejects with code ELOCKED when another process kept it past the lock's own
 * bound. Injected (the demo uses proper-lockfile) so that the simulator imports nothing outside
 * itself.
 */
export type StateFileLock = (path: string) => Promise<StateFileLockHold>;

/**
 * What tells one version of the file from another: its revision, and its inode, size and mtime (a
 * file saved by a writer that keeps no revision, or removed and made afresh, still differs).
 * Neither alone would do: the inode of a replaced file is soon given to the next one, and two
 * saves within one tick of the file system's clock have the same mtime.
 */
type FileIdentity = string;
const ABSENT: FileIdentity = 'absent';

interface ReadResult {
  contents: StateFileContents | undefined;
  identity: FileIdentity;
  /** The open file the contents' unread parts are read from (closed once none is left). */
  file?: FileSource;
}

function readStateFile(path: string): ReadResult {
  let file: FileSource;
  try {
    file = openFileSource(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { contents: undefined, identity: ABSENT };
    throw error;
  }
  try {
    // The identity is that of the open file, whose bytes every part is read from, even if a rename follows.
    const contents = parseStateSource(path, file);
    // No part to read later (format 1, or no part at all): nothing keeps the file open.
    if (!file.held()) file.close();
    return { contents, identity: versionOf(contents.revision ?? 0, file.identity), file };
  } catch (error) {
    file.close();
    throw error;
  }
}

const NEWLINE = 0x0a;
/** How much of the file is read at a time to find the end of its header. */
const HEAD_CHUNK = 64 * 1024;
/** Where a part of the state lives: `['idempotency']` or `['accounts', id, 'hedges' | 'history']`. */
type PartPath = ['idempotency'] | ['accounts', string, 'hedges' | 'history'];

interface SectionedHeader {
  version: 2;
  /** One more at each save of a shared file (first in the line: read without parsing the header). */
  revision?: number;
  clockOffsetMs: number;
  /** The oldest idempotency record's creation time (null: none), so expiry need not parse them. */
  idempotencyOldestMs: number | null;
  /** The parts after the core line, one a line, in this order. */
  parts: PartPath[];
  /** Byte lengths of the lines after the header (the core's, then each part's), newlines apart. */
  lengths: number[];
  /** keyIndex of the idempotency records' keys: a new key is known to be new without reading them. */
  idempotencyIndex?: string;
}

/** 32-bit FNV-1a of a key, 8 hex digits: an index of keys that may give false hits, never misses. */
function keyHash(key: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index++) {
    hash ^= key.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}

function keyIndex(keys: Iterable<string>): string {
  let index = '';
  for (const key of keys) index += keyHash(key);
  return index;
}

/** Whether a key may be among those `index` was made of (a hash of it is there). */
function mayHoldFrom(index: string): (key: string) => boolean {
  let hashes: Set<string> | undefined;
  return (key) => {
    if (hashes === undefined) {
      hashes = new Set();
      for (let at = 0; at + 8 <= index.length; at += 8) hashes.add(index.slice(at, at + 8));
    }
    return hashes.has(keyHash(key));
  };
}

/** The index a loaded state's idempotency part came with, for the next save while it is unread. */
const loadedIndexes = new WeakMap<object, string>();

/** The bytes of a state file: all of them in memory, or an open file read where needed. */
interface ByteSource {
  size: number;
  read(offset: number, length: number): Buffer;
  /**
   * A part defined on `target` will be read from this source: it stays open until the function
   * returned is called (the part is read or replaced) or `target` is collected.
   */
  hold?(target: object): () => void;
}

interface FileSource extends ByteSource {
  identity: FileIdentity;
  /** Whether a part still keeps the file open. */
  held(): boolean;
  /** One part fewer to keep the file open for. */
  release(): void;
  /** Closes it now (a part read after this throws, it never reads another file). */
  close(): void;
}

/**
 * Closes the file of a state dropped with parts unread (a reload replaced it): each object a part
 * was defined on is registered, and the file closes once every one of them is collected.
 */
const dropped = new FinalizationRegistry<FileSource>((file) => file.release());

/**
 * A state file kept open for its unread parts, closed when the last is read or its state is
 * collected. Synchronous: a part is read inside a property getter.
 */
function openFileSource(path: string): FileSource {
  const fd = openSync(path, 'r');
  let open = true;
  let holders = 0;
  const close = (): void => {
    if (open) closeSync(fd);
    open = false;
  };
  try {
    const stats = fstatSync(fd);
    return {
      size: stats.size,
      identity: identityOf(stats),
      read(offset, length) {
        if (!open) throw new Error(`sandbox state file ${path} was closed before a part was read`);
        const bytes = Buffer.allocUnsafe(length);
        let done = 0;
        while (done < length) {
          const count = readSync(fd, bytes, done, length - done, offset + done);
          if (count === 0) throw new Error(`sandbox state file ${path} ended early; delete it to start afresh`);
          done += count;
        }
        return bytes;
      },
      hold(target) {
        holders += 1;
        const token = {};
        dropped.register(target, this, token);
        return () => {
          dropped.unregister(token);
          this.release();
        };
      },
      held: () => open && holders > 0,
      release() {
        holders -= 1;
        if (holders <= 0) close();
      },
      close,
    };
  } catch (error) {
    close();
    throw error;
  }
}

function parseJson(path: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`sandbox state file ${path} is not valid JSON; delete it to start afresh`);
  }
}

function unknownFormat(path: string): Error {
  return new Error(`sandbox state file ${path} has an unknown format; delete it to start afresh`);
}

/** A state file's contents from its bytes (tests and the bench; the simulator reads the file itself). */
export function parseStateFile(path: string, bytes: Buffer): StateFileContents {
  return parseStateSource(path, {
    size: bytes.length,
    read: (offset, length) => bytes.subarray(offset, offset + length),
  });
}

function parseStateSource(path: string, source: ByteSource): StateFileContents {
  // The header line, read a chunk at a time; format 1 (one JSON document, never a raw newline) has none.
  const chunks: Buffer[] = [];
  let headLength = 0;
  let newline = -1;
  while (newline === -1 && headLength < source.size) {
    const chunk = source.read(headLength, Math.min(HEAD_CHUNK, source.size - headLength));
    newline = chunk.indexOf(NEWLINE);
    chunks.push(newline === -1 ? chunk : chunk.subarray(0, newline));
    headLength += newline === -1 ? chunk.length : newline;
  }
  const head = Buffer.concat(chunks).toString('utf8');
  let header: SectionedHeader | undefined;
  try {
    header = newline === -1 ? undefined : (JSON.parse(head) as SectionedHeader);
  } catch {
    // Not a header line: a document of format 1 written over several lines (pretty-printed).
  }
  if (header?.version !== 2) {
    // Format 1: one JSON document, whatever its line breaks (an editor may add a last newline).
    const whole = newline === -1 ? head : source.read(0, source.size).toString('utf8');
    const contents = parseJson(path, whole) as StateFileContents;
    if (contents?.version !== 1 || typeof contents.engine !== 'object' || contents.engine === null)
      throw unknownFormat(path);
    return { ...contents, revision: 0 };
  }
  if (typeof header.clockOffsetMs !== 'number' || !Array.isArray(header.parts) || !Array.isArray(header.lengths))
    throw unknownFormat(path);
  const { lengths } = header;
  const whole =
    lengths.length === header.parts.length + 1 &&
    lengths.every((length) => Number.isSafeInteger(length) && length >= 0);
  // The size the lines add up to: a file cut short (or grown) is refused before anything is read.
  if (!whole || headLength + 1 + lengths.reduce((sum, length) => sum + length + 1, 0) !== source.size)
    throw unknownFormat(path);
  let offset = headLength + 1;
  const engine = parseJson(path, source.read(offset, lengths[0]).toString('utf8')) as EngineState;
  if (typeof engine !== 'object' || engine === null || typeof engine.accounts !== 'object' || engine.accounts === null)
    throw unknownFormat(path);
  offset += lengths[0] + 1;
  header.parts.forEach((part, index) => {
    const at = offset;
    const length = lengths[index + 1];
    offset += length + 1;
    const account =
      part[0] === 'accounts' &&
      (part[2] === 'hedges' || part[2] === 'history') &&
      Object.hasOwn(engine.accounts, part[1])
        ? engine.accounts[part[1]]
        : undefined;
    const target = part[0] === 'idempotency' ? engine : account;
    if (typeof target !== 'object' || target === null) throw unknownFormat(path);
    const settled = source.hold?.(target);
    const load = (): Buffer => source.read(at, length);
    const describe = (): string => `sandbox state file ${path} (${part.join('.')})`;
    if (part[0] === 'idempotency') {
      const index = header.idempotencyIndex;
      if (typeof index !== 'string' || index.length % 8 !== 0)
        defineLazyPart(target, 'idempotency', load, describe, settled);
      else {
        // Records made by this process join those of the part; one the index lacks is not in it.
        loadedIndexes.set(engine, index);
        defineLazyRecords(target, 'idempotency', {}, load, describe, settled, mayHoldFrom(index));
      }
    } else if (part[2] === 'history') defineLazyPart(target, 'history', load, describe, settled);
    else {
      // The account's open hedges are in the core; this part holds its settled ones.
      const open = (target as AccountState).hedges;
      if (typeof open !== 'object' || open === null) throw unknownFormat(path);
      defineLazyRecords(target, 'hedges', open, load, describe, settled);
    }
  });
  setOldestIdempotencyHint(engine, header.idempotencyOldestMs ?? null);
  return { version: 1, revision: revisionOf(header.revision), clockOffsetMs: header.clockOffsetMs, engine };
}

/** A copy of `source`'s own properties but `omit`, without reading those (they may be unread parts). */
function without<T extends object>(source: T, omit: readonly string[]): Partial<T> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(source)) if (!omit.includes(key)) copy[key] = (source as Record<string, unknown>)[key];
  return copy as Partial<T>;
}

/** A part as saved: its loaded bytes when nothing read it, else its JSON now. */
function partBytes(target: object, key: string): Buffer {
  return (
    unreadPart(target, key) ?? Buffer.from(JSON.stringify((target as Record<string, unknown>)[key]) ?? 'null', 'utf8')
  );
}

/**
 * The idempotency records as saved, with the oldest one's time and the index of their keys. While
 * the loaded records are unread, those made since are added to the end of their bytes and of
 * their index; nothing else is read.
 */
function idempotencyPart(engine: EngineState): { bytes: Buffer; oldest: number | null; index?: string } {
  const unread = unreadPart(engine, 'idempotency');
  const made = eagerRecords(engine, 'idempotency') as EngineState['idempotency'] | undefined;
  const loadedIndex = loadedIndexes.get(engine);
  const hint = oldestIdempotencyHint(engine);
  if (unread && made && loadedIndex !== undefined && hint !== undefined) {
    const joined = withRecords(unread, made);
    if (joined) {
      let oldest = hint;
      for (const record of Object.values(made))
        if (oldest === null || record.createdAtMs < oldest) oldest = record.createdAtMs;
      return { bytes: joined, oldest, index: loadedIndex + keyIndex(Object.keys(made)) };
    }
  }
  // Unread and without an index (a file written before there was one): copied, still without.
  if (unread && !made && hint !== undefined) return { bytes: unread, oldest: hint };
  const records = engine.idempotency;
  let oldest: number | null = null;
  for (const record of Object.values(records))
    if (oldest === null || record.createdAtMs < oldest) oldest = record.createdAtMs;
  return { bytes: Buffer.from(JSON.stringify(records), 'utf8'), oldest, index: keyIndex(Object.keys(records)) };
}

/** Hedges that will not change again: their part is read only by what looks at the past. */
const SETTLED: ReadonlySet<string> = new Set(['closed', 'failed']);

/**
 * An account's hedges as saved: the ones that may still change in the core, the settled ones as
 * their part's bytes (as loaded, while nobody read them).
 */
function splitHedges(account: AccountState): { open: Record<string, HedgeState>; settled: Buffer } {
  const unread = unreadPart(account, 'hedges');
  const kept = eagerRecords(account, 'hedges') as Record<string, HedgeState> | undefined;
  const open: Record<string, HedgeState> = {};
  const settled: Record<string, HedgeState> = {};
  for (const [id, hedge] of Object.entries(kept ?? account.hedges))
    (SETTLED.has(hedge.status) ? settled : open)[id] = hedge;
  if (unread && kept) {
    const joined = withRecords(unread, settled);
    // A part that is not an object as JSON.stringify writes it is left as it is (it fails when
    // read, as it would have), and memory's hedges stay in the core, all of them.
    return joined ? { open, settled: joined } : { open: kept, settled: unread };
  }
  return { open, settled: Buffer.from(JSON.stringify(settled), 'utf8') };
}

/**
 * A part's JSON object with `records` added at its end, without parsing it: hedges that settled
 * while their part was unread join it rather than stay in the core. (JSON.parse keeps the last of
 * two equal keys, as the merge keeps memory's record over the part's.)
 */
function withRecords(part: Buffer, records: Record<string, unknown>): Buffer | undefined {
  if (part.length < 2 || part[0] !== 0x7b || part[part.length - 1] !== 0x7d) return undefined;
  const added = JSON.stringify(records).slice(1, -1);
  if (added === '') return part;
  const separator = part.length === 2 ? '' : ',';
  return Buffer.concat([part.subarray(0, part.length - 1), Buffer.from(`${separator}${added}}`, 'utf8')]);
}

/** The state as the file holds it (format 2): header, core and parts, a line each. */
export function stateFileBytes(contents: StateFileContents): Buffer[] {
  const { engine } = contents;
  const parts: PartPath[] = [['idempotency']];
  const idempotency = idempotencyPart(engine);
  const lines: Buffer[] = [idempotency.bytes];
  const accounts: Record<string, Partial<AccountState>> = {};
  for (const [id, account] of Object.entries(engine.accounts)) {
    const { open, settled } = splitHedges(account);
    accounts[id] = { ...without(account, ['hedges', 'history']), hedges: open };
    parts.push(['accounts', id, 'hedges'], ['accounts', id, 'history']);
    lines.push(settled, partBytes(account, 'history'));
  }
  const core = { ...without(engine, ['idempotency', 'accounts']), accounts };
  const coreLine = Buffer.from(JSON.stringify(core), 'utf8');
  const lengths = [coreLine.length, ...lines.map((line) => line.length)];
  const header: SectionedHeader = {
    version: 2,
    revision: contents.revision ?? 0,
    clockOffsetMs: contents.clockOffsetMs,
    idempotencyOldestMs: idempotency.oldest,
    parts,
    lengths,
  };
  if (idempotency.index !== undefined) header.idempotencyIndex = idempotency.index;
  const newline = Buffer.from('\n');
  const out: Buffer[] = [Buffer.from(JSON.stringify(header), 'utf8'), newline, coreLine, newline];
  for (const line of lines) out.push(line, newline);
  return out;
}

function identityOf(stats: { ino: number; size: number; mtimeMs: number }): FileIdentity {
  return `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
}

function versionOf(revision: number, identity: FileIdentity): FileIdentity {
  return `r${revision}@${identity}`;
}

function revisionOf(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;
}

/** The header's start as stateFileBytes writes it: the revision is read without parsing the header. */
const REVISION_AT_START = /^\{"version":2,"revision":(\d{1,15})[,}]/;

/**
 * The file's version now, synchronously (the compare of a compare-and-swap: nothing may run
 * between it and the rename): its identity and the revision at the start of its header (0 when
 * there is none: format 1, or a file written before revisions).
 */
function currentIdentity(path: string): FileIdentity {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ABSENT;
    throw error;
  }
  try {
    const start = Buffer.alloc(64);
    const length = readSync(fd, start, 0, start.length, 0);
    const match = REVISION_AT_START.exec(start.subarray(0, length).toString('latin1'));
    return versionOf(match ? Number(match[1]) : 0, identityOf(fstatSync(fd)));
  } finally {
    closeSync(fd);
  }
}

/** Writes `bytes` to a temporary file beside `path`, then `commit` renames it over; the temporary file goes if anything fails. */
async function replaceFile(path: string, bytes: Buffer, commit: (temporary: string) => Promise<void>): Promise<void> {
  // Unique per writer: two processes never share a temp file even if one was killed mid-write.
  const temporary = `${path}.${process.pid}.${process.getBuiltinModule('node:crypto').randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, bytes, { mode: 0o600 });
    await commit(temporary);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw error;
  }
}

export async function loadStateFile(path: string): Promise<StateFileContents | undefined> {
  return readStateFile(path).contents;
}

export class StateFileWriter {
  private writing: Promise<void> | null = null;
  private dirty = false;
  private lastError: unknown = null;

  constructor(
    private readonly path: string,
    private readonly snapshot: () => StateFileContents,
  ) {}

  /** Schedules a save of the current state; resolves when a save covering it has finished. */
  save(): Promise<void> {
    this.dirty = true;
    this.writing ??= this.drain();
    return this.writing;
  }

  /** Waits for any save in progress (used on close). Rejects if the last save failed. */
  async flush(): Promise<void> {
    if (this.writing) await this.writing;
    if (this.lastError) throw this.lastError;
  }

  private async drain(): Promise<void> {
    try {
      while (this.dirty) {
        this.dirty = false;
        try {
          await replaceFile(this.path, Buffer.concat(stateFileBytes(this.snapshot())), (temporary) =>
            rename(temporary, this.path),
          );
          this.lastError = null;
        } catch (error) {
          this.lastError = error;
        }
      }
    } finally {
      this.writing = null;
    }
  }
}

/** The lock could not be taken within its bound: nothing was read, done or written. */
export class StateFileBusyError extends Error {
  constructor(
    readonly path: string,
    cause: unknown,
  ) {
    super(`sandbox state file ${path} stayed locked by another process`, { cause });
    this.name = 'StateFileBusyError';
  }
}

/** A save found the lock or the file no longer as it loaded them: it aborted, nothing written. */
class StateFileConflictError extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`sandbox state file ${path}: save aborted, ${reason}`);
    this.name = 'StateFileConflictError';
  }
}

/**
 * How many times a request runs when its save keeps aborting (each run on what the file holds
 * then); after the last, it is answered 503 sandbox_state_busy, nothing done.
 */
const ATTEMPTS = 3;

export interface SharedStateFileHooks {
  /** The file changed under us (another process saved, or it was removed): adopt its contents. */
  adopt(contents: StateFileContents | undefined): void;
  /** What to save now. */
  snapshot(): StateFileContents;
  /** Whether anything changed since the last adopt or save. */
  changed(): boolean;
  /** Called after a save, so changed() starts again from here. */
  saved(): void;
  /**
   * Tests only: called inside a save, its new state written to the temporary file and not yet
   * committed (the demo stops the process here when HEDGE_TEST_DEMO_STOP_IN_SAVE is set).
   */
  beforeCommit?(): void | Promise<void>;
}

export class SharedStateFile {
  /** The version of the file this process's memory holds; undefined forces a reload. */
  private identity: FileIdentity | undefined;
  /** The revision of the file memory was loaded from (or last saved as). */
  private revision = 0;
  /** The file memory's unread parts come from; closed when memory adopts another. */
  private file: FileSource | undefined;
  /** Transactions under way, so close() can wait for their saves. */
  private readonly running = new Set<Promise<unknown>>();
  /**
   * Locked runs of this process under way (waiting for the lock, acting, saving): while one is,
   * memory may hold what it did and has not yet committed, so no request is answered without the lock.
   */
  private lockedRuns = 0;

  constructor(
    private readonly path: string,
    private readonly lock: StateFileLock,
    private readonly hooks: SharedStateFileHooks,
  ) {}

  /** The first read, before the server starts: what it finds is what memory holds. */
  async load(): Promise<StateFileContents | undefined> {
    const { contents, identity, file } = readStateFile(this.path);
    this.identity = identity;
    this.revision = contents?.revision ?? 0;
    this.file = file;
    return contents;
  }

  /**
   * Under the lock: reload if another process saved since, run `act`, save if it changed the
   * state, then release (a request that changes nothing takes no lock: answerWithoutLock). The save is done before this resolves, so an answer sent after it
   * describes a state that is on disk. A save commits only on the revision memory was loaded
   * from and while the lock is still this process's; when it aborts, memory is dropped and `act`
   * runs again on what the file holds (its first answer is never sent). If a save fails, or
   * keeps aborting, the error is thrown: what `act` did is not kept.
   */
  transact<T>(act: () => T): Promise<T> {
    const run = this.attempts(act);
    this.running.add(run);
    const forget = (): void => {
      this.running.delete(run);
    };
    run.then(forget, forget);
    return run;
  }

  /** Waits for the transactions under way (their saves included). */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  private async attempts<T>(act: () => T): Promise<T> {
    const unlocked = this.answerWithoutLock(act);
    if (unlocked) return unlocked.result;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.locked(act);
      } catch (error) {
        if (!(error instanceof StateFileConflictError)) throw error;
        // Retryable with the same Idempotency-Key: nothing was committed.
        if (attempt >= ATTEMPTS) throw new StateFileBusyError(this.path, error);
      }
    }
  }

  /**
   * A request that changes nothing (a quote, a list) is answered without the lock when memory is
   * the file's current version and no locked run of this process is under way: it writes nothing,
   * and it reads what a locked read would have read at that moment. One that changed something (a write, a change landing at its due time) is
   * dropped here and run again under the lock, on the file as it is then.
   */
  private answerWithoutLock<T>(act: () => T): { result: T } | undefined {
    if (this.lockedRuns > 0 || this.identity === undefined || currentIdentity(this.path) !== this.identity)
      return undefined;
    let result: T;
    try {
      result = act();
    } catch (error) {
      this.reload();
      throw error;
    }
    if (!this.hooks.changed()) return { result };
    // What `act` did is not on disk: memory goes back to the file, and the locked run acts anew.
    this.reload();
    return undefined;
  }

  /** Memory becomes what the file holds now. */
  private reload(): void {
    const read = readStateFile(this.path);
    this.hooks.adopt(read.contents);
    this.identity = read.identity;
    this.revision = read.contents?.revision ?? 0;
    // The state it replaced is dropped: its file need not wait for a garbage collection.
    this.file?.close();
    this.file = read.file;
  }

  private async locked<T>(act: () => T): Promise<T> {
    this.lockedRuns += 1;
    try {
      return await this.lockedRun(act);
    } finally {
      this.lockedRuns -= 1;
    }
  }

  private async lockedRun<T>(act: () => T): Promise<T> {
    let hold: StateFileLockHold;
    try {
      hold = await this.lock(this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ELOCKED') throw new StateFileBusyError(this.path, error);
      throw error;
    }
    try {
      if (currentIdentity(this.path) !== this.identity) this.reload();
      const result = act();
      if (this.hooks.changed()) {
        try {
          await this.commit(hold);
          this.hooks.saved();
        } catch (error) {
          // Memory holds what `act` did, which is not on disk: the next request reloads.
          this.identity = undefined;
          throw error;
        }
      }
      return result;
    } finally {
      await hold.release();
    }
  }

  /** Writes memory as the next revision, and commits it only on the one it was loaded from. */
  private async commit(hold: StateFileLockHold): Promise<void> {
    const next = this.revision + 1;
    const bytes = Buffer.concat(stateFileBytes({ ...this.hooks.snapshot(), revision: next }));
    await replaceFile(this.path, bytes, async (temporary) => {
      await this.hooks.beforeCommit?.();
      // Compare and swap, with no await from here to the rename: a process stopped before this
      // point and whose lock was taken over finds out here, whenever it resumes.
      if (!hold.held())
        throw new StateFileConflictError(
          this.path,
          "its lock was taken over (the process was stopped or starved past the lock's stale time)",
        );
      if (currentIdentity(this.path) !== this.identity)
        throw new StateFileConflictError(this.path, `the file is no longer revision ${this.revision}`);
      renameSync(temporary, this.path);
    });
    this.revision = next;
    this.identity = currentIdentity(this.path);
  }
}
