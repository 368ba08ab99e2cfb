// The journal on PostgreSQL: one store shared by every machine of a desk, with the local file's
// guarantees team-wide (docs/team-store.md).
//
// - begin commits the entry before it returns (one statement, synchronous_commit on), so the write
//   flow sends only what is recorded.
// - Holds and locks are session-level advisory locks taken on a connection of their own: they die
//   with the session, so with the process (kill -9 included: the socket closes). A row in
//   hedge.holders names the holder (pid, host, session, since) for a message on any machine; a
//   holder is live only while its advisory lock is granted (pg_locks), so a row left by a killed
//   process names nobody.
// - When the store fails after a request was sent, the update goes to the local file journal as a
//   fallback record (`fallback_for`), and the error says so; `hedge journal migrate` merges it.
//
// Loaded only when a store is configured (store.ts imports it lazily): the client costs nothing
// to anyone using the local file. It implements the interface of backend.ts and imports nothing
// of store.ts (no circle).
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import pg from 'pg';
import { canonicalJson } from './canonical-json.js';
import { newEntryId } from './entry-id.js';
import { isOutcome, isUnresolved, type BeginFields, type Holder, type JournalEntry, type JournalPatch } from './entry.js';
import { JournalError } from './journal-error.js';
import { checkBeginFields, matchesRequest, openJournal, refuseKeys } from './journal.js';
import { LATEST_VERSION, migrateSchema, SchemaTooNewError, SCHEMA } from './postgres-schema.js';
import { JournalStoreError } from './store-error.js';
import { refuseKeyInHeartbeat } from './heartbeat-file.js';
import type { Hold, HoldResult, ImportOutcome, KeeperHeartbeats, ListOptions, LocalJournal, SameRequest, TeamJournal, TeamJournalOptions } from './backend.js';

const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
const DEFAULT_QUERY_TIMEOUT_MS = 15_000;
const CLOSE_BOUND_MS = 2_000;
const FINAL_OUTCOMES = new Set(['filled', 'done', 'failed', 'rejected', 'abandoned']);
const UNRESOLVED_SQL = `('planned', 'pending', 'submitted', 'unknown')`;
const MAX_CANDIDATES_NAMED = 10;
/** Tries to either take a busy lock or read who has it (the holder's row lands just after its lock). */
const HOLDER_ATTEMPTS = 20;
const HOLDER_RETRY_MS = 25;
/** The fields of an entry that record what became of it (what a fallback record or a migration carries over). */
const OUTCOME_FIELDS = ['outcome', 'hedge_id', 'order_tx_hash', 'error_code', 'message', 'resolved_at', 'account', 'traded_usd', 'side_after'] as const;

/** One id per process: a holder's pid alone is reused, and names nothing on another machine. */
const PROCESS_SESSION = randomBytes(8).toString('hex');

/** Scopes of holds: an entry being acted on, or a per-account lock. */
const entryScope = (id: string) => `entry:${id}`;
const lockScope = (scope: string) => `lock:${scope}`;
/** The text whose 64-bit hash (hashtextextended) is the advisory lock key of a scope. */
const advisoryText = (scope: string) => `hedge:${scope}`;

/** pg_locks shows a bigint advisory key as classid (high 32 bits) and objid (low 32 bits). */
const HOLDER_SQL = `
SELECT h.pid, h.host, h.session, h.since
FROM ${SCHEMA}.holders h
JOIN pg_locks l
  ON l.locktype = 'advisory' AND l.granted AND l.pid = h.backend_pid AND l.objsubid = 1
 AND l.classid::bigint = ((hashtextextended($2, 0) >> 32) & 4294967295)
 AND l.objid::bigint = (hashtextextended($2, 0) & 4294967295)
WHERE h.scope = $1`;

/** The entry and its seq (from the store's sequence) and revision 1, in the row and in its JSON alike. */
const BEGIN_SQL = `
WITH numbered AS (
  SELECT nextval('${SCHEMA}.entries_seq') AS seq
), inserted AS (
  INSERT INTO ${SCHEMA}.entries
    (id, created_at, updated_at, outcome, environment, base_url_host, key_id, command, idempotency_key, group_id, leg, body_canonical, host, profile, entry, seq, revision)
  SELECT $1, $2, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::jsonb || jsonb_build_object('seq', numbered.seq, 'revision', 1), numbered.seq, 1
  FROM numbered
  ON CONFLICT (id) DO NOTHING
  RETURNING id, seq
), held AS (
  INSERT INTO ${SCHEMA}.holders (scope, pid, host, session, since, backend_pid)
  SELECT $15, $16, $12, $17, $2, $18 FROM inserted
  ON CONFLICT (scope) DO UPDATE SET pid = EXCLUDED.pid, host = EXCLUDED.host, session = EXCLUDED.session, since = EXCLUDED.since, backend_pid = EXCLUDED.backend_pid
  RETURNING scope
)
SELECT (SELECT count(*) FROM inserted)::int AS inserted, (SELECT seq FROM inserted)::text AS seq, (SELECT count(*) FROM held)::int AS held`;

