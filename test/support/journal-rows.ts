// Journal rows written as someone with access to a journal (a copied file, the team store's tables)
// would write them, for the tests of what hedge sends again: one appended to a machine's local file,
// one inserted into the team store, and a replay of a genuine row.
import { randomBytes } from 'node:crypto';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PostgresServer } from './servers/postgres.js';
import type { Team } from './team.js';

/** Puts a row straight into the team store's table, with no holder, as a hostile writer would (its `entry` the row, or the JSON text given). */
export async function insertRow(
  server: PostgresServer,
  team: Pick<Team, 'database'>,
  row: Record<string, unknown>,
  entry = JSON.stringify(row),
) {
  await server.query(
    team.database,
    `INSERT INTO hedge.entries (id, created_at, updated_at, outcome, environment, base_url_host, key_id, command, idempotency_key, group_id, leg, body_canonical, host, profile, entry)
     VALUES ($1, $2, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, NULL, $13::jsonb)`,
    [
      row.id,
      row.created_at,
      row.outcome,
      row.environment,
      row.base_url_host,
      row.key_id,
      row.command,
      row.idempotency_key,
      row.group ?? null,
      row.leg ?? null,
      JSON.stringify((row.request as { body: unknown }).body),
      row.host,
      entry,
    ],
  );
}

/** Where `nestedJson` puts its nesting: a string value, once, anywhere in the value. */
export const NESTED_HERE = 'nested-here';

/** `value` as JSON text with NESTED_HERE replaced by arrays `depth` deep (too deep for JSON.stringify to write, or for a recursive walk to read). */
export function nestedJson(value: unknown, depth: number) {
  return JSON.stringify(value).replace(`"${NESTED_HERE}"`, `${'['.repeat(depth)}${']'.repeat(depth)}`);
}

/** Appends a row to a machine's local journal file (beside its config under HEDGE_CONFIG_DIR) as one creation event, begun as hedge begins one. */
export function appendRow(configDir: string, row: Record<string, unknown>) {
  const { created_at: at, updated_at: _updated, ...fields } = row;
  const stamp = { id: fields.id, at, ...(fields.seq === undefined ? {} : { seq: fields.seq }) };
  appendFileSync(join(configDir, 'journal.jsonl'), `${JSON.stringify({ ...stamp, ...fields })}\n`, { mode: 0o600 });
}

/** The next seq of a machine's local journal file. */
export function nextSeq(configDir: string) {
  const text = readFileSync(join(configDir, 'journal.jsonl'), 'utf8');
  return Math.max(0, ...[...text.matchAll(/"seq":(\d+)/g)].map((match) => Number(match[1]))) + 1;
}

/**
 * A genuine row replayed: copied whole, seal and all, under a new id, a later time and the next
 * seq, set back to `unknown`, with what its answer and landing added dropped.
 */
export function replayOf(row: Record<string, unknown>, seq: number) {
  const {
    hedge_id: _hedge,
    order_tx_hash: _tx,
    resolved_at: _resolved,
    side_after: _after,
    holder: _holder,
    revision: _revision,
    seal_check: _check,
    message: _message,
    ...kept
  } = row;
  const at = new Date().toISOString();
  return {
    ...kept,
    id: `a_${randomBytes(5).toString('hex')}`,
    seq,
    created_at: at,
    updated_at: at,
    outcome: 'unknown',
    holder: null,
  };
}
