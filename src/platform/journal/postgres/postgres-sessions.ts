// The team store's schema, its two sessions per process, and the locker over the second (client-journal.ts, LockerClient).
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import pg from 'pg';
import { JournalError, JournalStoreError, type Skipped } from '../entry.js';
import type { Holder } from '../../../core/files/file-lock.js';
import { holdOf, type HoldResult, type HoldScope } from '../client-journal.js';
import { InterruptedError } from '../../../core/errors.js';
import { sleep, within } from '../../../core/process/timers.js';
import { utcIso } from '../../../core/utc-text.js';
import { formatSpan } from '../../../core/duration.js';

/** Bounds, in ms: connecting (unless the URL's connect_timeout says otherwise), and each statement (a lock wait gets its own wait on top). */
const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
const QUERY_TIMEOUT_MS = 15_000;
const CLOSE_BOUND_MS = 2_000;
/** How long a statement begun shortly before or after the deadline or a signal may still take (what happened is
 * recorded in it), then how long the server's answer to a cancel is waited for before the connection is cut. */
const STOP_GRACE_MS = 1_000;
const CANCEL_WAIT_MS = 500;
/** Tries to either take a busy lock or read who has it (the holder's row lands just after its lock). */
const HOLDER_ATTEMPTS = 20;
const HOLDER_RETRY_MS = 25;

/** How the team store is reached and reports (openTeamJournal). */
export interface TeamJournalOptions {
  /** The full URL (password included); used for the connection only. */
  url: string;
  shown: string;
  /** Where the URL came from (HEDGE_JOURNAL_URL, `profile "desk"`), for hints. */
  source: string;
  /** The local journal's folder: where a fallback record goes when the store fails after a send. */
  fallbackDir: string;
  now?: () => number;
  /** The context clock's sleep (the one sleep when none is given). */
  sleep?: (ms: number) => Promise<void>;
  log?: (line: string) => void;
  /** Told about every row a read had to skip (one that cannot be read as an entry), and every line of the local file's. */
  onSkip?: (skip: Skipped) => void;
  /** The command's stop (a signal) and its deadline (--timeout, on `now`'s clock): every statement ends by them. */
  signal?: AbortSignal;
  deadline?: number;
}

/** One id per process: a holder's pid alone is reused, and names nothing on another machine. */
const PROCESS_SESSION = randomBytes(8).toString('hex');

/** A hold's row key in hedge.holders: `entry:<id>` or `lock:<scope>`. */
export const scopeText = (scope: HoldScope) => ('entry' in scope ? `entry:${scope.entry}` : `lock:${scope.lock}`);

/** A scope's advisory lock key is the 64-bit hash (hashtextextended) of `hedge:<scope>`, in every statement here; pg_locks shows a bigint advisory key as classid (high 32 bits) and objid (low 32 bits). */
const HOLDER_SQL = `
SELECT h.pid, h.host, h.session, to_char(h.since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS since
FROM hedge.holders h
JOIN pg_locks l
  ON l.locktype = 'advisory' AND l.granted AND l.pid = h.backend_pid AND l.objsubid = 1
 AND l.classid::bigint = ((hashtextextended('hedge:' || $1, 0) >> 32) & 4294967295)
 AND l.objid::bigint = (hashtextextended('hedge:' || $1, 0) & 4294967295)
WHERE h.scope = $1`;

const UPSERT_HOLDER_SQL = `
INSERT INTO hedge.holders (scope, pid, host, session, since, backend_pid) VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (scope) DO UPDATE SET pid = EXCLUDED.pid, host = EXCLUDED.host, session = EXCLUDED.session, since = EXCLUDED.since, backend_pid = EXCLUDED.backend_pid`;

/** A statement with its own bound (query_timeout), which pg takes beyond its typings. */
type Query = pg.QueryConfig & { query_timeout?: number };

