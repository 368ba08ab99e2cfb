#!/usr/bin/env node
// `npm run soak -- [--days 90] [--seed S] [--kills K] [--clock-speed X] [--interval S] [--out DIR]`:
// the exposures soak (test/soak/exposures.soak.ts) as long as asked — a fast-clock simulator, the
// real `hedge keep --exposures` killed with SIGKILL K times and started again, the server's book
// sampled every cycle against the target. Prints the figures; writes every sample (CSV) and the
// keepers' events to DIR (default the system's temp folder: never inside the repository).
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
let values;
try {
  ({ values } = parseArgs({
    options: {
      days: { type: 'string', default: '90' },
      seed: { type: 'string', default: '39' },
      kills: { type: 'string', default: '5' },
      'clock-speed': { type: 'string', default: '7200' },
      interval: { type: 'string', default: '2' },
      out: { type: 'string', default: tmpdir() },
    },
  }));
} catch (error) {
  fail(`soak: ${error.message}; expected --days N --seed S --kills K [--clock-speed X] [--interval S] [--out DIR]`);
}
for (const name of ['days', 'seed', 'kills', 'clock-speed', 'interval']) {
  if (!/^\d+$/.test(values[name])) fail(`--${name}: expected a whole number, got ${JSON.stringify(values[name])}`);
}
if (Number(values.days) < 1 || Number(values['clock-speed']) < 1 || Number(values.interval) < 2)
  fail('--days and --clock-speed: at least 1; --interval: at least 2 (seconds).');
const out = resolve(values.out);
if (!relative(root, out).startsWith('..'))
  fail(`--out: ${out} is inside the repository; expected a folder outside it (the samples are not project files).`);
// A folder named that is not there yet is made: the samples are written once the run ends.
mkdirSync(out, { recursive: true });
const stem = join(out, `hedge-soak-${values.days}d-seed${values.seed}`);
console.log(`samples: ${stem}.csv\nkeeper events: ${stem}.keeper.log`);
const result = spawnSync(
  'npx',
  ['vitest', 'run', '--config', 'test/soak/vitest.config.ts', 'test/soak/exposures', '--reporter', 'verbose'],
  {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      HEDGE_SOAK_DAYS: values.days,
      HEDGE_SOAK_SEED: values.seed,
      HEDGE_SOAK_KILLS: values.kills,
      HEDGE_SOAK_CLOCK_SPEED: values['clock-speed'],
      HEDGE_SOAK_INTERVAL: values.interval,
      HEDGE_SOAK_SAMPLES: `${stem}.csv`,
      HEDGE_SOAK_KEEPER_LOG: `${stem}.keeper.log`,
    },
  },
);
process.exit(result.status ?? 1);
