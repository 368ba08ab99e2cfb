#!/usr/bin/env node
// `npm run chaos -- --histories N --seed S [--ops K] [--parallel P] [--progress FILE]`: runs N random
// concurrent histories (test/chaos) from seed S, P at a time (each its own simulator and dirs; every
// third seed on two machines sharing a PostgreSQL team store), and checks each on the simulator's
// state; a failure prints its seed and history. With --progress, each history is appended to FILE
// as one JSON line the moment it ends (a failure with its whole history), for long runs.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    histories: { type: 'string', default: '20' },
    seed: { type: 'string', default: '1' },
    ops: { type: 'string', default: '3' },
    parallel: { type: 'string', default: '1' },
    progress: { type: 'string' },
  },
});
for (const name of ['histories', 'seed', 'ops', 'parallel']) {
  const value = values[name];
  if (!/^\d+$/.test(value) || (name !== 'seed' && Number(value) < 1)) {
    console.error(`--${name}: expected a whole number${name === 'seed' ? '' : ' of at least 1'}, got ${JSON.stringify(value)}`);
    process.exit(2);
  }
}
const started = Date.now();
const result = spawnSync('npx', ['vitest', 'run', 'test/chaos', '--reporter', 'verbose'], {
  stdio: 'inherit',
  env: {
    ...process.env,
    HEDGE_CHAOS_HISTORIES: values.histories,
    HEDGE_CHAOS_SEED: values.seed,
    HEDGE_CHAOS_OPS: values.ops,
    HEDGE_CHAOS_PARALLEL: values.parallel,
    ...(values.progress ? { HEDGE_CHAOS_PROGRESS: resolve(values.progress) } : {}),
  },
});
console.log(`chaos: ${values.histories} histories from seed ${values.seed}, ${values.parallel} at a time: ${Math.round((Date.now() - started) / 1000)} s, exit ${result.status}`);
process.exit(result.status ?? 1);