/** json, jsonb and their arrays, which pg would hand to JSON.parse: the store reads their text itself, within the journal's bounds (entry.ts, readRow). */
const JSON_TYPES = new Set([114, 3802, 199, 3807]);
const JSON_AS_TEXT = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    JSON_TYPES.has(oid)
      ? (text: string) => text
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** The team store's two sessions and the locker over them: `location` the store as shown, `host` this machine. */
export function postgresSessions(options: TeamJournalOptions) {
  const { shown: location, log, signal, deadline, now = Date.now } = options;
  const host = hostname();
  /** Each session: its client, and (the lock session's) pg_backend_pid(), what pg_locks names the holder by. */
  const sessions = new Map<'data' | 'locks', ReturnType<typeof connect>>();
  /** Counts lock sessions: a hold taken on an earlier one than the current is lost. */
  let lockGeneration = 0;
  /** Scopes this process holds, and how many times (advisory locks are counted per session). */
  const holds = new Map<string, number>();
  let closed = false;
  /** When the signal was first seen: a statement begun since is ended a moment after it began (or after the deadline),
   * in which what happened is recorded; one under way then is ended at once. */
  let signalledAt: number | undefined;
  /** Each client's last statement: the next is sent once it has settled (one at a time on a connection). */
  const turns = new WeakMap<pg.Client, Promise<unknown>>();
  /** Set once a statement had to be cut off (its connection destroyed: the store stopped answering): nothing more is
   * sent to the store in this run, and the sessions are cut at close. */
  let stalled: Error | undefined;

  /** The connection for entries, with the schema made current on first use. */
  async function data() {
    // Lost (the server restarted, the network dropped): the next statement connects anew.
    return (
      await session('data', 'checking its schema', async (client, started) => {
        const applied = await migrateSchema(statementsOn(client), `${host} pid ${process.pid}`);
        if (applied.length) log?.(`journal: created the team store's schema (version ${applied.join(', ')})`);
        log?.(
          `journal: team store ${location} (from ${options.source}), schema version ${LATEST_VERSION}, ready in ${formatSpan(now() - started)}`,
        );
      })
    ).client;
  }

  /** The connection that holds this process's advisory locks, and only them. */
  function locks() {
    return session(
      'locks',
      'opening its lock session',
      async (client) => (await run<{ pid: number }>(client, { text: 'SELECT pg_backend_pid() AS pid' })).rows[0].pid,
      () => {
        // The session that held this process's advisory locks is gone, and every lock with it.
        lockGeneration += 1;
        holds.clear();
      },
    );
  }

  /** The `purpose` session, connected and readied on first use; one lost, or never made, is made anew by the next call. */
  function session(purpose: 'data' | 'locks', doing: string, ready: Parameters<typeof connect>[3], lost = () => {}) {
    let made = sessions.get(purpose);
    if (made) return made;
    const forget = () => {
      if (sessions.get(purpose) !== made) return;
      sessions.delete(purpose);
      lost();
    };
    made = connect(purpose, forget, doing, ready);
    sessions.set(purpose, made);
    made.catch(forget);
    return made;
  }

  /** A new session, connected, then readied (`readying`: what a failure there says was being done). */
  async function connect(
    purpose: 'data' | 'locks',
    onLost = () => {},
    readying = '',
    ready?: (client: pg.Client, started: number) => Promise<number | void>,
  ) {
    if (closed) throw new JournalError('The journal store was closed.');
    if (stalled) throw stalled;
    const started = now();
    const client = new pg.Client({
      connectionString: options.url,
      connectionTimeoutMillis: connectTimeoutOf(options.url) ?? DEFAULT_CONNECT_TIMEOUT_MS,
      query_timeout: QUERY_TIMEOUT_MS,
      // A machine that vanishes (not a killed process: its socket closes) is noticed by the server's keepalive.
      keepAlive: true,
      application_name: `hedge ${purpose} ${host} pid ${process.pid}`,
      types: JSON_AS_TEXT,
    });
    // A connection that drops while idle is reported here; the next statement fails and says so.
    client.on('error', (error) => {
      log?.(`journal: the team store's ${purpose} connection failed: ${error.message}`);
      onLost();
    });
    client.on('end', onLost);
    let doing = 'connecting';
    const stop = stopping();
    try {
      // A store that takes the connection and then stops answering is left by the command's deadline or signal too.
      await Promise.race([client.connect(), stop.stopped]);
      // begin's answer means "on disk" even where the server's default says otherwise.
      await run(client, { text: `SELECT set_config('synchronous_commit', 'on', false)` });
      doing = readying;
      return { client, backendPid: await ready?.(client, started) };
    } catch (error) {
      if (error === stop.signal) {
        client.connection.stream.destroy();
        throw stoppedError(doing);
      }
      await client.end().catch(() => undefined);
      throw storeError(error, doing);
    } finally {
      stop.dispose();
    }
  }

  /** Aborted at the command's deadline or its signal, or a moment after it (STOP_GRACE_MS) for work begun since (what
   * happened is recorded in it): `stopped` rejects with `signal` then; `dispose` when the work it bounds is over. */
  function stopping() {
    const controller = new AbortController();
    const timers: NodeJS.Timeout[] = [];
    const begun = now();
    const stopBy = (why: 'deadline' | 'signal', at: number) =>
      timers.push(setTimeout(() => controller.abort(why), Math.max(0, Math.max(at, begun + STOP_GRACE_MS) - now())));
    const onSignal = () => stopBy('signal', (signalledAt ??= now()));
    if (signal?.aborted) onSignal();
    else signal?.addEventListener('abort', onSignal, { once: true });
    if (deadline !== undefined) stopBy('deadline', deadline);
    const stopped = new Promise<never>((_, reject) =>
      controller.signal.addEventListener('abort', () => reject(controller.signal), { once: true }),
    );
    stopped.catch(() => undefined);
    return {
      signal: controller.signal,
      stopped,
      dispose() {
        for (const timer of timers) clearTimeout(timer);
        signal?.removeEventListener('abort', onSignal);
      },
    };
  }

  /** What a statement (or connection) ended by the deadline or the signal says: the signal's interruption, or a store
   * error of no answer in time. */
  function stoppedError(doing = 'answering') {
    if (signal?.aborted)
      return new InterruptedError(`Stopped while the team journal store ${location} was ${doing}.`, {
        stoppedBy: signal.reason,
      });
    return storeError(new Error('timeout: --timeout ran out'), doing);
  }

  /** A statement with its own bound (query_timeout), which pg takes beyond its typings; given `doing`, a failure is a
   * store error saying so. It waits for the one before it on its connection. The command's deadline and signal end it
   * (one begun just before or after them, a moment later: stopping): the server is asked to cancel it (pg's own timeout leaves it running, and a lock
   * that frees later would let it commit unseen), and what it then says is taken (done after all, or cancelled: the
   * deadline's store error, the signal's interruption); a server that does not answer the cancel at once has the
   * connection cut, and nothing more is sent to it in this run. */
  async function run<R extends pg.QueryResultRow>(client: pg.Client, query: Query, doing?: string) {
    if (stalled) throw doing === undefined ? stalled : storeError(stalled, doing);
    const stop = stopping();
    let statement: Promise<pg.QueryResult<R>> | undefined;
    const turn = (turns.get(client) ?? Promise.resolve()).then(() => {
      // Its time to be sent came after its stop: never sent.
      if (stop.signal.aborted) throw stop.signal;
      return (statement = client.query<R>(query));
    });
    turns.set(
      client,
      turn.catch(() => undefined),
    );
    try {
      return await Promise.race([turn, stop.stopped]);
    } catch (error) {
      if (error !== stop.signal) throw doing === undefined ? error : storeError(error, doing);
      if (statement) {
        const cancelling = sendCancel(client);
        const settled = await within(statement, CANCEL_WAIT_MS, () => new Error('no answer to the cancel'))
          .catch((failure: unknown) => {
            if ((failure as Error).message !== 'no answer to the cancel') return undefined;
            stalled = storeError(new Error('timeout: no answer'), doing ?? 'answering');
            client.connection.stream.destroy();
            return undefined;
          })
          .finally(() => cancelling?.destroy());
        if (settled) return settled;
      }
      throw stoppedError(doing);
    } finally {
      stop.dispose();
    }
  }

  /** `run` on one client, for a caller that holds it (a migration, a transaction). */
  const statementsOn =
    (client: pg.Client) =>
    <R extends pg.QueryResultRow>(text: string, values?: unknown[], doing?: string) =>
      run<R>(client, { text, values }, doing);

  /** A statement on the data session (run's terms): its rows. */
  async function query<R extends pg.QueryResultRow>(statement: Query, doing?: string) {
    return (await run<R>(await data(), statement, doing)).rows;
  }

  /** `SELECT <call>(hashtextextended('hedge:<scope>', 0)) AS ok` on the lock session. */
  async function advisory(call: string, scope: string, doing?: string, query_timeout?: number) {
    const { client } = await locks();
    const text = `SELECT ${call}(hashtextextended('hedge:' || $1::text, 0)) AS ok`;
    return (await run<{ ok: boolean }>(client, { text, values: [scope], query_timeout }, doing)).rows[0]?.ok;
  }

  async function tryAdvisory(scope: string) {
    return (await advisory('pg_try_advisory_lock', scope, 'taking a lock')) === true;
  }

  /** Waits for the lock up to waitMs, in the server (lock_timeout): no polling. */
  async function waitAdvisory(scope: string, waitMs: number) {
    const on = statementsOn((await locks()).client);
    try {
      await on(`SELECT set_config('lock_timeout', $1, false)`, [`${Math.max(1, Math.round(waitMs))}ms`]);
      await advisory('pg_advisory_lock', scope, undefined, waitMs + QUERY_TIMEOUT_MS);
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === '55P03') return false;
      throw storeError(error, 'waiting for a lock');
    } finally {
      await on(`SELECT set_config('lock_timeout', '0', false)`).catch(() => undefined);
    }
  }

  /** Lets go of one hold on the scope; the last one also clears this process's row. */
  async function release(scope: string) {
    const count = holds.get(scope) ?? 0;
    if (count === 0 || closed) return;
    try {
      if (count > 1) {
        holds.set(scope, count - 1);
        await advisory('pg_advisory_unlock', scope);
      } else {
        holds.delete(scope);
        // The last hold: the row goes in the same round trip as the lock.
        const { client } = await locks();
        await statementsOn(client)(
          `WITH gone AS (DELETE FROM hedge.holders WHERE scope = $1 AND session = $2 RETURNING scope)
           SELECT pg_advisory_unlock(hashtextextended('hedge:' || $1, 0)) AS unlocked, (SELECT count(*) FROM gone) AS rows`,
          [scope, PROCESS_SESSION],
        );
      }
    } catch (error) {
      // The lock session is gone, and every lock of it with it: nothing is left held.
      log?.(`journal: releasing ${scope}: ${(error as Error).message}`);
    }
  }

  /** Who holds the scope: its row, live only while its advisory lock is granted. Takes nothing. */
  async function holderOf(scope: HoldScope) {
    return (await query<Holder>({ text: HOLDER_SQL, values: [scopeText(scope)] }, 'asking who holds an action'))[0];
  }

  /** A failure of the store as the operator reads it: the store (redacted), what went wrong, what to do. */
  function storeError(error: unknown, doing: string) {
    // A signal's interruption stays one (its exit code is the signal's).
    if (error instanceof JournalStoreError || error instanceof InterruptedError) return error;
    const { sentence, hint } = describeFailure(error, options.source);
    return new JournalStoreError(`The team journal store ${location} ${sentence} (while ${doing}).`, {
      store: location,
      hint,
      cause: error,
    });
  }

  return {
    host,
    data,
    locks,
    connect,
    statementsOn,
    query,
    holderOf,
    storeError,
    holderAt: (time: number) => ({ pid: process.pid, host, since: utcIso(time), session: PROCESS_SESSION }),

    async letGo(scope: HoldScope) {
      const text = scopeText(scope);
      // Once closed, the sessions took every hold with them (and a release would not count one down).
      while (!closed && (holds.get(text) ?? 0) > 0) await release(text);
    },

    /** A new entry's hold, taken before its row is written (no other process can see it unheld): false when another has it. */
    async holdNew(scope: string) {
      const taken = await tryAdvisory(scope);
      if (taken) holds.set(scope, 1);
      return taken;
    },

    /** Lets go of a new entry's hold whose row was not written after all. */
    async dropNew(scope: string) {
      holds.delete(scope);
      await advisory('pg_advisory_unlock', scope);
    },

    /** Takes the scope's advisory lock (waiting up to waitMs) and says so in hedge.holders; or names who has it. */
    async take(held: HoldScope, waitMs: number): Promise<HoldResult> {
      const scope = scopeText(held);
      // The data connection makes the schema current: a lock may be the first thing a run asks for.
      const [, { client, backendPid }] = await Promise.all([data(), locks()]);
      let got = (await tryAdvisory(scope)) || (waitMs > 0 && (await waitAdvisory(scope, waitMs)));
      for (let attempt = 0; !got && attempt < HOLDER_ATTEMPTS; attempt++) {
        const holder = await holderOf(held);
        if (holder) return { held: false, holder };
        // Its holder let go between the two questions, or has not written its row yet.
        await (options.sleep ?? sleep)(HOLDER_RETRY_MS);
        got = await tryAdvisory(scope);
      }
      const since = utcIso(now());
      if (!got)
        return { held: false, holder: { pid: 0, host: 'unknown (another session of the store)', since, session: '' } };
      holds.set(scope, (holds.get(scope) ?? 0) + 1);
      try {
        await run(client, {
          text: UPSERT_HOLDER_SQL,
          values: [scope, process.pid, host, PROCESS_SESSION, since, backendPid],
        });
      } catch (error) {
        await release(scope);
        throw storeError(error, 'recording a hold');
      }
      const generation = lockGeneration;
      // Lost once the lock session that held it is gone (a new one counts on).
      const stillHeld = () => lockGeneration === generation;
      return { held: true, hold: holdOf(async () => (stillHeld() ? release(scope) : undefined), stillHeld) };
    },

    /** Ends both sessions: every hold and lock of this process goes with them. */
    async close() {
      if (closed) return;
      const clients = await Promise.all(
        (['data', 'locks'] as const).map((purpose) =>
          sessions.get(purpose)?.then(
            ({ client }) => client,
            () => undefined,
          ),
        ),
      );
      closed = true;
      const cut = () => {
        for (const client of clients) client?.connection.stream.destroy();
      };
      // A store that stopped answering, or a command stopped by a signal: nothing more is asked of it.
      if (stalled || signal?.aborted) return cut();
      const ending = (async () => {
        const locksClient = clients[1];
        // Tidy, after the statement before it: the rows would name nobody anyway once the session ends.
        if (holds.size && locksClient)
          await (turns.get(locksClient) ?? Promise.resolve())
            .then(() => locksClient.query(`DELETE FROM hedge.holders WHERE session = $1`, [PROCESS_SESSION]))
            .catch(() => undefined);
        await Promise.allSettled(clients.map((client) => client?.end()));
      })();
      await within(ending, CLOSE_BOUND_MS, () => new Error()).catch(cut);
    },
  };
}

