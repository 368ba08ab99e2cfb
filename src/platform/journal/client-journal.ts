// The journal's semantics, written once over a backend's two small clients (RecordsClient, LockerClient below).
import { canonicalJson } from '../../core/files/canonical-json.js';
import { randomInt } from 'node:crypto';
import {
  JournalError,
  changeOf,
  isUnresolved,
  sideOf,
  OUTCOMES,
  type BeginFields,
  type Change,
  type JournalEntry,
  type JournalPatch,
} from './entry.js';
import { HOLDER, type Holder } from '../../core/files/file-lock.js';
import { refuseKeyShaped } from './row-integrity.js';
import { safeDeep } from '../../core/security/safe-text.js';
import { idMatches } from '../../core/input.js';
import { utcIso, utcSecond } from '../../core/utc-text.js';
import { scrubSecrets } from '../../core/security/secrets.js';

const MAX_CANDIDATES_NAMED = 10;
/** Ids are random past their time part: a taken one is drawn again, a few times at most. */
const ID_TRIES = 5;
const ID_RANDOM_CHARS = 4;

/** Signs a new row as it is stored: its `seal`. */
export type RowSeal = (entry: JournalEntry) => string;

export type ListOptions = Pick<
  RowFilter,
  'pending' | 'idempotencyKey' | 'since' | 'until' | 'limit' | 'request' | 'side' | 'group' | 'hedge'
>;

/** The "same request" rule: what must agree for an earlier unresolved entry to be resumed. */
type SameRequest = Pick<JournalEntry, 'environment' | 'base_url_host' | 'key_id' | 'command' | 'group' | 'leg'> & {
  /** The normalised request body; compared as canonicalJson. (group and leg: compared only when given.) */
  body: unknown;
};

/** A hold on an entry or a lock on an account scope, taken by this process (holdOf). */
export type HoldResult = { held: true; hold: ReturnType<typeof holdOf> } | { held: false; holder: Holder };

/** Which rows a read wants; a client applies every field but `request`, which only narrows. */
export interface RowFilter {
  id?: string;
  idPrefix?: string;
  idSuffix?: string;
  /** Only rows still unresolved (planned, pending, submitted, unknown: entry.ts's UNRESOLVED_OUTCOMES, the one list). */
  pending?: boolean;
  idempotencyKey?: string;
  /** Only rows created at or after / before these times (ms since the epoch; the row's own created_at). */
  since?: number;
  until?: number;
  limit?: number;
  /** Only rows of this request's identity and body (the "same request" rule less a roll's group and leg, which callers
   * check themselves). */
  request?: SameRequest;
  /** Only rows that change this side (`MARKET side`, as sideOf names it). */
  side?: string;
  /** Only the legs of this group. */
  group?: string;
  /** Only rows that acted on this hedge (its `hedge_id`) or rolled it (`context.rolled_hedge_id`). */
  hedge?: string;
}

/** Whether an entry is a row `filter` picks (what the team store's query asks of its rows). */
export function rowTest(filter: RowFilter) {
  const {
    id,
    idPrefix = '',
    idSuffix = '',
    pending,
    idempotencyKey,
    since,
    until,
    request,
    side,
    group,
    hedge,
  } = filter;
  const body = request && canonicalJson(request.body);
  return (entry: JournalEntry) =>
    (id === undefined || entry.id === id) &&
    entry.id.startsWith(idPrefix) &&
    entry.id.endsWith(idSuffix) &&
    (idempotencyKey === undefined || entry.idempotency_key === idempotencyKey) &&
    (!pending || isUnresolved(entry)) &&
    // The record's own created_at, at or after `since` and before `until`.
    (since === undefined || Date.parse(entry.created_at) >= since) &&
    (until === undefined || Date.parse(entry.created_at) < until) &&
    (group === undefined || entry.group === group) &&
    (hedge === undefined || entry.hedge_id === hedge || entry.context?.rolled_hedge_id === hedge) &&
    (side === undefined || sideOf(entry) === side) &&
    (request === undefined ||
      (entry.key_id === request.key_id &&
        entry.command === request.command &&
        entry.environment === request.environment &&
        entry.base_url_host === request.base_url_host &&
        canonicalJson(entry.request?.body) === body));
}

/** The rows of a journal: read, appended, changed — each atomically. */
interface RecordsClient {
  readonly location: string;
  append(entry: JournalEntry, seal?: RowSeal): Promise<JournalEntry | undefined>;
  /** Folds `patch` into the row (later fields win, updated_at = at, revision + 1); undefined when there is no such row. */
  change(id: string, patch: JournalPatch, at: string): Promise<JournalEntry | undefined>;
  read(filter: RowFilter): Promise<JournalEntry[]>;
  /** The rows `filter` picks, newest first, read a part at a time (a day of archive, a page of the store). */
  each(filter: RowFilter): AsyncIterable<JournalEntry>;
}

/** What a hold is on: an entry being carried out, or a per-account lock's scope. */
export type HoldScope = { entry: string } | { lock: string };