const UPSERT_HOLDER_SQL = `
INSERT INTO ${SCHEMA}.holders (scope, pid, host, session, since, backend_pid) VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (scope) DO UPDATE SET pid = EXCLUDED.pid, host = EXCLUDED.host, session = EXCLUDED.session, since = EXCLUDED.since, backend_pid = EXCLUDED.backend_pid`;

/** A local entry moved in: its place in this journal is the next seq; its revision is the local one. */
const INSERT_MIGRATED_SQL = `
WITH numbered AS (
  SELECT nextval('${SCHEMA}.entries_seq') AS seq
)
INSERT INTO ${SCHEMA}.entries
  (id, created_at, updated_at, outcome, environment, base_url_host, key_id, command, idempotency_key, group_id, leg, body_canonical, host, profile, origin, entry, seq, revision)
SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, 'migrated', $15::jsonb || jsonb_build_object('seq', numbered.seq, 'revision', $16::bigint), numbered.seq, $16
FROM numbered
ON CONFLICT (id) DO NOTHING`;

/** A heartbeat written whole; its revision counted by the store; its time the store's own. */
const WRITE_HEARTBEAT_SQL = `
INSERT INTO ${SCHEMA}.keeper_heartbeats AS h (scope, body, revision, written_at) VALUES ($1, $2::jsonb, 1, clock_timestamp())
ON CONFLICT (scope) DO UPDATE SET body = EXCLUDED.body, revision = h.revision + 1, written_at = EXCLUDED.written_at
RETURNING revision::text AS revision`;

const READ_HEARTBEAT_SQL = `
SELECT body, revision::text AS revision, greatest(0, extract(epoch FROM clock_timestamp() - written_at) * 1000)::float8 AS age_ms
FROM ${SCHEMA}.keeper_heartbeats WHERE scope = $1`;

/** A heartbeat is written every cycle: a store slower than this is a failed write (an `error` event), never a stuck keeper. */
const HEARTBEAT_QUERY_TIMEOUT_MS = 5_000;

interface LockConnection {
  client: pg.Client;
  /** pg_backend_pid() of this session: what pg_locks names the holder by. */
  backendPid: number;
}

/** The query options pg takes beyond its typings: a bound for this one statement. */
type TimedQuery = pg.QueryConfig & { query_timeout?: number };

export class PostgresJournal implements TeamJournal {
  readonly kind = 'postgres' as const;
  readonly location: string;
  /** The local journal's folder (fallback records go there). Named as the file journal names its own. */
  readonly dir: string;
  /** The store as shown in messages (the file journal's name for its path). */
  readonly file: string;
  private readonly options: TeamJournalOptions;
  private readonly now: () => number;
  private readonly connectTimeoutMs: number;
  private readonly queryTimeoutMs: number;
  private readonly host = hostname();
  private dataConnection?: Promise<pg.Client>;
  private lockConnection?: Promise<LockConnection>;
  /** Counts lock sessions: a hold taken on an earlier one than the current is lost. */
  private lockGeneration = 0;
  /** Entries this process has read or written: what a fallback record starts from. */
  private readonly known = new Map<string, JournalEntry>();
  /** Scopes this process holds, and how many times (advisory locks are counted per session). */
  private readonly holds = new Map<string, number>();
  /** Team entry id → the id of its local fallback record. */
  private readonly fallbacks = new Map<string, string>();
  private localJournal?: LocalJournal;
  /** Set once the store failed on an update: later updates of this run go to the fallback at once. */
  private failure?: unknown;
  private closed = false;

  constructor(options: TeamJournalOptions) {
    this.options = options;
    this.location = options.shown;
    this.file = options.shown;
    this.dir = options.fallbackDir;
    this.now = options.now ?? Date.now;
    this.connectTimeoutMs = options.connectTimeoutMs ?? connectTimeoutOf(options.url) ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.queryTimeoutMs = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  }

  // ---- the journal interface -------------------------------------------------------------------

