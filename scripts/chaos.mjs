#!/usr/bin/env node
// `npm run chaos -- --histories N --seed S [--ops K] [--parallel P] [--progress FILE]`: runs N random
// concurrent histories (test/chaos) from seed S, P at a time (each its own simulator and dirs; every
// third seed on two machines sharing a PostgreSQL team store), and checks each on the simulator's
// state; a failure prints its seed and history. With --progress, each history is appended to FILE
// as one JSON line the moment it ends (a failure with its whole history), for long runs.
// `node scripts/chaos.mjs --summary FILE` prints the figures of such a file (the part that ran, if
// the run is still going) as the Markdown docs/reliability.md quotes.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    histories: { type: 'string', default: '20' },
    seed: { type: 'string', default: '1' },
    ops: { type: 'string', default: '3' },
    parallel: { type: 'string', default: '1' },
    progress: { type: 'string' },
    summary: { type: 'string' },
  },
});
if (values.summary) {
  console.log(summarize(readFileSync(values.summary, 'utf8')));
  process.exit(0);
}
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

/** The figures of a progress file: histories, actions and exits per kind, kills, team share, failures. */
function summarize(text) {
  const runs = text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
  const count = (predicate) => runs.filter(predicate).length;
  const kinds = {};
  let killed = 0;
  let killDrawn = 0;
  for (const run of runs) {
    for (const [kind, n] of Object.entries(run.kinds ?? {})) kinds[kind] = { ...(kinds[kind] ?? { actions: 0, exit0: 0, killed: 0, other: 0 }), actions: (kinds[kind]?.actions ?? 0) + n };
    for (const [key, n] of Object.entries(run.exits ?? {})) {
      const [kind, exit] = key.split(':');
      if (exit === '0') kinds[kind].exit0 += n;
      else if (exit === 'killed') kinds[kind].killed += n;
      else kinds[kind].other += n;
      if (exit === 'killed') killed += n;
    }
    killDrawn += run.killed ?? 0;
  }
  const failed = runs.filter((run) => !run.ok);
  const team = count((run) => run.team);
  const actions = runs.reduce((sum, run) => sum + (run.actions ?? 0), 0);
  const ms = runs.map((run) => run.ms).filter((value) => typeof value === 'number').sort((a, b) => a - b);
  const lines = [
    `${runs.length} histories (seeds ${Math.min(...runs.map((run) => run.seed))}–${Math.max(...runs.map((run) => run.seed))}), ${team} on the team store (${Math.round((100 * team) / Math.max(1, runs.length))} %), ${runs.reduce((sum, run) => sum + (run.actors ?? 0), 0)} actors, ${actions} actions, ${killDrawn} drawn to be killed of which ${killed} were killed by SIGKILL before they ended, ${runs.reduce((sum, run) => sum + (run.resumes ?? 0), 0)} resumes after the histories; a history took ${ms[Math.floor(ms.length / 2)] ?? 0} ms (median), ${ms.at(-1) ?? 0} ms at most.`,
    '',
    '| kind | actions | exit 0 | killed | other exits |',
    '|---|---:|---:|---:|---:|',
    ...Object.entries(kinds)
      .sort((a, b) => b[1].actions - a[1].actions)
      .map(([kind, k]) => `| ${kind} | ${k.actions} | ${k.exit0} | ${k.killed} | ${k.other} |`),
    '',
    failed.length === 0 ? 'Failures: none.' : `Failures: ${failed.length} — seeds ${failed.map((run) => run.seed).join(', ')}.`,
  ];
  return lines.join('\n');
}
