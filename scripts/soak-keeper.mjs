#!/usr/bin/env node
// `npm run soak:keeper -- [--maturities 50] [--kills 6] [--adds 3] [--seed S] [--out DIR]`: the keeper
// soak on trailing views (test/soak/keeper.soak.ts) as long as asked — a simulator whose positions
// list, history and account trail the hedge records by 3 s, several hedges per side, settlement 5 s
// after maturity and a 30 s tenor day; the real `hedge keep` killed with SIGKILL K times and started
// again, another actor's `hedge add` now and then, and the server's state sampled every second.
// Prints the figures; writes every sample (CSV) and the keepers' events to DIR (default the
// system's temp folder: never inside the repository).
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const fail = (line) => {
  console.error(line);
  process.exit(2);
};
const usage =
  'expected [--maturities N] [--kills K] [--adds A] [--seed S] [--day-ms MS] [--lag-ms MS] [--settlement-delay-ms MS] [--roll-before 15s] [--interval S] [--out DIR]';
let values;
try {
  ({ values } = parseArgs({
    options: {
      maturities: { type: 'string', default: '50' },
      kills: { type: 'string', default: '6' },
      adds: { type: 'string', default: '3' },
      seed: { type: 'string', default: '48' },
      'day-ms': { type: 'string', default: '30000' },
      'lag-ms': { type: 'string', default: '3000' },
      'settlement-delay-ms': { type: 'string', default: '5000' },
      'roll-before': { type: 'string', default: '15s' },
      interval: { type: 'string', default: '2' },
      out: { type: 'string', default: tmpdir() },
    },
  }));
} catch (error) {
  fail(`soak:keeper: ${error.message}; ${usage}`);
}
for (const name of ['maturities', 'kills', 'adds', 'seed', 'day-ms', 'lag-ms', 'settlement-delay-ms', 'interval']) {
  if (!/^\d+$/.test(values[name])) fail(`--${name}: expected a whole number, got ${JSON.stringify(values[name])}`);
}
if (!/^\d+(\.\d+)?s$/.test(values['roll-before']))
  fail(`--roll-before: expected seconds such as 15s, got ${JSON.stringify(values['roll-before'])}`);
if (Number(values.maturities) < 1 || Number(values['day-ms']) < 1000 || Number(values.interval) < 2)
  fail('--maturities: at least 1; --day-ms: at least 1000; --interval: at least 2 (seconds).');
if (Number(values['roll-before'].slice(0, -1)) * 1000 >= Number(values['day-ms']))
  fail('--roll-before must be shorter than the day (--day-ms): the roll row would be rolled as soon as it is opened.');
const out = resolve(values.out);
if (!relative(root, out).startsWith('..'))
  fail(`--out: ${out} is inside the repository; expected a folder outside it (the samples are not project files).`);
// A folder named that is not there yet is made: the samples are written once the run ends.
mkdirSync(out, { recursive: true });
const stem = join(out, `hedge-keeper-soak-${values.maturities}m-seed${values.seed}`);
console.log(`samples: ${stem}.csv\nkeeper events: ${stem}.keeper.log`);
const result = spawnSync(
  'npx',
  ['vitest', 'run', '--config', 'test/soak/vitest.config.ts', 'test/soak/keeper', '--reporter', 'verbose'],
  {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      HEDGE_KEEPER_SOAK_MATURITIES: values.maturities,
      HEDGE_KEEPER_SOAK_KILLS: values.kills,
      HEDGE_KEEPER_SOAK_ADDS: values.adds,
      HEDGE_KEEPER_SOAK_SEED: values.seed,
      HEDGE_KEEPER_SOAK_DAY_MS: values['day-ms'],
      HEDGE_KEEPER_SOAK_LAG_MS: values['lag-ms'],
      HEDGE_KEEPER_SOAK_SETTLEMENT_DELAY_MS: values['settlement-delay-ms'],
      HEDGE_KEEPER_SOAK_ROLL_BEFORE: values['roll-before'],
      HEDGE_KEEPER_SOAK_INTERVAL: values.interval,
      HEDGE_KEEPER_SOAK_SAMPLES: `${stem}.csv`,
      HEDGE_KEEPER_SOAK_KEEPER_LOG: `${stem}.keeper.log`,
    },
  },
);
process.exit(result.status ?? 1);
