#!/usr/bin/env node
// `npm run chaos -- --histories N --seed S [--ops K] [--parallel P] [--progress FILE]`: runs N random
// concurrent histories (test/chaos) from seed S, P at a time (each its own simulator and dirs; every
// third seed on two machines sharing a PostgreSQL team store; each draws how its server behaves),
// and checks each on the simulator's state; a violation fails the run and prints its seed and
// history, a "cannot tell" is printed and counted. With --progress, each history is appended to FILE
// as one JSON line the moment it ends (a failure with its whole history), for long runs.
// `node scripts/chaos.mjs --summary FILE` prints the figures of such a file (the part that ran, if
// the run is still going) in Markdown: the violations (what fails a
// run), the "cannot tell" share (count and %), and both per drawn server behaviour.
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
    console.error(
      `--${name}: expected a whole number${name === 'seed' ? '' : ' of at least 1'}, got ${JSON.stringify(value)}`,
    );
    process.exit(2);
  }
}
const started = Date.now();
// Histories run `parallel` at a time; each round gets two minutes, since kills, trailing views and resumes make some long.
const boundMs = 60_000 + 120_000 * Math.ceil(Number(values.histories) / Number(values.parallel));
const result = spawnSync(
  'npx',
  ['vitest', 'run', 'test/chaos', '--reporter', 'verbose', '--testTimeout', `${boundMs}`],
  {
    stdio: 'inherit',
    env: {
      ...process.env,
      HEDGE_CHAOS_HISTORIES: values.histories,
      HEDGE_CHAOS_SEED: values.seed,
      HEDGE_CHAOS_OPS: values.ops,
      HEDGE_CHAOS_PARALLEL: values.parallel,
      ...(values.progress ? { HEDGE_CHAOS_PROGRESS: resolve(values.progress) } : {}),
    },
  },
);
console.log(
  `chaos: ${values.histories} histories from seed ${values.seed}, ${values.parallel} at a time: ${Math.round((Date.now() - started) / 1000)} s, exit ${result.status}`,
);
process.exit(result.status ?? 1);

/** A history's verdict; a file from an older checker has only `ok`, which then meant "neither". */
function verdictOf(run) {
  return run.verdict ?? (run.ok ? 'holds' : 'failed');
}

