// The journal on PostgreSQL: one store shared by every machine of a desk.
import { canonicalJson } from '../../../core/files/canonical-json.js';
import { clientJournal, plainJson, rowTest, type RowFilter, type RowSeal } from '../client-journal.js';
import {
  JournalError,
  JournalStoreError,
  ANY_ROW,
  ENTRY,
  isUnresolved,
  PATCH_FIELDS,
  readRow,
  refuseUnreadable,
  sideOf,
  UNRESOLVED_OUTCOMES,
  type JournalEntry,
  type JournalPatch,
} from '../entry.js';
import { HEARTBEAT_BOUNDS, openJournal } from '../journal.js';
import { refuseKeyShaped } from '../row-integrity.js';
import { withoutUndefined, type JsonObject } from '../../../core/objects.js';
import { InterruptedError } from '../../../core/errors.js';
import {
  migrateSchema,
  postgresSessions,
  scopeText,
  type PostgresSessions,
  type TeamJournalOptions,
} from './postgres-sessions.js';

/** The unresolved outcomes as SQL, from the one list (entry.ts). */
const UNRESOLVED_SQL = UNRESOLVED_OUTCOMES.map((outcome) => `'${outcome}'`).join(', ');

/** The columns of a row beside its `entry` (copies of what queries filter and sort on). */
const ROW_COLUMNS =
  'id, created_at, updated_at, outcome, environment, base_url_host, key_id, command, idempotency_key, group_id, leg, body_canonical, host, profile, origin, side';

/** The next seq of the store's sequence, taken before a new row is sealed. */
const NEXT_SEQ_SQL = `SELECT nextval('hedge.entries_seq')::text AS seq`;

/** A new row from its entry ($1, each column a copy of its field), canonical body ($2), origin ($3), revision ($4) and
 * side ($12, the side its request changes): its seq as taken ($5), or the store's next (in the row and in its JSON
 * alike); with its holder's row ($6–$11) when one is given. */
const INSERT_SQL = `
WITH numbered AS (
  SELECT coalesce($5::bigint, nextval('hedge.entries_seq')) AS seq, $1::jsonb AS e
), inserted AS (
  INSERT INTO hedge.entries (${ROW_COLUMNS}, entry, seq, revision)
  SELECT e->>'id', (e->>'created_at')::timestamptz, (e->>'updated_at')::timestamptz, e->>'outcome', e->>'environment',
    e->>'base_url_host', e->>'key_id', e->>'command', e->>'idempotency_key', e->>'group', e->>'leg', $2, e->>'host',
    e->>'profile', $3, $12, e || jsonb_build_object('seq', numbered.seq, 'revision', $4::bigint), numbered.seq, $4
  FROM numbered
  ON CONFLICT (id) DO NOTHING
  RETURNING id, seq
), held AS (
  INSERT INTO hedge.holders (scope, pid, host, session, since, backend_pid)
  SELECT $6, $7, $8, $9, $10, $11 FROM inserted WHERE $6::text IS NOT NULL
  ON CONFLICT (scope) DO UPDATE SET pid = EXCLUDED.pid, host = EXCLUDED.host, session = EXCLUDED.session, since = EXCLUDED.since, backend_pid = EXCLUDED.backend_pid
  RETURNING scope
)
SELECT (SELECT seq FROM inserted)::text AS seq, (SELECT count(*) FROM held)::int AS held`;

/** Every filter of RowFilter; a NULL parameter leaves its condition out (pg sends an undefined one, or an array's hole, as NULL). */
const READ_SQL = `
SELECT id, seq::text AS place, entry FROM hedge.entries
WHERE ($1::text IS NULL OR id = $1)
  AND ($2::text IS NULL OR left(id, length($2)) = $2)
  AND ($3::boolean IS NOT TRUE OR outcome IN (${UNRESOLVED_SQL}))
  AND ($4::timestamptz IS NULL OR created_at >= $4)
  AND ($5::timestamptz IS NULL OR created_at < $5)
  AND ($6::text IS NULL OR (environment = $6 AND base_url_host = $7 AND key_id = $8 AND command = $9 AND body_canonical = $10))
  AND ($12::text IS NULL OR idempotency_key = $12)
  AND ($13::text IS NULL OR right(id, length($13)) = $13)
  AND ($14::text IS NULL OR group_id = $14)
  AND ($15::text IS NULL OR entry->>'hedge_id' = $15 OR entry#>>'{context,rolled_hedge_id}' = $15)
  AND ($16::text IS NULL OR side = $16 OR side IS NULL)
  AND ($17::bigint IS NULL OR seq < $17)
ORDER BY seq DESC
LIMIT $11`;