export type PostgresSessions = ReturnType<typeof postgresSessions>;

const UNREACHABLE_CODES = new Set(
  'ECONNREFUSED ECONNRESET ENOTFOUND EAI_AGAIN ETIMEDOUT EHOSTUNREACH ENETUNREACH EPIPE 57P01 57P02 57P03 08006 08001 08004'.split(
    ' ',
  ),
);

function describeFailure(error: unknown, source: string) {
  const code = (error as { code?: string }).code;
  const message = (error as Error)?.message ?? String(error);
  const meanwhile =
    'Until then hedge refuses writes before sending anything; reads of the API (positions, hedges, account) still work.';
  const fix = `Check that the database is up and reachable from this machine, or fix ${source}. ${meanwhile}`;
  if (error instanceof SchemaTooNewError)
    return {
      sentence: `has schema version ${error.found}, newer than this hedge knows (${LATEST_VERSION})`,
      hint: 'Upgrade hedge on this machine to the version the rest of the desk uses.',
    };
  if (UNREACHABLE_CODES.has(code!) || /timeout|terminated|closed|not queryable|ECONNREFUSED/i.test(message))
    return { sentence: `cannot be reached: ${unreachableReason(code, message)}`, hint: fix };
  if (code === '28P01' || code === '28000')
    return {
      sentence: `refused the login: ${message}`,
      hint: `Check the user and password (in the URL, PGPASSWORD or ~/.pgpass). ${meanwhile}`,
    };
  if (code === '3D000')
    return { sentence: `has no such database: ${message}`, hint: `Create the database, or fix ${source}.` };
  if (code === '42501')
    return {
      sentence: `refused what hedge needs: ${message}`,
      hint: `The store's user needs CREATE on the database the first time (hedge creates its schema "hedge"), then read and write on that schema.`,
    };
  return { sentence: `failed: ${message}${code ? ` (${code})` : ''}`, hint: fix };
}

