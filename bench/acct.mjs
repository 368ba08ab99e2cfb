// Accounting over a long store, for `npm run bench` (or alone: `node bench/acct.mjs` after `npm run build`): `hedge
// acct rates --record`, `acct test` and `acct close` on a fresh store (a relationship and its rates: the documented
// example) and on the same store after ten years of daily rates recorded on thirteen markets (50,000 records), on the
// file store and on the team store (a throwaway PostgreSQL started as the test suite starts it: Debian's postgresql-15;
// without it, the file store alone), against a `hedge sandbox serve`. Each run on a copy of the store made for it (a
// close or a record changes it: a folder copied, a database made from the store's), its CPU (user + system) and peak
// memory by GNU time, in rounds over the stores, after one import on each that a build may use to bring an older
// store up to its own. Not a test: nothing fails on time.
//   BENCH_ACCT_RECORDS  records of the long store (default 50000)
//   BENCH_ACCT_RUNS     runs of each command on each store (default 5)
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  fromSource,
  HEDGE,
  median,
  run,
  runAlone,
  startSandbox,
  stopSandbox,
  teamStore,
  timedHedge,
  untimed,
} from './kit.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RECORDS = Number(process.env.BENCH_ACCT_RECORDS ?? '50000');
const RUNS = Number(process.env.BENCH_ACCT_RUNS ?? '5');
const MARKETS = ['NGN', 'KES', 'GHS', 'EGP', 'ZAR', 'XOF', 'UGX', 'TZS', 'MAD', 'ETB', 'RWF', 'ZMW', 'MWK'];
const COMMANDS = {
  'rates --record': ['acct', 'rates', '--record', '--market', 'USDTNGN'],
  test: ['acct', 'test', 'EUR-SALE-1', '--as-of', '2019-02-01'],
  close: ['acct', 'close', '--period', '2018-10'],
};

/** `records` with `count` more: a daily `rates --record` of each market over the years before today, chained on. */
async function longer(records, count) {
  const { canonicalJson: canonical } = await fromSource('src/core/files/canonical-json.ts', ['canonicalJson']);
  const day = 86_400_000;
  const first = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate()) - day;
  for (let index = 0; index < count; index++) {
    const market = `USDT${MARKETS[index % MARKETS.length]}`;
    const date = new Date(first - Math.floor(index / MARKETS.length) * day).toISOString().slice(0, 10);
    const at = `${date}T16:00:00.000Z`;
    const prev = records.at(-1)?.hash ?? '';
    const fields = {
      seq: records.length + 1,
      kind: 'rates',
      recorded_at: at,
      body: {
        market,
        quote: `${market.slice(4)} per USDT`,
        rows: [
          {
            date,
            spot: (1000 + (index % 997) / 7).toFixed(3),
            forward: '',
            discount_factor: '',
            source: `mid price, GET /prices at https://api.partner.example/partners/v2 (${at})`,
            at,
            carry: {},
          },
        ],
      },
    };
    const hash = createHash('sha256')
      .update(prev + canonical(fields))
      .digest('hex');
    records.push({ ...fields, prev, hash });
  }
  return records;
}

/** The store in `folder` with `count` more records (`longer`), written as an older hedge kept a store (one document)
 * with its head. */
export async function lengthen(folder, count) {
  const text = readFileSync(join(folder, 'records.json'), 'utf8');
  // Written as one document or a record a line (a build's own), rewritten as an older hedge kept it: one document.
  const records = await longer(
    text.startsWith('{"records":')
      ? JSON.parse(text).records
      : text
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line)),
    count,
  );
  writeFileSync(
    join(folder, 'records.json'),
    `{"records":[\n${records.map((r) => JSON.stringify(r)).join(',\n')}\n]}\n`,
  );
  writeFileSync(join(folder, 'head.json'), `${JSON.stringify({ count: records.length, hash: records.at(-1).hash })}\n`);
}

/** The one store in the team store at `url` with `count` more records (`longer`), its head as an older hedge kept it. */
async function lengthenTeam(url, count) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const rows = (await client.query('SELECT store, line FROM hedge.acct_records ORDER BY seq')).rows;
    const records = await longer(
      rows.map((row) => JSON.parse(row.line)),
      count,
    );
    const lines = records.slice(rows.length).map((record) => JSON.stringify(record));
    await client.query('BEGIN');
    await client.query(
      'INSERT INTO hedge.acct_records (store, seq, line) SELECT $1, $2::bigint + n, line FROM unnest($3::text[]) WITH ORDINALITY AS t(line, n)',
      [rows[0].store, rows.length, lines],
    );
    await client.query('UPDATE hedge.acct_heads SET count = $2, hash = $3 WHERE store = $1', [
      rows[0].store,
      records.length,
      records.at(-1).hash,
    ]);
    await client.query('COMMIT');
    await client.query('ANALYZE hedge.acct_records');
  } finally {
    await client.end();
  }
}