/** A change folded into the row; `fresh` ($5) raises the revision to at least a migrated record's. */
const CHANGE_SQL = `
UPDATE hedge.entries
SET entry = entry || $2::jsonb || jsonb_build_object('revision', greatest(revision + 1, $5::bigint)),
    revision = greatest(revision + 1, $5::bigint), outcome = coalesce($3, outcome), updated_at = $4
WHERE id = $1
RETURNING id, entry`;

/** A heartbeat written whole; its revision counted by the store; its time the store's own. */
const WRITE_HEARTBEAT_SQL = `
INSERT INTO hedge.keeper_heartbeats AS h (scope, body, revision, written_at) VALUES ($1, $2::jsonb, 1, clock_timestamp())
ON CONFLICT (scope) DO UPDATE SET body = EXCLUDED.body, revision = h.revision + 1, written_at = EXCLUDED.written_at
RETURNING revision::text AS revision`;

const READ_HEARTBEAT_SQL = `
SELECT body, revision::text AS revision, greatest(0, extract(epoch FROM clock_timestamp() - written_at) * 1000)::float8 AS age_ms
FROM hedge.keeper_heartbeats WHERE scope = $1`;

/** A heartbeat is written every cycle: a store slower than this is a failed write (an `error` event), never a stuck keeper. */
const HEARTBEAT_QUERY_TIMEOUT_MS = 5_000;

/** An accounting store's head and, unless they pass `$2` bytes (what its reader accepts), its records' lines in seq
 * order (each ending in a newline), in one statement: one snapshot, so the head and the records are the same
 * transaction's. */
const ACCT_READ_SQL = `
SELECT (SELECT json_build_object('count', count, 'hash', hash) FROM hedge.acct_heads WHERE store = $1) AS head,
  r.bytes::text AS bytes,
  CASE WHEN r.bytes <= $2 THEN (SELECT string_agg(line || E'\n', '' ORDER BY seq) FROM hedge.acct_records WHERE store = $1) END AS lines
FROM (SELECT coalesce(sum(octet_length(line) + 1), 0) AS bytes FROM hedge.acct_records WHERE store = $1) r`;

/** An accounting store's head with its parts, how many records it holds and the one its head names last, in one
 * statement (one snapshot). */
const ACCT_HEAD_READ_SQL = `
SELECT h.count::text AS count, h.hash, h.parts,
  (SELECT count(*) FROM hedge.acct_records r WHERE r.store = $1)::text AS held,
  (SELECT line FROM hedge.acct_records r WHERE r.store = $1 AND r.seq = h.count) AS last
FROM hedge.acct_heads h WHERE h.store = $1`;

/** The lines of the parts `$2` among the store's first `$3` records, each part's unless they pass `$4` bytes. */
const ACCT_PARTS_SQL = `
SELECT p.part, p.bytes::text AS bytes,
  CASE WHEN p.bytes <= $4 THEN (SELECT string_agg(line || E'\n', '' ORDER BY seq) FROM hedge.acct_records r
    WHERE r.store = $1 AND r.part = p.part AND r.seq <= $3) END AS lines
FROM (SELECT part, sum(octet_length(line) + 1) AS bytes FROM hedge.acct_records
  WHERE store = $1 AND part = ANY($2) AND seq <= $3 GROUP BY part) p`;

/** Records `$3` (their parts `$4`) numbered on from `$2` + 1: a seq another writer took is a unique violation, and
 * nothing is recorded. */
const ACCT_INSERT_SQL = `
INSERT INTO hedge.acct_records (store, seq, line, part)
SELECT $1, $2::bigint + n, line, part FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS added(line, part, n)`;