function unreachableReason(code = '', message: string) {
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (/^(ENOTFOUND|EAI_AGAIN)$/.test(code)) return 'unknown host';
  if (/^57P0[123]$/.test(code)) return 'the server is shutting down or starting';
  if (/timeout/i.test(message)) return 'no answer in time';
  if (/terminated|closed|not queryable/i.test(message)) return 'the connection was lost';
  return message;
}

/** `connect_timeout` (seconds, as libpq reads it) from the URL, if it has one. */
function connectTimeoutOf(url: string) {
  try {
    const seconds = Number(new URL(url).searchParams.get('connect_timeout'));
    return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
  } catch {
    // Not a URL: the default bound.
  }
}

/** Asks the server to cancel the statement `client` runs: a CancelRequest (its backend's pid and secret key) on a
 * connection of its own, which never keeps the process (it may travel the same stalled path; cut by the caller). */
function sendCancel(client: pg.Client) {
  const { processID, secretKey, host, port } = client as pg.Client & { processID?: number; secretKey?: number };
  if (typeof processID !== 'number' || typeof secretKey !== 'number') return;
  const { connect } = process.getBuiltinModule('node:net');
  const socket = host.startsWith('/') ? connect(`${host}/.s.PGSQL.${port}`) : connect(port, host);
  socket.unref();
  socket.on('error', () => undefined);
  socket.once('connect', () => {
    const request = Buffer.alloc(16);
    request.writeInt32BE(16, 0);
    // The protocol's cancel request code.
    request.writeInt32BE(80877102, 4);
    request.writeInt32BE(processID, 8);
    request.writeInt32BE(secretKey, 12);
    socket.end(request);
  });
  return socket;
}

