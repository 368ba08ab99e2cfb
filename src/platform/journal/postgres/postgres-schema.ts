import type { ClientBase } from 'pg';

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
];

export const LATEST_VERSION = MIGRATIONS.at(-1)!.version;

/** The schema's version as the database has it (0 when hedge never ran there); one newer than this hedge knows is refused. */
async function schemaVersion(client: ClientBase) {
  const present = await client.query<{ present: boolean }>(
    `SELECT to_regclass('hedge.schema_migrations') IS NOT NULL AS present`,
  );
  const version = present.rows[0]?.present
    ? ((await client.query<{ version: number | null }>(`SELECT max(version) AS version FROM hedge.schema_migrations`))
        .rows[0]?.version ?? 0)
    : 0;
  if (version > LATEST_VERSION) throw new SchemaTooNewError(version);
  return version;
}

export class SchemaTooNewError extends Error {
  constructor(readonly found: number) {
    super(`schema version ${found} is newer than this hedge knows (${LATEST_VERSION})`);
  }
}

/** Brings the schema to LATEST_VERSION; returns the versions it applied (none when it was current). */
export async function migrateSchema(client: ClientBase, appliedBy: string) {
  if ((await schemaVersion(client)) === LATEST_VERSION) return [];
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [MIGRATION_LOCK]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS hedge`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS hedge.schema_migrations (
         version     integer PRIMARY KEY,
         description text NOT NULL,
         applied_at  timestamptz NOT NULL DEFAULT now(),
         applied_by  text NOT NULL
       )`,
    );
    const current = await schemaVersion(client);
    const applied: number[] = [];
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      await client.query(migration.sql);
      await client.query(`INSERT INTO hedge.schema_migrations (version, description, applied_by) VALUES ($1, $2, $3)`, [
        migration.version,
        migration.description,
        appliedBy,
      ]);
      applied.push(migration.version);
    }
    await client.query('COMMIT');
    return applied;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