  async begin(fields: BeginFields): Promise<JournalEntry> {
    checkBeginFields(fields);
    refuseKeys(fields);
    const [data, locks] = await Promise.all([this.data(), this.locks()]);
    // An id is taken only once its hold is: no other process can see the entry unheld.
    for (let attempt = 0; attempt < 5; attempt++) {
      const time = this.now();
      const at = new Date(time).toISOString();
      const id = newEntryId(time);
      const scope = entryScope(id);
      if (!(await this.tryAdvisory(scope))) continue;
      const holder: Holder = { pid: process.pid, host: this.host, since: at, session: PROCESS_SESSION };
      const stamp = { id, created_at: at, updated_at: at };
      // Stamped again after the fields, so that nothing in them can replace the id or times.
      const entry = plainJson(
        Object.assign({ ...stamp }, fields, stamp, { outcome: fields.outcome === 'planned' ? 'planned' : 'pending', host: this.host, holder }),
      ) as JournalEntry;
      let inserted: number;
      try {
        const result = await this.run<{ inserted: number; seq: string | null }>(data, {
          text: BEGIN_SQL,
          values: [
            id,
            at,
            entry.outcome,
            entry.environment,
            entry.base_url_host,
            entry.key_id,
            entry.command,
            entry.idempotency_key,
            entry.group ?? null,
            entry.leg ?? null,
            canonicalJson(entry.request.body),
            this.host,
            entry.profile ?? null,
            JSON.stringify(entry),
            scope,
            process.pid,
            PROCESS_SESSION,
            locks.backendPid,
          ],
        });
        inserted = result.rows[0]?.inserted ?? 0;
        if (inserted > 0) Object.assign(entry, { seq: Number(result.rows[0]!.seq), revision: 1 });
      } catch (error) {
        await this.unlockAdvisory(scope).catch(() => undefined);
        throw this.storeError(error, 'recording the action');
      }
      if (inserted === 0) {
        await this.unlockAdvisory(scope);
        continue;
      }
      this.holds.set(scope, 1);
      this.known.set(id, entry);
      this.options.log?.(`journal: ${id} recorded in the team store (held by pid ${process.pid} on ${this.host})`);
      return entry;
    }
    throw new JournalError('Could not find a free journal id in 5 tries; nothing was recorded.');
  }

  async update(id: string, patch: JournalPatch): Promise<JournalEntry> {
    if (patch.outcome !== undefined && !isOutcome(patch.outcome)) throw new JournalError(`"${String(patch.outcome)}" is not a journal outcome.`);
    refuseKeys(patch);
    const at = new Date(this.now()).toISOString();
    const final = patch.outcome !== undefined && FINAL_OUTCOMES.has(patch.outcome);
    const change = plainJson({ ...patch, ...(final && patch.resolved_at === undefined ? { resolved_at: at } : {}), updated_at: at }) as Record<string, unknown>;
    let entry: JournalEntry;
    if (this.failure !== undefined) return this.recordFallback(id, change, this.failure);
    try {
      const data = await this.data();
      const result = await this.run<{ entry: JournalEntry }>(data, {
        text: `UPDATE ${SCHEMA}.entries
               SET entry = entry || $2::jsonb || jsonb_build_object('revision', revision + 1), revision = revision + 1, outcome = coalesce($3, outcome), updated_at = $4
               WHERE id = $1 RETURNING entry`,
        values: [id, JSON.stringify(change), patch.outcome ?? null, at],
      });
      if (result.rowCount === 0) throw new JournalError(`No journal entry ${id} to update in ${this.location}.`);
      entry = result.rows[0]!.entry;
    } catch (error) {
      if (error instanceof JournalError && !(error instanceof JournalStoreError)) throw error;
      this.failure = error;
      return this.recordFallback(id, change, error);
    }
    this.known.set(id, entry);
    if (final) await this.releaseAll(entryScope(id));
    return entry;
  }

  async list(options: ListOptions = {}): Promise<JournalEntry[]> {
    const { pending, since, until, limit } = options;
    const data = await this.data();
    const result = await this.run<{ entry: JournalEntry }>(data, {
      text: `SELECT entry FROM ${SCHEMA}.entries
             WHERE ($1::boolean IS NOT TRUE OR outcome IN ${UNRESOLVED_SQL})
               AND ($2::timestamptz IS NULL OR created_at >= $2)
               AND ($3::timestamptz IS NULL OR created_at < $3)
             ORDER BY seq DESC
             LIMIT $4`,
      values: [pending === true, isoOrNull(since), isoOrNull(until), limit === undefined ? null : Math.max(0, limit)],
    }).catch((error) => {
      throw this.storeError(error, 'reading the journal');
    });
    return this.remember(result.rows.map((row) => row.entry));
  }

