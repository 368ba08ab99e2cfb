#!/usr/bin/env node
// `npm run chaos -- --histories N --seed S [--ops K]`: runs N random concurrent histories (test/chaos)
// from seed S and checks each on the simulator's state; a failure prints its seed and history.
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { histories: { type: 'string', default: '20' }, seed: { type: 'string', default: '1' }, ops: { type: 'string', default: '3' } } });
for (const [name, value] of Object.entries(values)) {
  if (!/^\d+$/.test(value)) {
    console.error(`--${name}: expected a whole number, got ${JSON.stringify(value)}`);
    process.exit(2);
  }
}
const result = spawnSync('npx', ['vitest', 'run', 'test/chaos', '--reporter', 'verbose'], {
  stdio: 'inherit',
  env: { ...process.env, HEDGE_CHAOS_HISTORIES: values.histories, HEDGE_CHAOS_SEED: values.seed, HEDGE_CHAOS_OPS: values.ops },
});
process.exit(result.status ?? 1);