/** Each record's part (`$2`, from the first), where it has another or none (an older hedge's rows). */
const ACCT_PARTS_SET_SQL = `
UPDATE hedge.acct_records r SET part = t.part FROM unnest($2::text[]) WITH ORDINALITY AS t(part, seq)
WHERE r.store = $1 AND r.seq = t.seq AND r.part IS DISTINCT FROM t.part`;

/** The head moved on, with its parts, only from the count the writer read (`$4`): 0 rows when another moved it
 * meanwhile. */
const ACCT_HEAD_SQL = `
INSERT INTO hedge.acct_heads AS h (store, count, hash, parts) VALUES ($1, $2, $3, $5)
ON CONFLICT (store) DO UPDATE SET count = EXCLUDED.count, hash = EXCLUDED.hash, parts = EXCLUDED.parts
  WHERE h.count = $4::bigint
RETURNING store`;

/** What `hedge journal migrate` did with one local entry. */
type ImportOutcome =
  | 'added'
  /** In the store, and the local record knew more (a later revision, or a fallback record): merged in. */
  | 'merged'
  | 'present'
  /** The store holds another action under this id (a different idempotency key): left alone. */
  | 'conflict';

/** The journal on the team store, and what only it does (isTeamJournal tells it from the file journal). */
export function openPostgresJournal(options: TeamJournalOptions) {
  /** The store's two sessions, which hold its locks too. */
  const locker = postgresSessions(options);
  const records = postgresRecords(locker, options);
  return Object.assign(clientJournal(records, locker, options), {
    kind: 'postgres' as const,

    /** The keeper's heartbeats, which every machine of the desk reads: stored as given once a key is refused. */
    keeperHeartbeats: {
      write: async (scope: string, body: object) => {
        refuseKeyShaped(body, 'write a keeper heartbeat');
        const rows = await locker.query<{ revision: string }>(
          {
            text: WRITE_HEARTBEAT_SQL,
            values: [scope, JSON.stringify(body)],
            query_timeout: HEARTBEAT_QUERY_TIMEOUT_MS,
          },
          "writing the keeper's heartbeat",
        );
        return { revision: Number(rows[0].revision) };
      },
      read: async (scope: string) => {
        const [row] = await locker.query<{ body: string; revision: string; age_ms: number }>(
          { text: READ_HEARTBEAT_SQL, values: [scope] },
          "reading the keeper's heartbeat",
        );
        const body = row && readRow(row.body, ANY_ROW, HEARTBEAT_BOUNDS);
        if (!body || typeof body === 'string') return;
        return { body, revision: Number(row.revision), ageMs: Math.round(Number(row.age_ms)) };
      },
    },

    /** The accounting records of each environment's store (acct-store.ts seals and checks them). */
    acctRecords: postgresAcctRecords(locker),

    /** Brings the schema up to date (also done on first use); the versions applied. */
    async migrateSchema() {
      const { client: data } = await locker.connect('data');
      try {
        return await migrateSchema(locker.statementsOn(data), `${locker.host} pid ${process.pid}`);
      } catch (error) {
        throw locker.storeError(error, 'creating or updating its schema');
      } finally {
        await data.end().catch(() => undefined);
      }
    },

    /** Adds or merges one entry of a local journal in one transaction: added, merged (when it knows more:
     * knowsMore, below), or left (idempotent: importing it again changes nothing). */
    async importEntry(local: JournalEntry) {
      const data = locker.statementsOn(await locker.data());
      const target = local.fallback_for?.id ?? local.id;
      try {
        await data('BEGIN');
        const found = await data<StoredRow>(`SELECT id, entry FROM hedge.entries WHERE id = $1 FOR UPDATE`, [target]);
        const existing = records.entries(found.rows)[0];
        let outcome: ImportOutcome = 'present';
        if (!found.rows.length) {
          // Its place and revision are the store's (a local seq counts another journal).
          const { fallback_for, seq, revision, ...fields } = local;
          const entry = plainJson({ ...fields, id: target, host: fields.host ?? locker.host }) as JournalEntry;
          const inserted = await data<{ seq: string | null }>(
            INSERT_SQL,
            insertValues(entry, 'migrated', importedRevision(local)),
          );
          // Another migrate added it a moment ago: that one's row stands.
          if (inserted.rows[0]?.seq != null) outcome = 'added';
        } else if (!existing || existing.idempotency_key !== local.idempotency_key) {
          // Another action's row (another key, or one that cannot be read: as far as anyone can tell): left alone.
          outcome = 'conflict';
        } else if (knowsMore(local, existing)) {
          await data(CHANGE_SQL, [
            target,
            JSON.stringify({ ...outcomeFields(local), updated_at: local.updated_at }),
            local.outcome,
            local.updated_at,
            importedRevision(local),
          ]);
          outcome = 'merged';
        }
        await data('COMMIT');
        return { outcome, id: target };
      } catch (error) {
        await data('ROLLBACK').catch(() => undefined);
        throw locker.storeError(error, 'moving the local journal in');
      }
    },
  });
}