/** The figures of a progress file: histories, actions and exits per kind, kills, team share, verdicts, per behaviour. */
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
    for (const [kind, n] of Object.entries(run.kinds ?? {}))
      kinds[kind] = {
        ...(kinds[kind] ?? { actions: 0, exit0: 0, killed: 0, other: 0 }),
        actions: (kinds[kind]?.actions ?? 0) + n,
      };
    for (const [key, n] of Object.entries(run.exits ?? {})) {
      const [kind, exit] = key.split(':');
      if (exit === '0') kinds[kind].exit0 += n;
      else if (exit === 'killed') kinds[kind].killed += n;
      else kinds[kind].other += n;
      if (exit === 'killed') killed += n;
    }
    killDrawn += run.killed ?? 0;
  }
  const team = count((run) => run.team);
  const actions = runs.reduce((sum, run) => sum + (run.actions ?? 0), 0);
  const median = (values) => {
    const sorted = values.filter((value) => typeof value === 'number').sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? 0;
  };
  const ms = runs
    .map((run) => run.ms)
    .filter((value) => typeof value === 'number')
    .sort((a, b) => a - b);
  const percent = (part, whole) => `${((100 * part) / Math.max(1, whole)).toFixed(1)} %`;
  const seedsOf = (list) => list.map((run) => run.seed).join(', ');
  const violations = runs.filter((run) => verdictOf(run) === 'violation');
  const errors = runs.filter((run) => verdictOf(run) === 'error');
  const cannotTell = runs.filter((run) => verdictOf(run) === 'cannot tell');
  const older = runs.filter((run) => verdictOf(run) === 'failed');
  const judged = runs.length - errors.length;
  // Each behaviour on and off, and the set-up: where the violations and the "cannot tell" histories are.
  const rows = [
    ['views trail (viewLagMs > 0)', (run) => b(run).viewLagMs > 0],
    ['views in step', (run) => run.behaviours !== undefined && !(b(run).viewLagMs > 0)],
    ['several hedges per side', (run) => b(run).severalPerSide === true],
    ['one hedge per side', (run) => b(run).severalPerSide === false],
    ['short day (maturities inside)', (run) => typeof b(run).dayMs === 'number'],
    ['real days', (run) => run.behaviours !== undefined && typeof b(run).dayMs !== 'number'],
    ['settlement delay', (run) => b(run).settlementDelayMs > 0],
    ['team store, two machines', (run) => run.team === true],
    ['one config dir', (run) => run.team === false],
  ];
  const b = (run) => run.behaviours ?? {};
  const covered = (name) => runs.reduce((sum, run) => sum + (run.coverage?.[name] ?? 0), 0);
  const lines = [
    `${runs.length} histories (seeds ${Math.min(...runs.map((run) => run.seed))}–${Math.max(...runs.map((run) => run.seed))}), ${team} on the team store (${Math.round((100 * team) / Math.max(1, runs.length))} %), ${runs.reduce((sum, run) => sum + (run.actors ?? 0), 0)} actors, ${actions} actions, ${killDrawn} drawn to be killed of which ${killed} were killed by SIGKILL before they ended, ${runs.reduce((sum, run) => sum + (run.resumes ?? 0), 0)} resumes after the histories, ${runs.reduce((sum, run) => sum + (run.settlements ?? 0), 0)} settlements at maturity; a history took ${ms[Math.floor(ms.length / 2)] ?? 0} ms (median), ${ms.at(-1) ?? 0} ms at most.`,
    '',
    '| kind | actions | exit 0 | killed | other exits |',
    '|---|---:|---:|---:|---:|',
    ...Object.entries(kinds)
      .sort((a, b) => b[1].actions - a[1].actions)
      .map(([kind, k]) => `| ${kind} | ${k.actions} | ${k.exit0} | ${k.killed} | ${k.other} |`),
    '',
    runs.every((run) => run.coverage === undefined)
      ? 'What the checks had to judge: not recorded (a file from an older checker).'
      : `What the checks had to judge: ${covered('decidedOpens')} opens decided by apply, the keeper or a roll (${runs.filter((run) => b(run).viewLagMs > 0).reduce((sum, run) => sum + (run.coverage?.decidedOpens ?? 0), 0)} while views trailed, ${runs.filter((run) => b(run).severalPerSide).reduce((sum, run) => sum + (run.coverage?.decidedOpens ?? 0), 0)} on a server taking several hedges per side); ${covered('rollsChecked')} rolls checked for their deal reference, ${covered('rollsWithReference')} of them rolling a hedge that had one; ${count((run) => (run.coverage?.mostHedges ?? 0) > 1)} histories with two or more hedges on the side at once; ${covered('changesOnEndedHedges')} changes accepted on a hedge that settled before they landed.`,
    '',
    violations.length === 0
      ? '**Violations: none.**'
      : `**Violations: ${violations.length}** (${percent(violations.length, judged)}) — seeds ${seedsOf(violations)}.`,
    `**Cannot tell: ${cannotTell.length} of ${judged} histories (${percent(cannotTell.length, judged)})**, ${cannotTell.reduce((sum, run) => sum + (run.cannotTell ?? 0), 0)} entries${cannotTell.length > 0 ? ` — seeds ${seedsOf(cannotTell)}` : ''}.`,
    ...(errors.length > 0
      ? [`Histories that did not complete (counted as failures): ${errors.length} — seeds ${seedsOf(errors)}.`]
      : []),
    ...(older.length > 0
      ? [
          `Failed, from an older checker (violation and "cannot tell" not told apart): ${older.length} — seeds ${seedsOf(older)}.`,
        ]
      : []),
    '',
    '| server behaviour | histories | holds | cannot tell | violations | median ms |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map(([name, has]) => {
      const chosen = runs.filter(has);
      const of = (verdict) => chosen.filter((run) => verdictOf(run) === verdict).length;
      return `| ${name} | ${chosen.length} | ${of('holds')} | ${of('cannot tell')} (${percent(of('cannot tell'), chosen.length)}) | ${of('violation') + of('error')} | ${median(chosen.map((run) => run.ms))} |`;
    }),
  ];
  return lines.join('\n');
}