/** Holds on a scope, each dying with its process. */
export interface LockerClient {
  /** This process as the holder of a hold taken at `time` (a new row carries it). */
  holderAt(time: number): Holder;
  /** Takes the scope's hold, waiting up to waitMs; or names its live holder. (The journal asks for an entry's only while it is unresolved, and looks again after.) */
  take(scope: HoldScope, waitMs: number): Promise<HoldResult>;
  holderOf(scope: HoldScope): Promise<Holder | undefined>;
  /** Lets go of every hold this process has on the scope: an entry's, once its outcome is final (absent where the outcome itself ends it). */
  letGo?(scope: HoldScope): Promise<void>;
  /** Ends the backend's sessions (the team store's, which its rows are read on too), and every hold with them. */
  close?(): Promise<void>;
}

/** The journal over a backend's records and locker; `location`, for messages: the file path, or the store URL with any
 * password redacted. */
export function clientJournal(
  records: RecordsClient,
  locker: LockerClient,
  options: { now?: () => number; log?: (line: string) => void },
) {
  const { location } = records;
  const now = options.now ?? Date.now;
  const entry = async (id: string) => (await records.read({ id }))[0];
  return {
    location,

    /** Records a new action (outcome pending, or planned when asked), held by this process. */
    async begin(fields: BeginFields, seal?: RowSeal) {
      checkBeginFields(fields);
      refuseKeyShaped(
        fields,
        'journal an event',
        'This is a bug: the journal stores keyFingerprint(key), never the key.',
      );
      for (let attempt = 0; attempt < ID_TRIES; attempt++) {
        const time = now();
        const at = utcIso(time);
        const holder = locker.holderAt(time);
        const stamp = { id: newEntryId(time), created_at: at, updated_at: at };
        // Stamped again after the fields, so that nothing in them can replace the id or times.
        const entry = plainJson(
          Object.assign({ ...stamp }, fields, stamp, {
            outcome: fields.outcome === 'planned' ? 'planned' : 'pending',
            host: holder.host,
            holder,
          }),
        ) as JournalEntry;
        const recorded = await records.append(entry, seal);
        if (recorded) {
          options.log?.(
            `journal: ${recorded.id} recorded in ${location} (held by pid ${holder.pid} on ${holder.host})`,
          );
          return recorded;
        }
      }
      throw new JournalError(`Could not find a free journal id in ${ID_TRIES} tries; nothing was recorded.`);
    },

    /** Records what became of an action (its revision goes up by one); a final outcome ends this process's hold. Returns the entry with every change folded in. */
    async update(id: string, patch: JournalPatch) {
      const { outcome } = patch;
      if (outcome !== undefined && !OUTCOMES.includes(outcome))
        throw new JournalError(`"${outcome}" is not a journal outcome.`);
      const at = utcIso(now());
      const final = outcome !== undefined && !isUnresolved({ outcome });
      // What an answer told (a server's message echoing the key) is kept with every secret redacted.
      const change = plainJson(
        safeDeep({ ...patch, ...(final && patch.resolved_at === undefined && { resolved_at: at }) }, scrubSecrets),
      ) as JournalPatch;
      const entry = await records.change(id, change, at);
      if (!entry) throw new JournalError(`No journal entry ${id} to update.`);
      // A final outcome ends the entry's hold.
      if (final) await locker.letGo?.({ entry: id });
      return entry;
    },

    /** Newest first: by `seq`, the order the journal took them in (never by a machine's clock). */
    async list({ limit, ...filter }: ListOptions = {}) {
      // A negative limit lists nothing.
      return records.read({ ...filter, limit: limit && Math.max(0, limit) });
    },

    /** As list, but read a part at a time, for a reader that keeps only what it needs of the whole of history. */
    each({ limit: _, ...filter }: ListOptions = {}) {
      return records.each(filter);
    },

    /** By full id, or a unique part of one (its start, its end, or both around `…`); an ambiguous part throws, naming the candidates. */
    async get(typed: string) {
      const wanted = typed.trim().toLowerCase();
      if (wanted === '') return;
      const exact = await entry(wanted);
      if (exact) return exact;
      // A part of an id: its start or its end, or both around `…` as a table shortens it.
      const [start, end] = wanted.split(/…|\.\.\./);
      const reads =
        end === undefined ? [{ idPrefix: wanted }, { idSuffix: wanted }] : [{ idPrefix: start, idSuffix: end }];
      const found = new Map<string, JournalEntry>();
      for (const filter of reads)
        for (const entry of await records.read(filter)) if (idMatches(wanted, entry.id)) found.set(entry.id, entry);
      const candidates = [...found.values()];
      if (candidates.length <= 1) return candidates[0];
      const named = candidates.slice(0, MAX_CANDIDATES_NAMED).map((entry) => entry.id);
      const more = candidates.length > named.length ? ` and ${candidates.length - named.length} more` : '';
      throw new JournalError(`"${typed}" matches ${candidates.length} journal entries: ${named.join(', ')}${more}.`, {
        hint: 'Type more of the id.',
      });
    },

    async findUnresolvedMatch(match: SameRequest) {
      return (await records.read({ pending: true, request: match })).find(
        (entry) =>
          isUnresolved(entry) &&
          // A planned leg is sent by its own multi-leg action (or `hedge resume`), never by a lone command.
          (entry.outcome !== 'planned' || match.group !== undefined) &&
          matchesRequest(entry, match),
      );
    },

    /** The unresolved rows of this account (its environment and key, through any host name of its base URL) that make
     * `change` (the same kind on the same market's side), whichever command wrote them; a planned leg never left. */
    async findUnresolvedChanges(account: Pick<JournalEntry, 'environment' | 'key_id'>, change: Change) {
      return (await records.read({ pending: true })).filter((entry) => {
        if (!isUnresolved(entry) || entry.outcome === 'planned') return false;
        if (entry.environment !== account.environment || entry.key_id !== account.key_id) return false;
        const made = changeOf(entry);
        return made?.kind === change.kind && made.market === change.market && made.side === change.side;
      });
    },

    /** Takes hold of an existing unresolved entry (to resume it); an entry finished already, or meanwhile, is not taken: its last holder is named. */
    async hold(id: string): Promise<HoldResult> {
      const before = await entry(id);
      if (!before) throw new JournalError(`No journal entry ${id} to hold in ${location}.`);
      if (!isUnresolved(before)) return { held: false, holder: lastHolderOf(before) };
      const taken = await locker.take({ entry: id }, 0);
      if (!taken.held) return taken;
      const after = await entry(id);
      if (after && !isUnresolved(after)) {
        await taken.hold.release();
        return { held: false, holder: lastHolderOf(after) };
      }
      return taken;
    },

    holderOf(id: string) {
      return locker.holderOf({ entry: id });
    },

    /** A per-account lock. */
    lock(scope: string, options: { waitMs: number }) {
      return locker.take({ lock: scope }, Math.max(0, options.waitMs));
    },

    lockHolder(scope: string) {
      return locker.holderOf({ lock: scope });
    },

    async close() {
      await locker.close?.();
    },
  };
}