// Everything hedge keeps lives in the schema "hedge" of the database the URL names.

/** The advisory lock key (in `hashtextextended(text, 0)` terms) held while migrating. */
const MIGRATION_LOCK = 'hedge:schema-migration';

/** In order; a migration, once released, is never edited (a new one follows it). */
export const MIGRATIONS = [
  {
    version: 1,
    description: 'journal entries and holders',
    sql: `
CREATE TABLE hedge.entries (
  id              text PRIMARY KEY,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL,
  outcome         text NOT NULL,
  environment     text NOT NULL,
  base_url_host   text NOT NULL,
  key_id          text NOT NULL,
  command         text NOT NULL,
  idempotency_key text NOT NULL,
  group_id        text,
  leg             text,
  body_canonical  text NOT NULL,
  host            text,
  profile         text,
  origin          text NOT NULL DEFAULT 'store',
  entry           jsonb NOT NULL
);
CREATE INDEX entries_newest ON hedge.entries (created_at DESC, id DESC);
CREATE INDEX entries_unresolved ON hedge.entries (key_id, command, base_url_host, environment)
  WHERE outcome IN ('planned', 'pending', 'submitted', 'unknown');
CREATE INDEX entries_idempotency_key ON hedge.entries (idempotency_key);
CREATE TABLE hedge.holders (
  scope       text PRIMARY KEY,
  pid         integer NOT NULL,
  host        text NOT NULL,
  session     text NOT NULL,
  since       timestamptz NOT NULL,
  backend_pid integer NOT NULL
);
`,
  },
  {
    // Version 2: records are ordered by counters, never by a machine's clock.
    version: 2,
    description: 'records ordered by seq and revision, not by clock',
    sql: `
CREATE SEQUENCE hedge.entries_seq AS bigint;
ALTER TABLE hedge.entries ADD COLUMN seq bigint, ADD COLUMN revision bigint NOT NULL DEFAULT 1;
UPDATE hedge.entries e SET seq = numbered.n
  FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM hedge.entries) numbered
  WHERE e.id = numbered.id;
SELECT setval('hedge.entries_seq', coalesce((SELECT max(seq) FROM hedge.entries), 0) + 1, false);
UPDATE hedge.entries SET entry = entry || jsonb_build_object('seq', seq, 'revision', revision);
ALTER TABLE hedge.entries ALTER COLUMN seq SET DEFAULT nextval('hedge.entries_seq'), ALTER COLUMN seq SET NOT NULL;
ALTER SEQUENCE hedge.entries_seq OWNED BY hedge.entries.seq;
CREATE UNIQUE INDEX entries_by_seq ON hedge.entries (seq DESC);
`,
  },
  {
    // Version 3: the keeper's heartbeat in the store.
    version: 3,
    description: 'keeper heartbeats',
    sql: `
CREATE TABLE hedge.keeper_heartbeats (
  scope      text PRIMARY KEY,
  body       jsonb NOT NULL,
  revision   bigint NOT NULL,
  written_at timestamptz NOT NULL
);
`,
  },
  {
    // Version 4: the accounting records beside the journal, one chain per environment's store, its head kept apart.
    version: 4,
    description: 'accounting records and their heads',
    sql: `
CREATE TABLE hedge.acct_records (
  store text NOT NULL,
  seq   bigint NOT NULL CHECK (seq > 0),
  line  text NOT NULL,
  PRIMARY KEY (store, seq)
);
CREATE TABLE hedge.acct_heads (
  store text PRIMARY KEY,
  count bigint NOT NULL,
  hash  text NOT NULL
);
`,
  },
  {
    // Version 5: what a write asks of history found by an index: a request's rows in the repeat window, a group's legs,
    // a hedge's rows, a side's rows (its side kept as a column from now on; a row without one is read and told by its
    // request).
    version: 5,
    description: 'indexes for the reads of a write',
    sql: `
ALTER TABLE hedge.entries ADD COLUMN side text;
CREATE INDEX entries_request ON hedge.entries (key_id, command, created_at);
CREATE INDEX entries_group ON hedge.entries (group_id) WHERE group_id IS NOT NULL;
CREATE INDEX entries_hedge ON hedge.entries ((entry->>'hedge_id')) WHERE entry->>'hedge_id' IS NOT NULL;
CREATE INDEX entries_rolled ON hedge.entries ((entry#>>'{context,rolled_hedge_id}'))
  WHERE entry#>>'{context,rolled_hedge_id}' IS NOT NULL;
CREATE INDEX entries_side ON hedge.entries (side, created_at);
`,
  },
  {
    // Version 6: the accounting records read by parts (every record but rates, a market's rates of a year or of
    // several): each record's part, and the parts' digests in the head; an older hedge's rows are given theirs by the
    // next append.
    version: 6,
    description: 'accounting records read by parts',
    sql: `
ALTER TABLE hedge.acct_records ADD COLUMN part text;
CREATE INDEX acct_records_part ON hedge.acct_records (store, part, seq);
ALTER TABLE hedge.acct_heads ADD COLUMN parts text;
`,
  },
];