  async get(idOrPrefix: string): Promise<JournalEntry | undefined> {
    const wanted = idOrPrefix.trim().toLowerCase();
    if (wanted === '') return undefined;
    const data = await this.data();
    const result = await this.run<{ entry: JournalEntry; total: number }>(data, {
      text: `SELECT entry, (count(*) OVER ())::int AS total FROM ${SCHEMA}.entries
             WHERE left(id, length($1)) = $1
             ORDER BY (id = $1) DESC, seq DESC
             LIMIT $2`,
      values: [wanted, MAX_CANDIDATES_NAMED + 1],
    }).catch((error) => {
      throw this.storeError(error, 'reading the journal');
    });
    const [first] = this.remember(result.rows.map((row) => row.entry));
    if (!first) return undefined;
    const total = result.rows[0]!.total;
    if (first.id === wanted || total === 1) return first;
    const named = result.rows.slice(0, MAX_CANDIDATES_NAMED).map((row) => row.entry.id);
    const more = total > named.length ? ` and ${total - named.length} more` : '';
    throw new JournalError(`"${idOrPrefix}" matches ${total} journal entries: ${named.join(', ')}${more}.`, { hint: 'Type more of the id.' });
  }

  async findUnresolvedMatch(match: SameRequest): Promise<JournalEntry | undefined> {
    // Only a write asks this, and a write's begin needs the lock session too: it connects meanwhile.
    // (Its failure is reported by begin, which asks for it again.)
    this.locks().catch(() => undefined);
    const data = await this.data();
    const result = await this.run<{ entry: JournalEntry }>(data, {
      text: `SELECT entry FROM ${SCHEMA}.entries
             WHERE outcome IN ${UNRESOLVED_SQL}
               AND environment = $1 AND base_url_host = $2 AND key_id = $3 AND command = $4 AND body_canonical = $5
               AND ($6::text IS NULL OR group_id = $6)
               AND ($7::text IS NULL OR leg = $7)
               -- A planned leg is sent by its own multi-leg action (or hedge resume), never by a lone command.
               AND (outcome <> 'planned' OR $6::text IS NOT NULL)
             ORDER BY seq DESC`,
      values: [match.environment, match.base_url_host, match.key_id, match.command, canonicalJson(match.body), match.group ?? null, match.leg ?? null],
    }).catch((error) => {
      throw this.storeError(error, 'reading the journal');
    });
    // The columns are copies: the entry itself decides, by the one rule the file journal uses.
    return this.remember(result.rows.map((row) => row.entry)).find((entry) => isUnresolved(entry) && matchesRequest(entry, match));
  }

  /** As the interface says (and the file does): an entry finished already, or meanwhile, is not taken. */
  async hold(id: string): Promise<HoldResult> {
    const before = await this.readEntry(id);
    if (!before) throw new JournalError(`No journal entry ${id} to hold in ${this.location}.`);
    if (!isUnresolved(before)) return { held: false, holder: lastHolderOf(before) };
    const taken = await this.take(entryScope(id), 0);
    if (!taken.held) return taken;
    const after = await this.readEntry(id);
    if (after && !isUnresolved(after)) {
      await taken.hold.release();
      return { held: false, holder: lastHolderOf(after) };
    }
    return taken;
  }

  private async readEntry(id: string): Promise<JournalEntry | undefined> {
    const data = await this.data();
    const result = await this.run<{ entry: JournalEntry }>(data, { text: `SELECT entry FROM ${SCHEMA}.entries WHERE id = $1`, values: [id] }).catch((error) => {
      throw this.storeError(error, 'reading the journal');
    });
    return this.remember(result.rows.map((row) => row.entry))[0];
  }

  async holderOf(id: string): Promise<Holder | undefined> {
    return this.liveHolder(entryScope(id));
  }

  async lock(scope: string, options: { waitMs: number }): Promise<HoldResult> {
    return this.take(lockScope(scope), Math.max(0, options.waitMs));
  }

  /** Who holds the account lock: its row, live only while its advisory lock is granted. Takes nothing. */
  async lockHolder(scope: string): Promise<Holder | undefined> {
    return this.liveHolder(lockScope(scope));
  }

  readonly keeperHeartbeats: KeeperHeartbeats = {
    write: async (scope, body) => {
      refuseKeyInHeartbeat(body);
      const data = await this.data();
      const result = await this.run<{ revision: string }>(data, {
        text: WRITE_HEARTBEAT_SQL,
        values: [scope, JSON.stringify(body)],
        query_timeout: Math.min(this.queryTimeoutMs, HEARTBEAT_QUERY_TIMEOUT_MS),
      }).catch((error) => {
        throw this.storeError(error, "writing the keeper's heartbeat");
      });
      return { revision: Number(result.rows[0]!.revision) };
    },
    read: async (scope) => {
      const data = await this.data();
      const result = await this.run<{ body: unknown; revision: string; age_ms: number }>(data, { text: READ_HEARTBEAT_SQL, values: [scope] }).catch((error) => {
        throw this.storeError(error, "reading the keeper's heartbeat");
      });
      const row = result.rows[0];
      if (!row || typeof row.body !== 'object' || row.body === null) return undefined;
      return { body: row.body, revision: Number(row.revision), ageMs: Math.round(Number(row.age_ms)) };
    },
  };

