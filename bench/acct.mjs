// Accounting over a long store, for `npm run bench` (or alone: `node bench/acct.mjs` after `npm run build`): `hedge
// acct rates --record`, `acct test` and `acct close` on a fresh store (a relationship and its rates: the documented
// example) and on the same store after ten years of daily rates recorded on thirteen markets (50,000 records), against
// a `hedge sandbox serve`. Each run on a copy of the store made for it (a close or a record changes it), its CPU (user
// + system) and peak memory by GNU time, in rounds over the stores, after one import on each that a build may use to
// bring an older store's file up to its own. Not a test: nothing fails on time.
//   BENCH_ACCT_RECORDS  records of the long store (default 50000)
//   BENCH_ACCT_RUNS     runs of each command on each store (default 5)
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fromSource, HEDGE, median, run, runAlone, startSandbox, stopSandbox, timedHedge, untimed } from './kit.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RECORDS = Number(process.env.BENCH_ACCT_RECORDS ?? '50000');
const RUNS = Number(process.env.BENCH_ACCT_RUNS ?? '5');
const MARKETS = ['NGN', 'KES', 'GHS', 'EGP', 'ZAR', 'XOF', 'UGX', 'TZS', 'MAD', 'ETB', 'RWF', 'ZMW', 'MWK'];
const COMMANDS = {
  'rates --record': ['acct', 'rates', '--record', '--market', 'USDTNGN'],
  test: ['acct', 'test', 'EUR-SALE-1', '--as-of', '2019-02-01'],
  close: ['acct', 'close', '--period', '2018-10'],
};

/** The store in `folder` with `count` more records: a daily `rates --record` of each market over the years before today,
 * chained on from its records, written as an older hedge kept a store (one document) with its head. */
export async function lengthen(folder, count) {
  const { canonicalJson: canonical } = await fromSource('src/core/files/canonical-json.ts', ['canonicalJson']);
  const text = readFileSync(join(folder, 'records.json'), 'utf8');
  // Written as one document or a record a line (a build's own), rewritten as an older hedge kept it: one document.
  const records = text.startsWith('{"records":')
    ? JSON.parse(text).records
    : text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
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
  writeFileSync(
    join(folder, 'records.json'),
    `{"records":[\n${records.map((r) => JSON.stringify(r)).join(',\n')}\n]}\n`,
  );
  writeFileSync(join(folder, 'head.json'), `${JSON.stringify({ count: records.length, hash: records.at(-1).hash })}\n`);
}

/** The case's table (lines of Markdown), run with `node` in `env` (a private HOME). */
export async function acctCase(node, env) {
  const why = untimed();
  if (why) return [`Accounting over a long store: not timed (${why}).`];
  const work = mkdtempSync(join(tmpdir(), 'hedge-acct-'));
  const sandbox = await startSandbox(node, env);
  const envOf = (config) => ({ ...env, ...sandbox.env, HEDGE_CONFIG_DIR: config });
  try {
    const hedge = (config, args) => run(node, [HEDGE, ...args], { env: envOf(config) });
    // The fresh store: the documented relationship and its rates.
    const fresh = join(work, 'fresh');
    await hedge(fresh, [
      'acct',
      'designate',
      join(ROOT, 'docs/examples/relationship.json'),
      '--recorded-late',
      'bench',
    ]);
    await hedge(fresh, [
      'acct',
      'rates',
      join(ROOT, 'docs/examples/rates-eurusd.csv'),
      '--market',
      'EURUSD',
      '--quote',
      'USD per EUR',
    ]);
    const long = join(work, 'long');
    cpSync(fresh, long, { recursive: true });
    const folderOf = (config) => join(config, 'acct', readdirSync(join(config, 'acct'))[0]);
    await lengthen(folderOf(long), RECORDS - 2);
    // One import on each, which a build may use to bring an older store's file up to its own.
    const extra = join(work, 'extra.csv');
    writeFileSync(extra, 'date,spot,forward,discount_factor,source\n2018-10-15,0.88,0.88,1,bench\n');
    for (const config of [fresh, long])
      await hedge(config, ['acct', 'rates', extra, '--market', 'EURGBP', '--quote', 'GBP per EUR']);
    const stores = { fresh, [`${RECORDS.toLocaleString('en')} records`]: long };
    const timed = {};
    let copy = 0;
    for (let round = 0; round < RUNS; round++)
      for (const [command, args] of Object.entries(COMMANDS))
        for (const [name, config] of round % 2 ? Object.entries(stores).reverse() : Object.entries(stores)) {
          const target = join(work, `run-${(copy += 1)}`);
          cpSync(config, target, { recursive: true });
          ((timed[command] ??= {})[name] ??= []).push(await timedHedge(node, args, envOf(target), work));
          rmSync(target, { recursive: true, force: true });
        }
    const lines = [
      `Accounting over a long store: each command on a copy of the store made for it, ${RUNS} runs in rounds; CPU = user + system, peak memory = maximum resident set, medians (range).`,
      '',
      '| command | store | CPU | × fresh | peak memory | × fresh |',
      '|---|---|---:|---:|---:|---:|',
    ];
    for (const [command, byStore] of Object.entries(timed)) {
      const base = byStore.fresh;
      for (const [name, runs] of Object.entries(byStore)) {
        const cpu = runs.map((each) => each.cpu);
        const mb = runs.map((each) => each.mb);
        const range = (values, digits) =>
          `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;
        lines.push(
          `| \`acct ${command}\` | ${name} | ${range(cpu, 2)} s | ${(median(cpu) / median(base.map((each) => each.cpu))).toFixed(2)} | ${range(mb, 1)} MB | ${(median(mb) / median(base.map((each) => each.mb))).toFixed(2)} |`,
        );
      }
    }
    return lines;
  } finally {
    await stopSandbox(sandbox.server);
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runAlone(acctCase);
