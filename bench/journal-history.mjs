// A journal of N finished actions, as a desk's years of writes leave it: for timing a write over a long history
// (bench/history.mjs) or by hand. Not a test.
//
//   node bench/journal-history.mjs --actions 100000 --dir DIR        the local file journal in DIR (HEDGE_CONFIG_DIR)
//   node bench/journal-history.mjs --actions 100000 --url URL        the team store at URL (its schema made first)
//
// The rows are the account's own: HEDGE_API_KEY and HEDGE_BASE_URL (a `hedge sandbox serve`'s) name it, and each row
// is sealed under that key, as hedge seals its own. `--per-day` actions a day (default 80: 100,000 are three and a half
// years), the last one ended an hour before now, none unresolved. The file journal is as an older hedge's rotation
// leaves it: the newest `--active` (200) in journal.jsonl, the rest in journal-archive/ by the day each began, not
// indexed (the first write of a build that indexes them does, and rotates the active segment as that build does).
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { fromSource } from './kit.mjs';

const MARKETS = ['USDTNGN', 'USDTKES', 'USDTGHS', 'USDTEGP', 'USDTZAR'];
const PATHS = { open: '/hedges', add: '/hedges/add', reduce: '/hedges/reduce', close: '/hedges/close' };
const COMMANDS = ['open', 'add', 'add', 'reduce', 'close'];
const DAY_MS = 86_400_000;
const hex = (text, digits) => createHash('sha256').update(text).digest('hex').slice(0, digits);

/** `actions` finished actions of the account of `key` at `baseUrl`, oldest first: each its begin event and the two
 * after it (submitted, then done, filled or rejected), as hedge writes them. */
async function historyOf({ actions, key, baseUrl, perDay = 80 }) {
  const { rowSealer, keyFingerprint } = await fromSource('src/platform/journal/row-integrity.ts', [
    'rowSealer',
    'keyFingerprint',
  ]);
  const sealer = rowSealer(key);
  const keyId = keyFingerprint(key);
  const host = new URL(baseUrl).host;
  // A small deterministic random stream: two runs make the same journal but for times and keys.
  let state = 129;
  const random = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pick = (list) => list[Math.floor(random() * list.length)];
  const last = Date.now() - 3_600_000;
  const first = last - (actions / perDay) * DAY_MS;
  return Array.from({ length: actions }, (_, index) => {
    const n = index + 1;
    const time = Math.floor(first + (index / actions) * (last - first));
    const at = new Date(time).toISOString();
    const id = `a_${time.toString(36)}${hex(String(n), 4)}`;
    const command = pick(COMMANDS);
    const market = pick(MARKETS);
    const side = pick(['buy', 'sell']);
    const hedgeId = `hdg_${hex(`${market}${side}${Math.floor(n / 20)}`, 24)}`;
    const amount = 1000 * (1 + Math.floor(random() * 50));
    const body =
      command === 'close'
        ? { market, side }
        : command === 'open'
          ? { market, side, notional_usd: amount, tenor_days: pick([1, 3, 7]) }
          : { market, side, notional_usd: amount };
    const holder = { pid: 1000 + (n % 30000), host: hostname(), since: at, session: hex(`s${n}`, 12), start: `b:${n}` };
    const begin = {
      id,
      at,
      seq: n,
      environment: 'test',
      base_url_host: host,
      key_id: keyId,
      command,
      request: { method: 'POST', path: PATHS[command], body },
      idempotency_key: randomUUID(),
      context: { baseline_notional_usd: amount * 2, hedge_id: hedgeId, server_time_ms: time - 700 },
      argv: [command, market, side, ...(command === 'close' ? [] : [String(amount)])],
      outcome: 'pending',
      host: hostname(),
      holder,
    };
    begin.seal = sealer.seal({ ...begin, created_at: at });
    const sent = new Date(time + 8).toISOString();
    const ended = new Date(time + 1100).toISOString();
    const outcome = random() < 0.03 ? 'rejected' : command === 'open' ? 'filled' : 'done';
    const end =
      outcome === 'rejected'
        ? { id, at: ended, outcome, error_code: 'capacity_exceeded', message: 'rejected', resolved_at: ended }
        : {
            id,
            at: ended,
            outcome,
            resolved_at: ended,
            side_after: {
              hedge_ids: command === 'close' ? [] : [hedgeId],
              notional_usd: command === 'close' ? 0 : amount,
            },
          };
    const submitted = { id, at: sent, outcome: 'submitted', hedge_id: hedgeId, order_tx_hash: `0x${hex(id, 64)}` };
    return { at, begin, events: [submitted, end] };
  });
}