  /**
   * Ends both sessions: every hold and lock of this process goes with them. Bounded: a store that
   * stopped answering has its sockets destroyed after CLOSE_BOUND_MS (the server ends the sessions
   * when it notices), so that the command still ends.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    const clients = await Promise.all([
      this.dataConnection?.catch(() => undefined),
      this.lockConnection?.then((connection) => connection.client).catch(() => undefined),
    ]);
    const holdsLeft = this.holds.size > 0;
    this.closed = true;
    const ending = (async () => {
      // Tidy: the rows would name nobody anyway once the session ends.
      if (holdsLeft) await clients[1]?.query(`DELETE FROM ${SCHEMA}.holders WHERE session = $1`, [PROCESS_SESSION]).catch(() => undefined);
      await Promise.allSettled(clients.map((client) => client?.end()));
    })();
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), CLOSE_BOUND_MS);
    });
    if ((await Promise.race([ending, bound])) === 'timeout') {
      for (const client of clients) (client as unknown as { connection?: { stream?: { destroy(): void } } } | undefined)?.connection?.stream?.destroy();
    }
    clearTimeout(timer);
  }

  // ---- the team store's own ----------------------------------------------------------------------

  async migrateSchema(): Promise<number[]> {
    const data = await this.connect('data', () => {});
    try {
      return await migrateSchema(data, `${this.host} pid ${process.pid}`);
    } catch (error) {
      throw this.storeError(error, 'creating or updating its schema');
    } finally {
      await data.end().catch(() => undefined);
    }
  }

  async importEntry(local: JournalEntry): Promise<{ outcome: ImportOutcome; id: string }> {
    const data = await this.data();
    const target = local.fallback_for?.id ?? local.id;
    try {
      await data.query('BEGIN');
      const found = await this.run<{ entry: JournalEntry }>(data, { text: `SELECT entry FROM ${SCHEMA}.entries WHERE id = $1 FOR UPDATE`, values: [target] });
      const existing = found.rows[0]?.entry;
      let outcome: ImportOutcome;
      if (!existing) {
        // Its place and revision are the store's (a local seq counts another journal).
        const { fallback_for: _fallback, seq: _seq, revision: _revision, ...fields } = local;
        const entry = plainJson({ ...fields, id: target, host: fields.host ?? this.host }) as JournalEntry;
        const inserted = await this.run(data, {
          text: INSERT_MIGRATED_SQL,
          values: [
            target,
            entry.created_at,
            entry.updated_at,
            entry.outcome,
            entry.environment,
            entry.base_url_host,
            entry.key_id,
            entry.command,
            entry.idempotency_key,
            entry.group ?? null,
            entry.leg ?? null,
            canonicalJson(entry.request?.body ?? null),
            entry.host ?? null,
            entry.profile ?? null,
            JSON.stringify(entry),
            importedRevision(local),
          ],
        });
        // Another migrate added it a moment ago: that one's row stands.
        outcome = inserted.rowCount === 1 ? 'added' : 'present';
      } else if (existing.idempotency_key !== local.idempotency_key) {
        outcome = 'conflict';
      } else if (knowsMore(local, existing)) {
        const change: Record<string, unknown> = { updated_at: local.updated_at };
        for (const field of OUTCOME_FIELDS) if (local[field] !== undefined) change[field] = local[field];
        await this.run(data, {
          text: `UPDATE ${SCHEMA}.entries
                 SET entry = entry || $2::jsonb || jsonb_build_object('revision', greatest(revision + 1, $5::bigint)), revision = greatest(revision + 1, $5::bigint), outcome = $3, updated_at = $4
                 WHERE id = $1`,
          values: [target, JSON.stringify(change), local.outcome, local.updated_at, importedRevision(local)],
        });
        outcome = 'merged';
      } else {
        outcome = 'present';
      }
      await data.query('COMMIT');
      return { outcome, id: target };
    } catch (error) {
      await data.query('ROLLBACK').catch(() => undefined);
      throw this.storeError(error, 'moving the local journal in');
    }
  }

  // ---- connections ------------------------------------------------------------------------------

  /** The connection for entries, with the schema made current on first use. */
  private data(): Promise<pg.Client> {
    this.dataConnection ??= (async () => {
      const started = Date.now();
      const client = await this.connect('data', () => {
        // Lost (the server restarted, the network dropped): the next statement connects anew.
        if (this.dataConnection === connection) this.dataConnection = undefined;
      });
      try {
        const applied = await migrateSchema(client, `${this.host} pid ${process.pid}`);
        if (applied.length > 0) this.options.log?.(`journal: created the team store's schema (version ${applied.join(', ')})`);
      } catch (error) {
        await client.end().catch(() => undefined);
        throw this.storeError(error, 'checking its schema');
      }
      this.options.log?.(`journal: team store ${this.location} (from ${this.options.source}), schema version ${LATEST_VERSION}, ready in ${Date.now() - started} ms`);
      return client;
    })();
    const connection = this.dataConnection;
    // A connection that could not be made is not kept either: the next call tries again.
    connection.catch(() => {
      if (this.dataConnection === connection) this.dataConnection = undefined;
    });
    return connection;
  }