export type PostgresJournal = ReturnType<typeof openPostgresJournal>;

/** The accounting records' rows (hedge.acct_records, hedge.acct_heads) on the data session. */
function postgresAcctRecords(locker: PostgresSessions) {
  return {
    async read(store: string, maxBytes: number) {
      const [row] = await locker.query<{ head: string | null; bytes: string; lines: string | null }>(
        { text: ACCT_READ_SQL, values: [store, maxBytes] },
        'reading the accounting records',
      );
      return { head: row.head ?? undefined, bytes: Number(row.bytes), lines: row.lines ?? undefined };
    },
    /** The head, the parts it describes (none: an older hedge's), how many records there are and the last one's line. */
    async readHead(store: string) {
      const [row] = await locker.query<{
        count: string;
        hash: string;
        parts: string | null;
        held: string;
        last: string | null;
      }>({ text: ACCT_HEAD_READ_SQL, values: [store] }, 'reading the accounting records');
      return (
        row && {
          count: Number(row.count),
          hash: row.hash,
          parts: row.parts ?? undefined,
          held: Number(row.held),
          last: row.last ?? undefined,
        }
      );
    },
    /** The lines of each part named among the first `count` records (none for a part past `maxBytes`). */
    async readParts(store: string, parts: readonly string[], count: number, maxBytes: number) {
      const rows = await locker.query<{ part: string; bytes: string; lines: string | null }>(
        { text: ACCT_PARTS_SQL, values: [store, parts, count, maxBytes] },
        'reading the accounting records',
      );
      return rows.map((row) => ({ part: row.part, bytes: Number(row.bytes), lines: row.lines ?? undefined }));
    },
    /** `lines` after the `count` records read, and the head past them, in one transaction: all or none; with the parts
     * of the lines and those the head describes (`reparted`: every record's part, given again). */
    async append(
      store: string,
      count: number,
      lines: string[],
      hash: string,
      parts?: { of: string[]; described: string; reparted?: string[] },
    ) {
      const data = locker.statementsOn(await locker.data());
      let doing = 'recording the accounting records; nothing was recorded';
      try {
        await data('BEGIN');
        if (parts?.reparted) await data(ACCT_PARTS_SET_SQL, [store, parts.reparted]);
        await data(ACCT_INSERT_SQL, [store, count, lines, parts?.of ?? lines.map(() => null)]);
        const moved = await data(ACCT_HEAD_SQL, [store, count + lines.length, hash, count, parts?.described ?? null]);
        if (moved.rowCount !== 1) throw new Error(`another writer moved the head of "${store}" meanwhile`);
        doing = 'committing the accounting records; whether they were recorded is unknown: `hedge acct log` shows';
        await data('COMMIT');
      } catch (error) {
        await data('ROLLBACK').catch(() => undefined);
        throw locker.storeError(error, doing);
      }
    },
  };
}

/** A row as the data session returns it: its JSON as text (postgres-sessions.ts), read here within the journal's bounds. */
interface StoredRow {
  id: string;
  entry: string;
}