/** The journal as its callers use it. */
export type Journal = ReturnType<typeof clientJournal>;

/** "pid 4242 on desk-3 since 10:42:03 UTC" */
export function describeHolder(holder: Holder) {
  const since =
    typeof holder.since === 'string' && holder.since.length >= 19
      ? `${utcSecond(holder.since)} UTC`
      : String(holder.since);
  return `pid ${holder.pid} on ${holder.host} since ${since}`;
}

/** Who last held an entry, as its record names them (for a finished one: who finished it); or nobody known. */
export function lastHolderOf(entry: { holder?: Holder | null; updated_at: string }) {
  const recorded = HOLDER.safeParse(entry.holder);
  return recorded.success ? recorded.data : { pid: 0, host: 'unknown', since: entry.updated_at, session: '' };
}

/** A hold that is lost once `stillHeld` says so, unless released first. */
export function holdOf(release: () => Promise<unknown>, stillHeld: () => boolean) {
  let released = false;
  return {
    release: async () => {
      if (released) return;
      released = true;
      await release();
    },
    lost: () => !released && !stillHeld(),
  };
}

/** The entry was made for this request: same environment, host, key, command and normalised body. */
export function matchesRequest(entry: JournalEntry, match: SameRequest) {
  return (
    entry.environment === match.environment &&
    entry.base_url_host === match.base_url_host &&
    entry.key_id === match.key_id &&
    entry.command === match.command &&
    (match.group === undefined || entry.group === match.group) &&
    (match.leg === undefined || entry.leg === match.leg) &&
    canonicalJson(entry.request.body) === canonicalJson(match.body)
  );
}

/** The fields a reader relies on; TypeScript checks callers, this catches what slips past it. */
function checkBeginFields(fields: BeginFields) {
  const problems: string[] = [];
  if (fields.environment !== 'live' && fields.environment !== 'test') problems.push('environment must be live or test');
  for (const name of ['base_url_host', 'key_id', 'command', 'idempotency_key'] as const)
    if (typeof fields[name] !== 'string' || fields[name] === '') problems.push(`${name} is required`);
  if (typeof fields.request?.method !== 'string' || typeof fields.request?.path !== 'string')
    problems.push('request needs method and path');
  if (problems.length) throw new JournalError(`Cannot journal this action: ${problems.join('; ')}.`);
}

/** `a_` + the creation time in base 36 + 4 random base-36 characters. */
function newEntryId(nowMs: number) {
  const random = randomInt(36 ** ID_RANDOM_CHARS)
    .toString(36)
    .padStart(ID_RANDOM_CHARS, '0');
  return `a_${Math.max(0, Math.floor(nowMs)).toString(36)}${random}`;
}

/** The value as JSON keeps it (undefined fields dropped): what every backend stores. */
export function plainJson(value: unknown) {
  return JSON.parse(JSON.stringify(value));
}