  /** The connection that holds this process's advisory locks, and only them. */
  private locks(): Promise<LockConnection> {
    this.lockConnection ??= (async () => {
      const generation = this.lockGeneration;
      const client = await this.connect('locks', () => {
        // The session that held this process's advisory locks is gone, and every lock with it:
        // each hold says so (Hold.lost), and the next lock is taken on a new session.
        if (this.lockGeneration !== generation) return;
        this.lockGeneration += 1;
        this.lockConnection = undefined;
        this.holds.clear();
      });
      const result = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid').catch(async (error) => {
        await client.end().catch(() => undefined);
        throw this.storeError(error, 'opening its lock session');
      });
      return { client, backendPid: result.rows[0]!.pid };
    })();
    const connection = this.lockConnection;
    connection.catch(() => {
      if (this.lockConnection === connection) this.lockConnection = undefined;
    });
    return connection;
  }

  private async connect(purpose: 'data' | 'locks', onLost: () => void): Promise<pg.Client> {
    if (this.closed) throw new JournalError('The journal store was closed.');
    const client = new pg.Client({
      connectionString: this.options.url,
      connectionTimeoutMillis: this.connectTimeoutMs,
      query_timeout: this.queryTimeoutMs,
      // A machine that vanishes (not a killed process: its socket closes) is noticed by the server's
      // keepalive, which then ends its session and so its locks.
      keepAlive: true,
      application_name: `hedge ${purpose} ${this.host} pid ${process.pid}`,
    });
    // A connection that drops while idle is reported here; the next statement fails and says so.
    client.on('error', (error) => {
      this.options.log?.(`journal: the team store's ${purpose} connection failed: ${error.message}`);
      onLost();
    });
    client.on('end', onLost);
    try {
      await client.connect();
      // begin's answer means "on disk" even where the server's default says otherwise.
      await client.query(`SELECT set_config('synchronous_commit', 'on', false)`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw this.storeError(error, 'connecting');
    }
    return client;
  }

  private run<R extends pg.QueryResultRow>(client: pg.ClientBase, query: TimedQuery): Promise<pg.QueryResult<R>> {
    return client.query<R>(query);
  }

  // ---- holds ------------------------------------------------------------------------------------

  /** Takes the scope's advisory lock (waiting up to waitMs) and says so in hedge.holders; or names who has it. */
  private async take(scope: string, waitMs: number): Promise<HoldResult> {
    // The data connection makes the schema current: a lock may be the first thing a run asks for.
    const [, { client, backendPid }] = await Promise.all([this.data(), this.locks()]);
    let got = await this.tryAdvisory(scope);
    if (!got && waitMs > 0) got = await this.waitAdvisory(scope, waitMs);
    for (let attempt = 0; !got && attempt < HOLDER_ATTEMPTS; attempt++) {
      const holder = await this.liveHolder(scope);
      if (holder) return { held: false, holder };
      // Its holder let go between the two questions, or has not written its row yet.
      await new Promise((resolve) => setTimeout(resolve, HOLDER_RETRY_MS));
      got = await this.tryAdvisory(scope);
    }
    if (!got) {
      return { held: false, holder: { pid: 0, host: 'unknown (another session of the store)', since: new Date(this.now()).toISOString(), session: '' } };
    }
    this.holds.set(scope, (this.holds.get(scope) ?? 0) + 1);
    try {
      await client.query(UPSERT_HOLDER_SQL, [scope, process.pid, this.host, PROCESS_SESSION, new Date(this.now()).toISOString(), backendPid]);
    } catch (error) {
      await this.release(scope);
      throw this.storeError(error, 'recording a hold');
    }
    let released = false;
    const generation = this.lockGeneration;
    const hold: Hold = {
      release: async () => {
        if (released) return;
        released = true;
        if (this.lockGeneration === generation) await this.release(scope);
      },
      lost: () => this.lockGeneration !== generation,
    };
    return { held: true, hold };
  }

  private async tryAdvisory(scope: string): Promise<boolean> {
    const { client } = await this.locks();
    try {
      const result = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok', [advisoryText(scope)]);
      return result.rows[0]?.ok === true;
    } catch (error) {
      throw this.storeError(error, 'taking a lock');
    }
  }

  /** Waits for the lock up to waitMs, in the server (lock_timeout): no polling. */
  private async waitAdvisory(scope: string, waitMs: number): Promise<boolean> {
    const { client } = await this.locks();
    try {
      await client.query(`SELECT set_config('lock_timeout', $1, false)`, [`${Math.max(1, Math.round(waitMs))}ms`]);
      await this.run(client, { text: 'SELECT pg_advisory_lock(hashtextextended($1, 0))', values: [advisoryText(scope)], query_timeout: waitMs + this.queryTimeoutMs });
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === '55P03') return false;
      throw this.storeError(error, 'waiting for a lock');
    } finally {
      await client.query(`SELECT set_config('lock_timeout', '0', false)`).catch(() => undefined);
    }
  }

  private async unlockAdvisory(scope: string): Promise<void> {
    const { client } = await this.locks();
    await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [advisoryText(scope)]);
  }

  /** Lets go of one hold on the scope; the last one also clears this process's row. */
  private async release(scope: string): Promise<void> {
    const count = this.holds.get(scope) ?? 0;
    if (count === 0 || this.closed) return;
    if (count === 1) this.holds.delete(scope);
    else this.holds.set(scope, count - 1);
    try {
      if (count > 1) await this.unlockAdvisory(scope);
      else {
        // The last hold: the row goes in the same round trip as the lock.
        const { client } = await this.locks();
        await client.query(
          `WITH gone AS (DELETE FROM ${SCHEMA}.holders WHERE scope = $1 AND session = $2 RETURNING scope)
           SELECT pg_advisory_unlock(hashtextextended($3, 0)) AS unlocked, (SELECT count(*) FROM gone) AS rows`,
          [scope, PROCESS_SESSION, advisoryText(scope)],
        );
      }
    } catch (error) {
      // The lock session is gone, and every lock of it with it: nothing is left held.
      this.options.log?.(`journal: releasing ${scope}: ${(error as Error).message}`);
    }
  }

  private async releaseAll(scope: string): Promise<void> {
    while ((this.holds.get(scope) ?? 0) > 0) await this.release(scope);
  }

  private async liveHolder(scope: string): Promise<Holder | undefined> {
    const data = await this.data();
    const result = await this.run<{ pid: number; host: string; session: string; since: Date | string }>(data, {
      text: HOLDER_SQL,
      values: [scope, advisoryText(scope)],
    }).catch((error) => {
      throw this.storeError(error, 'asking who holds an action');
    });
    const row = result.rows[0];
    if (!row) return undefined;
    return { pid: row.pid, host: row.host, session: row.session, since: row.since instanceof Date ? row.since.toISOString() : String(row.since) };
  }

  // ---- failure ------------------------------------------------------------------------------------

  /**
   * The store failed on an update (after the request may have left): what the update says is kept
   * in the local file journal as a fallback record of the team entry, and the error says where.
   */
  private async recordFallback(id: string, change: Record<string, unknown>, cause: unknown): Promise<never> {
    const failure = this.storeError(cause, 'recording what happened');
    const base = this.known.get(id);
    let localId = this.fallbacks.get(id);
    let local: LocalJournal;
    try {
      local = this.fallbackJournal();
      if (localId === undefined) {
        if (!base) throw new JournalError(`this run never read entry ${id}`);
        const { id: _id, created_at: _created, updated_at: _updated, holder: _holder, outcome, ...fields } = base;
        for (const field of OUTCOME_FIELDS) delete (fields as Record<string, unknown>)[field];
        const { seq: _seq, revision, ...rest } = fields;
        const begun = await local.begin({ ...rest, outcome: outcome === 'planned' ? 'planned' : 'pending', fallback_for: { id, store: this.location, ...(revision === undefined ? {} : { revision }) } });
        localId = begun.id;
        this.fallbacks.set(id, localId);
        // What the store had learnt before it failed, then this update.
        const had: JournalPatch = {};
        for (const field of OUTCOME_FIELDS) if (base[field] !== undefined) Object.assign(had, { [field]: base[field] });
        if (Object.keys(had).length > 0) await local.update(localId, had);
      }
      const patch: JournalPatch = {};
      for (const field of OUTCOME_FIELDS) if (change[field] !== undefined) Object.assign(patch, { [field]: change[field] });
      await local.update(localId, patch);
    } catch (error) {
      throw new JournalStoreError(
        `${failure.message.replace(/\.$/, '')}, and the local fallback record could not be written either (${(error as Error).message}).`,
        { store: this.location, hint: failure.hint, cause },
      );
    }
    throw new JournalStoreError(
      `${failure.message.replace(/\.$/, '')}; what happened to ${id} is kept in the local journal ${local.file} (fallback record ${localId}): \`hedge journal migrate\` merges it into the team store once the store is back.`,
      { store: this.location, hint: failure.hint, cause },
    );
  }

  private fallbackJournal(): LocalJournal {
    this.localJournal ??= openJournal({ dir: this.options.fallbackDir, now: this.now });
    return this.localJournal;
  }

  private remember(entries: JournalEntry[]): JournalEntry[] {
    for (const entry of entries) this.known.set(entry.id, entry);
    return entries;
  }

  /** A failure of the store as the operator reads it: the store (redacted), what went wrong, what to do. */
  private storeError(error: unknown, doing: string): JournalStoreError {
    if (error instanceof JournalStoreError) return error;
    const { sentence, hint } = describeFailure(error, this.options.source);
    return new JournalStoreError(`The team journal store ${this.location} ${sentence} (while ${doing}).`, { store: this.location, hint, cause: error });
  }
}

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', '57P01', '57P02', '57P03', '08006', '08001', '08004']);