/** The records client: rows of hedge.entries on the data session. */
function postgresRecords(
  sessions: PostgresSessions,
  { shown: location, fallbackDir, now, onSkip }: TeamJournalOptions,
) {
  /** Where an update goes when the store fails after a send: the local file journal. */
  const fallback = fallbackRecords(location, () => openJournal({ dir: fallbackDir, now, onSkip }));
  /** The rows that read as entries (each kept as known: what a fallback record starts from); any other is skipped and told, naming it. */
  const entries = (rows: StoredRow[]) =>
    rows.flatMap((row) => {
      const entry = readRow(row.entry, ENTRY) as JournalEntry | string;
      if (typeof entry === 'string') {
        onSkip?.({ store: location, row: row.id, reason: entry });
        return [];
      }
      fallback.known.set(entry.id, entry);
      return [entry];
    });
  return {
    location,
    entries,

    /** The row and its holder's row in one statement, once the entry's advisory lock is taken (no one sees it unheld). */
    async append(entry: JournalEntry, seal?: RowSeal) {
      refuseUnreadable(JSON.stringify(entry));
      const [, { backendPid }] = await Promise.all([sessions.data(), sessions.locks()]);
      const scope = scopeText({ entry: entry.id });
      if (!(await sessions.holdNew(scope))) return;
      const { pid, host, session, since } = entry.holder!;
      let seq;
      try {
        // A sealed row's seq is taken first: the seal covers it.
        const taken = seal ? (await sessions.query<{ seq: string }>({ text: NEXT_SEQ_SQL }))[0].seq : null;
        if (seal) entry = { ...entry, seal: seal({ ...entry, seq: Number(taken) }) };
        const values = insertValues(entry, 'store', 1, taken, [scope, pid, host, session, since, backendPid]);
        seq = (await sessions.query<{ seq: string | null }>({ text: INSERT_SQL, values }))[0]?.seq;
      } catch (error) {
        await sessions.dropNew(scope).catch(() => undefined);
        throw sessions.storeError(error, 'recording the action');
      }
      if (seq == null) return void (await sessions.dropNew(scope));
      const recorded = { ...entry, seq: Number(seq), revision: 1 };
      fallback.known.set(recorded.id, recorded);
      return recorded;
    },

    change(id: string, patch: JournalPatch, at: string) {
      const values = [id, JSON.stringify({ ...patch, updated_at: at }), patch.outcome, at, 0];
      return fallback.change(
        id,
        patch,
        async () =>
          entries(await sessions.query<StoredRow>({ text: CHANGE_SQL, values }, 'recording what happened'))[0],
      );
    },

    read: (filter: RowFilter) => readRows(filter).then(({ entries }) => entries),

    /** A page of rows at a time, each after the last one's seq. */
    async *each(filter: RowFilter) {
      for (let before: string | undefined; ;) {
        const page = await readRows({ ...filter, limit: PAGE_ROWS }, before);
        yield* page.entries;
        if (page.rows < PAGE_ROWS) return;
        before = page.last;
      }
    },
  };

  /** The rows of `filter`, those before seq `before` when given: its entries, how many rows, the last one's seq. */
  async function readRows({ request, ...filter }: RowFilter, before?: string) {
    // Only a write asks for the same request, and a write's append needs the lock session too.
    if (request) sessions.locks().catch(() => undefined);
    const iso = (ms?: number) => (ms === undefined ? null : new Date(ms).toISOString());
    const sameRequest = request
      ? [request.environment, request.base_url_host, request.key_id, request.command, canonicalJson(request.body)]
      : Array(5);
    const values = [
      filter.id,
      filter.idPrefix,
      filter.pending === true,
      iso(filter.since),
      iso(filter.until),
      ...sameRequest,
      filter.limit,
      filter.idempotencyKey,
      filter.idSuffix,
      filter.group,
      filter.hedge,
      filter.side,
      before,
    ];
    const rows = await sessions.query<StoredRow & { place: string }>({ text: READ_SQL, values }, 'reading the journal');
    const read = entries(rows);
    // A row written before the store kept its side (side is null) is told by its request.
    return {
      entries: filter.side === undefined ? read : read.filter(rowTest({ side: filter.side })),
      rows: rows.length,
      last: rows.at(-1)?.place,
    };
  }
}

/** Rows a page of the store's holds: what a reader of the whole of history holds at once. */
const PAGE_ROWS = 500;