export const LATEST_VERSION = MIGRATIONS.at(-1)!.version;

/** Statements on one connection, one after another (postgresSessions' statementsOn). */
type Statements = PostgresSessions['statementsOn'] extends (client: pg.Client) => infer S ? S : never;

/** The schema's version as the database has it (0 when hedge never ran there); one newer than this hedge knows is refused. */
async function schemaVersion(query: Statements) {
  const present = await query<{ present: boolean }>(
    `SELECT to_regclass('hedge.schema_migrations') IS NOT NULL AS present`,
  );
  const version = present.rows[0]?.present
    ? ((await query<{ version: number | null }>(`SELECT max(version) AS version FROM hedge.schema_migrations`)).rows[0]
        ?.version ?? 0)
    : 0;
  if (version > LATEST_VERSION) throw new SchemaTooNewError(version);
  return version;
}

class SchemaTooNewError extends Error {
  constructor(readonly found: number) {
    super(`schema version ${found} is newer than this hedge knows (${LATEST_VERSION})`);
  }
}

/** Brings the schema to LATEST_VERSION; returns the versions it applied (none when it was current). */
export async function migrateSchema(query: Statements, appliedBy: string) {
  if ((await schemaVersion(query)) === LATEST_VERSION) return [];
  await query('BEGIN');
  try {
    await query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [MIGRATION_LOCK]);
    await query(`CREATE SCHEMA IF NOT EXISTS hedge`);
    await query(
      `CREATE TABLE IF NOT EXISTS hedge.schema_migrations (
         version     integer PRIMARY KEY,
         description text NOT NULL,
         applied_at  timestamptz NOT NULL DEFAULT now(),
         applied_by  text NOT NULL
       )`,
    );
    const current = await schemaVersion(query);
    const applied: number[] = [];
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      await query(migration.sql);
      await query(`INSERT INTO hedge.schema_migrations (version, description, applied_by) VALUES ($1, $2, $3)`, [
        migration.version,
        migration.description,
        appliedBy,
      ]);
      applied.push(migration.version);
    }
    await query('COMMIT');
    return applied;
  } catch (error) {
    await query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