function describeFailure(error: unknown, source: string): { sentence: string; hint: string } {
  const code = (error as { code?: string }).code;
  const message = (error as Error)?.message ?? String(error);
  const fix = `Check that the database is up and reachable from this machine, or fix ${source}.`;
  const meanwhile = 'Until then hedge refuses writes before sending anything; reads of the API (positions, hedges, account) still work.';
  if (error instanceof SchemaTooNewError) {
    return { sentence: `has schema version ${error.found}, newer than this hedge knows (${LATEST_VERSION})`, hint: 'Upgrade hedge on this machine to the version the rest of the desk uses.' };
  }
  if ((code !== undefined && UNREACHABLE_CODES.has(code)) || /timeout|terminated|closed|not queryable|ECONNREFUSED/i.test(message)) {
    return { sentence: `cannot be reached: ${unreachableReason(code, message)}`, hint: `${fix} ${meanwhile}` };
  }
  if (code === '28P01' || code === '28000') return { sentence: `refused the login: ${message}`, hint: `Check the user and password (in the URL, PGPASSWORD or ~/.pgpass). ${meanwhile}` };
  if (code === '3D000') return { sentence: `has no such database: ${message}`, hint: `Create the database, or fix ${source}.` };
  if (code === '42501') {
    return {
      sentence: `refused what hedge needs: ${message}`,
      hint: `The store's user needs CREATE on the database the first time (hedge creates its schema "${SCHEMA}"), then read and write on that schema.`,
    };
  }
  return { sentence: `failed: ${message}${code ? ` (${code})` : ''}`, hint: `${fix} ${meanwhile}` };
}