/** The file journal of `options` in `dir`: the newest `active` in its active segment, the rest in dated archives. */
export async function writeFileJournal(dir, { active = 200, ...options }) {
  const actions = await historyOf(options);
  mkdirSync(join(dir, 'journal-archive'), { recursive: true, mode: 0o700 });
  const linesOf = ({ begin, events }) => [begin, ...events].map((event) => JSON.stringify(event)).join('\n');
  const kept = Math.min(actions.length, active);
  const byDay = new Map();
  for (const action of actions.slice(0, actions.length - kept)) {
    const day = action.at.slice(0, 10);
    (byDay.get(day) ?? byDay.set(day, []).get(day)).push(linesOf(action));
  }
  for (const [day, lines] of byDay)
    writeFileSync(join(dir, 'journal-archive', `journal-${day}.jsonl`), `${lines.join('\n')}\n`, { mode: 0o600 });
  const segment = actions.slice(actions.length - kept).map(linesOf);
  writeFileSync(join(dir, 'journal.jsonl'), segment.length ? `${segment.join('\n')}\n` : '', { mode: 0o600 });
}

/** The same history in the team store at `url` (its schema made already: any hedge command on it makes it). */
export async function writeTeamJournal(url, options) {
  const actions = await historyOf(options);
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // The side as a store of schema version 5 keeps it (`MARKET side`); an older one has no such column.
    const { rowCount: sided } = await client.query(
      `SELECT 1 FROM information_schema.columns WHERE table_schema = 'hedge' AND table_name = 'entries' AND column_name = 'side'`,
    );
    await client.query('BEGIN');
    for (let from = 0; from < actions.length; from += 1000) {
      const rows = actions.slice(from, from + 1000).map(({ begin: { at, ...fields }, events }) =>
        Object.assign({ ...fields, created_at: at }, ...events.map(({ at: _, ...event }) => event), {
          updated_at: events.at(-1).at,
          revision: 1 + events.length,
        }),
      );
      await client.query(
        `INSERT INTO hedge.entries (id, created_at, updated_at, outcome, environment, base_url_host, key_id, command,
           idempotency_key, group_id, leg, body_canonical, host, profile, origin, entry, seq, revision${sided ? ', side' : ''})
         SELECT e->>'id', (e->>'created_at')::timestamptz, (e->>'updated_at')::timestamptz, e->>'outcome',
           e->>'environment', e->>'base_url_host', e->>'key_id', e->>'command', e->>'idempotency_key', e->>'group',
           e->>'leg', b, e->>'host', e->>'profile', 'store', e, (e->>'seq')::bigint, (e->>'revision')::bigint
           ${sided ? `, (e#>>'{request,body,market}') || ' ' || (e#>>'{request,body,side}')` : ''}
         FROM unnest($1::jsonb[], $2::text[]) AS t(e, b)`,
        [rows.map((row) => JSON.stringify(row)), rows.map(({ request: { body } }) => canonical(body))],
      );
    }
    await client.query(`SELECT setval('hedge.entries_seq', $1)`, [actions.length + 1]);
    await client.query('COMMIT');
    await client.query('ANALYZE hedge.entries');
  } finally {
    await client.end();
  }
}

/** canonicalJson for the bodies made here (flat objects of strings and numbers). */
const canonical = (body) =>
  JSON.stringify(
    Object.fromEntries(
      Object.keys(body)
        .sort()
        .map((name) => [name, body[name]]),
    ),
  );

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      actions: { type: 'string', default: '20000' },
      'per-day': { type: 'string', default: '80' },
      active: { type: 'string', default: '200' },
      dir: { type: 'string' },
      url: { type: 'string' },
    },
  });
  const { HEDGE_API_KEY: key, HEDGE_BASE_URL: baseUrl } = process.env;
  if (!key || !baseUrl || (!values.dir && !values.url)) {
    console.error(
      'usage: HEDGE_API_KEY=… HEDGE_BASE_URL=… node bench/journal-history.mjs --actions N (--dir D | --url U)',
    );
    process.exit(2);
  }
  const options = { actions: Number(values.actions), perDay: Number(values['per-day']), key, baseUrl };
  if (values.dir) await writeFileJournal(values.dir, { ...options, active: Number(values.active) });
  if (values.url) await writeTeamJournal(values.url, options);
  console.error(`${options.actions} finished actions written.`);
}