/** The case's table (lines of Markdown), run with `node` in `env` (a private HOME). */
export async function acctCase(node, env) {
  const why = untimed();
  if (why) return [`Accounting over a long store: not timed (${why}).`];
  const work = mkdtempSync(join(tmpdir(), 'hedge-acct-'));
  const sandbox = await startSandbox(node, env);
  const team = await teamStore(work).catch((error) => ({ missing: error.message }));
  const envOf = (config, url) => ({
    ...env,
    ...sandbox.env,
    HEDGE_CONFIG_DIR: config,
    ...(url && { HEDGE_JOURNAL_URL: url }),
  });
  try {
    const hedge = (config, url, args) => run(node, [HEDGE, ...args], { env: envOf(config, url) });
    /** A store of the documented relationship and its rates: on the file store (`url` none) or the team store. */
    const made = async (config, url) => {
      await hedge(config, url, [
        'acct',
        'designate',
        join(ROOT, 'docs/examples/relationship.json'),
        '--recorded-late',
        'bench',
      ]);
      await hedge(config, url, [
        'acct',
        'rates',
        join(ROOT, 'docs/examples/rates-eurusd.csv'),
        '--market',
        'EURUSD',
        '--quote',
        'USD per EUR',
      ]);
    };
    const long = `${RECORDS.toLocaleString('en')} records`;
    const stores = [];
    const fresh = join(work, 'fresh');
    await made(fresh);
    cpSync(fresh, join(work, 'long'), { recursive: true });
    const folderOf = (config) => join(config, 'acct', readdirSync(join(config, 'acct'))[0]);
    await lengthen(folderOf(join(work, 'long')), RECORDS - 2);
    stores.push(
      { kind: 'file', size: 'fresh', config: fresh },
      { kind: 'file', size: long, config: join(work, 'long') },
    );
    if (team.server) {
      const database = (url) => new URL(url).pathname.slice(1);
      for (const size of ['fresh', long]) {
        const url = await team.server.createDatabase();
        await made(join(work, `team-${stores.length}`), url);
        if (size !== 'fresh') await lengthenTeam(url, RECORDS - 2);
        stores.push({ kind: 'team', size, config: join(work, `team-${stores.length}`), url, database: database(url) });
      }
    }
    // One import on each, which a build may use to bring an older store up to its own.
    const extra = join(work, 'extra.csv');
    writeFileSync(extra, 'date,spot,forward,discount_factor,source\n2018-10-15,0.88,0.88,1,bench\n');
    for (const store of stores)
      await hedge(store.config, store.url, ['acct', 'rates', extra, '--market', 'EURGBP', '--quote', 'GBP per EUR']);
    const timed = new Map(stores.map((store) => [store, {}]));
    let copy = 0;
    for (let round = 0; round < RUNS; round++)
      for (const [command, args] of Object.entries(COMMANDS))
        for (const store of round % 2 ? [...stores].reverse() : stores) {
          // A copy of the store made for the run: a folder copied, or a database made from the store's.
          const target = join(work, `run-${(copy += 1)}`);
          cpSync(store.config, target, { recursive: true });
          let url;
          if (store.url) {
            const name = `${store.database}_${copy}`;
            await team.server.query('postgres', `CREATE DATABASE ${name} TEMPLATE ${store.database}`);
            url = store.url.replace(/\/[^/]+$/, `/${name}`);
          }
          (timed.get(store)[command] ??= []).push(await timedHedge(node, args, envOf(target, url), work));
          rmSync(target, { recursive: true, force: true });
          if (url) await team.server.query('postgres', `DROP DATABASE ${new URL(url).pathname.slice(1)}`);
        }
    const none = team.missing ? ` The team store was not timed: ${team.missing}` : '';
    const lines = [
      `Accounting over a long store: each command on a copy of the store made for it, ${RUNS} runs in rounds; CPU = user + system of the hedge process, wall = elapsed, peak memory = maximum resident set, medians (range).${none}`,
      '',
      '| command | store | records | CPU | × fresh | wall | peak memory | × fresh |',
      '|---|---|---|---:|---:|---:|---:|---:|',
    ];
    const range = (values, digits) =>
      `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;
    for (const command of Object.keys(COMMANDS))
      for (const store of stores) {
        const runs = timed.get(store)[command];
        const base = timed.get(stores.find((each) => each.kind === store.kind && each.size === 'fresh'))[command];
        const of = (key, list = runs) => list.map((each) => each[key]);
        lines.push(
          `| \`acct ${command}\` | ${store.kind} | ${store.size} | ${range(of('cpu'), 2)} s | ${(median(of('cpu')) / median(of('cpu', base))).toFixed(2)} | ${range(of('wall'), 2)} s | ${range(of('mb'), 1)} MB | ${(median(of('mb')) / median(of('mb', base))).toFixed(2)} |`,
        );
      }
    return lines;
  } finally {
    await stopSandbox(sandbox.server);
    await team.stop?.();
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runAlone(acctCase);