/** INSERT_SQL's values: the entry, its canonical body, origin, revision and seq taken, and its holder's row (none when absent). */
function insertValues(
  entry: JournalEntry,
  origin: 'store' | 'migrated',
  revision: number,
  seq: string | null = null,
  holder: unknown[] = Array(6),
) {
  return [JSON.stringify(entry), canonicalJson(entry.request?.body), origin, revision, seq, ...holder, sideOf(entry)];
}

// A local record of a team entry, written when the team store fails after a send and merged back by `hedge journal
// migrate` by revisions (knowsMore), never by the clocks of the machines that wrote them.
/** `store`: the store as shown (password redacted); `openLocal`: the local file journal, opened on the first fallback. */
function fallbackRecords(store: string, openLocal: () => ReturnType<typeof openJournal>) {
  let local: ReturnType<typeof openJournal> | undefined;
  /** Team entry id → the id of its local fallback record. */
  const ids = new Map<string, string>();
  /** Entries this process has read or written: what a fallback record starts from. */
  const known = new Map<string, JournalEntry>();
  /** Set once the store failed on an update: later updates of this run go to the fallback at once. */
  let failure: JournalStoreError | undefined;

  /** The fallback record of `id`: what it would send, then what the store had learnt before it failed. */
  async function start(journal: ReturnType<typeof openJournal>, id: string) {
    const base = known.get(id);
    if (!base) throw new JournalError(`this run never read entry ${id}`);
    const { id: _id, created_at, updated_at, holder, outcome, seq, revision, ...fields } = base;
    for (const field of PATCH_FIELDS) delete (fields as JsonObject)[field];
    const begun = await journal.begin({
      ...fields,
      outcome: outcome === 'planned' ? 'planned' : 'pending',
      // An unknown revision is left out (begin keeps what JSON keeps).
      fallback_for: { id, store, revision },
    });
    ids.set(id, begun.id);
    const had = outcomeFields(base);
    if (Object.keys(had).length) await journal.update(begun.id, had);
    return begun.id;
  }

  return {
    known,
    /** The store's change of the entry `id`; a store that fails after the request may have left: what `change` says is then kept in the local journal, and the failure thrown. */
    async change(id: string, change: JournalPatch, inStore: () => Promise<JournalEntry | undefined>) {
      /** A signal that ended the store's statement: what happened is kept locally all the same. */
      let stopped: InterruptedError | undefined;
      if (!failure)
        try {
          return await inStore();
        } catch (error) {
          if (error instanceof InterruptedError) stopped = error;
          else if (!(error instanceof JournalStoreError)) throw error;
          else failure = error;
        }
      let kept;
      try {
        local ??= openLocal();
        const localId = ids.get(id) ?? (await start(local, id));
        await local.update(localId, outcomeFields(change));
        kept = `; what happened to ${id} is kept in the local journal ${local.file} (fallback record ${localId}): \`hedge journal migrate\` merges it into the team store once the store is back`;
      } catch (error) {
        kept = `, and the local fallback record could not be written either (${(error as Error).message})`;
      }
      if (stopped)
        throw Object.assign(new InterruptedError(`${stopped.message.replace(/\.$/, '')}${kept}.`), {
          exitCode: stopped.exitCode,
        });
      const { message, hint } = failure!;
      throw new JournalStoreError(`${message.replace(/\.$/, '')}${kept}.`, { store, hint, cause: failure });
    },
  };
}

function outcomeFields(record: Partial<JournalEntry>) {
  return withoutUndefined(Object.fromEntries(PATCH_FIELDS.map((field) => [field, record[field]])));
}

function knowsMore(local: JournalEntry, stored: JournalEntry) {
  // Of a finished copy and an unfinished one, the finished one knows more.
  if (isUnresolved(stored) !== isUnresolved(local)) return isUnresolved(stored);
  const storedRevision = stored.revision ?? 1;
  // A fallback record from before revisions were kept continues from nothing known: the store's copy stands.
  if (local.fallback_for) return storedRevision <= (local.fallback_for.revision ?? 0);
  return (local.revision ?? 1) > storedRevision;
}

/** The revision a local record brings into the store: a fallback record is one change past the revision it continued from. */
function importedRevision(local: JournalEntry) {
  if (local.fallback_for) return (local.fallback_for.revision ?? 0) + 1;
  return local.revision ?? 1;
}
