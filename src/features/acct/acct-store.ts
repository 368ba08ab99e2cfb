// The accounts' own records (designations, events, imported rates, corrections), one store per account, kept as
// the journal is kept: its folder judged, never through a link, written under a hold judged by its holder's liveness,
// append-only (a record a line, appended), each record carrying the hash of the one before it and the chain's head
// kept in a file of its own with the digest of the records it counts, so that an edit, a re-sealed chain or records
// removed from the end are found on the next read. With the team store the records live there, beside the journal,
// under the journal's own lock, each append one transaction with its head.
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
} from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod/mini';
import { AuthError, HeldError, StateError, UsageError } from '../../core/errors.js';
import { newSession } from '../../core/files/file-lock.js';
import {
  describeReadError,
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
function readStoreFile(store: Store, path: string) {
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
    return readRegularFileSync(path, { maxBytes: MAX_BYTES, guard: 'trusted', noFollow: true });
  } catch (error) {
    throw new UsageError(`Cannot read the accounting records ${path}: ${describeReadError(error)}.`);
  }
}

const changed = (path: string, what: string) =>
  new UsageError(
    `The accounting records ${path} were changed outside hedge: ${what}. Restore them from a backup; hedge never edits a record.`,
  );

/** An older hedge's store file (and the team store's records as read): one document, a record a line. */
const recordsText = (lines: string[]) => `{"records":[\n${lines.join(',\n')}\n]}\n`;
const LEGACY = '{"records":';
const digestOf = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The records, checked, and (a file of a record a line) the bytes that hold them: where the next record goes. */
async function readStore(store: Store): Promise<{ records: AcctRecord[]; bytes?: number; file?: Buffer }> {
  if (store.team) {
    const read = await store.team.acctRecords.read(store.name, MAX_BYTES);
    if (read.bytes > MAX_BYTES)
      throw new UsageError(
        `Cannot read the accounting records ${store.shown}: they hold more than ${sizeInWords(MAX_BYTES)}.`,
      );
    // Written with their head in one transaction and read in one snapshot: records past the head were added outside.
    const text = read.lines === undefined ? undefined : recordsText([read.lines]);
    const records = text === undefined ? undefined : wholeFile(store, text);
    return { records: checkRecords(store, readHead(store, read.head), records, true) };
  }
  // The head before the records: a writer writes them the other way round, so a read between its two writes sees
  // records past the head, never fewer.
  const head = readHead(store, readStoreFile(store, store.head)?.toString('utf8'));
  const file = readStoreFile(store, store.file);
  if (file === undefined || file.subarray(0, LEGACY.length).toString() === LEGACY)
    return { records: checkRecords(store, head, file && wholeFile(store, file.toString('utf8')), false) };
  // A record a line; what follows the last newline is a write cut short, which holds no record.
  const bytes = file.lastIndexOf(0x0a) + 1;
  // Read as written (the head's digest): taken as checked then, each record's chain linked but not hashed again.
  const asWritten =
    head?.bytes !== undefined && head.bytes <= bytes && digestOf(file.subarray(0, head.bytes)) === head.digest
      ? head.count
      : 0;
  const records: AcctRecord[] = [];
  for (let start = 0, end; start < bytes; start = end + 1) {
    end = file.indexOf(0x0a, start);
    // Each line decoded alone: no copy of the whole file as text.
    const line = file.toString('utf8', start, end);
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
  return { records: checkRecords(store, head, records, false, asWritten), bytes, file };
}

/** An older hedge's file, or the team store's records, as records (one document). */
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

/** Every record of the environment's store, its chain checked against its head; none when nothing was recorded yet. */
export async function readRecords(ctx: StorePorts) {
  return (await readStore(await storeOf(ctx))).records;
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

/** Appends records while this process holds the store, each made by `by` (--by; see `author`); `bodies` may be made
 * from every record there, and a refusal (a throw) writes nothing, as does an empty list. `beforeWrite` is given the
 * sealed records before they are written, to write what must exist first (a memo): when it throws, nothing is
 * recorded. */
export async function appendRecords(
  ctx: StorePorts & Pick<CommandContext, 'clock'>,
  kind: RecordKind,
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
    const { records, bytes, file } = await readStore(store);
    const count = records.length;
    const bodies = await make(records, by);
    if (!bodies.length) return [];
    const recordedAt = new Date(ctx.clock.now()).toISOString();
    for (const body of bodies) {
      const unsealed = {
        seq: records.length + 1,
        kind,
        recorded_at: recordedAt,
        by,
        body,
        prev: records.at(-1)?.hash ?? '',
      };
      records.push({ ...unsealed, hash: hashOf(unsealed) });
    }
    const added = records.slice(-bodies.length);
    // A record a line, appended after those read; an older hedge's file (or none yet) written whole, and the team
    // store's records all counted: what a read accepts bounds what may be written.
    const lines = records.slice(bytes === undefined ? 0 : count).map((record) => JSON.stringify(record));
    const appended = `${lines.join('\n')}\n`;
    const total = (bytes ?? 0) + Buffer.byteLength(appended);
    if (total > MAX_BYTES)
      throw new UsageError(
        `Recording this would make the accounting records ${store.shown} ${sizeInWords(total)}, past the ${sizeInWords(MAX_BYTES)} they may hold; nothing was recorded.`,
      );
    beforeWrite?.(added);
    if (store.team) {
      await store.team.acctRecords.append(store.name, count, lines.slice(count), records.at(-1)!.hash);
      return added;
    }
    try {
      // The first records follow an empty head, so that no read ever finds records without one.
      if (records.length === bodies.length) writeHead(store, { count: 0, hash: '' });
      if (bytes === undefined) writeFileDurably(store.file, appended);
      else appendDurably(store.file, bytes, appended);
    } catch (error) {
      throw new JournalError(
        `Cannot write the accounting records ${store.file}: ${describeReadError(error)}; nothing was recorded.`,
        { path: store.file, hint: 'Free the disk (or make the folder writable by this user), then run it again.' },
      );
    }
    // Past this point the records are made: a head left behind is one a later append writes again.
    try {
      const digest = createHash('sha256')
        .update(bytes === undefined || !file ? '' : file.subarray(0, bytes))
        .update(appended)
        .digest('hex');
      writeHead(store, { count: records.length, hash: records.at(-1)!.hash, bytes: total, digest });
    } catch {
      // The records read past an older head (a crash between the two writes reads the same).
    }
    return added;
  } finally {
    await taken.hold.release();
  }
}

/** Appends `text` to the store file after its first `bytes` (what follows them, a write cut short, is dropped), synced. */
function appendDurably(path: string, bytes: number, text: string) {
  const fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW);
  try {
    if (fstatSync(fd).size > bytes) ftruncateSync(fd, bytes);
    writeAllSync(fd, Buffer.from(text));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

const writeHead = (store: Store, head: z.infer<typeof HEAD>) =>
  writeFileDurably(store.head, `${JSON.stringify(head)}\n`);