function unreachableReason(code: string | undefined, message: string): string {
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'unknown host';
  if (code === '57P01' || code === '57P02' || code === '57P03') return 'the server is shutting down or starting';
  if (/timeout/i.test(message)) return 'no answer in time';
  if (/terminated|closed|not queryable/i.test(message)) return 'the connection was lost';
  return message;
}

/**
 * Whether a local record knows more than the store's copy — by revisions, never by the clocks of
 * the machines that wrote them. A final outcome never goes back to an unresolved one, and always
 * replaces one. Otherwise a fallback record knows more while the store's copy is still the
 * revision it continued from (nobody changed it since); a migrated local record, while its
 * revision is the higher (the store took the local revision when it first moved in).
 */
export function knowsMore(local: JournalEntry, stored: JournalEntry): boolean {
  if (!isUnresolved(stored) && isUnresolved(local)) return false;
  if (isUnresolved(stored) && !isUnresolved(local)) return true;
  const storedRevision = stored.revision ?? 1;
  // A fallback record from before revisions were kept continues from nothing known: the store's copy stands.
  if (local.fallback_for) return storedRevision <= (local.fallback_for.revision ?? 0);
  return (local.revision ?? 1) > storedRevision;
}

/** The revision a local record brings into the store: a fallback record is one change past the revision it continued from. */
function importedRevision(local: JournalEntry): number {
  if (local.fallback_for) return (local.fallback_for.revision ?? 0) + 1;
  return local.revision ?? 1;
}

/** Who last held a finished entry (as the file journal names it): its recorded holder, or nobody known. */
function lastHolderOf(entry: JournalEntry): Holder {
  const holder = entry.holder;
  if (holder && typeof holder.pid === 'number' && typeof holder.host === 'string') return { pid: holder.pid, host: holder.host, since: holder.since, session: holder.session };
  return { pid: 0, host: 'unknown', since: entry.updated_at, session: '' };
}

/** `connect_timeout` (seconds, as libpq reads it) from the URL, if it has one. */
function connectTimeoutOf(url: string): number | undefined {
  try {
    const value = new URL(url).searchParams.get('connect_timeout');
    const seconds = value === null ? NaN : Number(value);
    return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
  } catch {
    return undefined;
  }
}

function isoOrNull(ms: number | undefined): string | null {
  return ms === undefined ? null : new Date(ms).toISOString();
}

/** The value as JSON would keep it (undefined fields dropped), as the file journal stores it. */
function plainJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

