// A write over a long journal, for `npm run bench` (or alone: `node bench/history.mjs` after `npm run build`): `hedge
// add` on journals of 0, 20,000 and 100,000 finished actions (bench/journal-history.mjs: sealed as the account's own),
// on the local file and on the team store, against one `hedge sandbox serve --fill-delay 300`. Each add's CPU (user +
// system) and peak memory by GNU time; adds taken in rounds over the journals, so that load drifting during a run
// weighs on each alike, after one add on each that makes its index. The team store is a throwaway PostgreSQL started as
// the test suite starts it (Debian's postgresql-15; without it, the file store alone). Not a test: nothing fails on
// time.
//   BENCH_HISTORY       the journals' sizes (default 0,20000,100000)
//   BENCH_HISTORY_RUNS  adds timed on each journal (default 6)
//   BENCH_HISTORY_DAY   finished actions a day (default 80; 400000: every journal within its last six hours)
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileJournal, writeTeamJournal } from './journal-history.mjs';
import { HEDGE, median, run, runAlone, startSandbox, stopSandbox, teamStore, timedHedge, untimed } from './kit.mjs';

const SIZES = (process.env.BENCH_HISTORY ?? '0,20000,100000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_HISTORY_RUNS ?? '6');
const PER_DAY = Number(process.env.BENCH_HISTORY_DAY ?? '80');

/** `median (low–high)` of `values`. */
const spread = (values, unit, digits) =>
  `${median(values).toFixed(digits)} ${unit} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;

/** The case's table (lines of Markdown), run with `node` in `env` (a private HOME). */
export async function historyCase(node, env) {
  const why = untimed();
  if (why) return [`A write over a long journal: not timed (${why}).`];
  const work = mkdtempSync(join(tmpdir(), 'hedge-history-'));
  const sandbox = await startSandbox(node, env, ['--fill-delay', '300']);
  const team = await teamStore(work).catch((error) => ({ missing: error.message }));
  try {
    const options = { key: sandbox.env.HEDGE_API_KEY, baseUrl: sandbox.env.HEDGE_BASE_URL, perDay: PER_DAY };
    const journals = [];
    for (const actions of SIZES) {
      const dir = join(work, `file-${actions}`);
      mkdirSync(dir, { mode: 0o700 });
      await writeFileJournal(dir, { ...options, actions });
      journals.push({ store: 'file', actions, env: { ...env, ...sandbox.env, HEDGE_CONFIG_DIR: dir } });
      if (!team.server) continue;
      const url = await team.server.createDatabase();
      const config = join(work, `team-${actions}`);
      mkdirSync(config, { mode: 0o700 });
      const teamEnv = { ...env, ...sandbox.env, HEDGE_CONFIG_DIR: config, HEDGE_JOURNAL_URL: url };
      // Its schema, made by hedge; then the history.
      await run(node, [HEDGE, 'journal', '--limit', '1'], { env: teamEnv });
      await writeTeamJournal(url, { ...options, actions });
      journals.push({ store: 'team', actions, env: teamEnv });
    }
    let amount = 100;
    const add = (journal) => timedHedge(node, ['add', 'USDTNGN', 'buy', String((amount += 1))], journal.env, work);
    await run(node, [HEDGE, 'open', 'USDTNGN', 'buy', '100000', '--tenor', '7'], { env: journals[0].env });
    // The first command on an older hedge's archives makes their index: not the write timed.
    for (const journal of journals) await add(journal);
    const timed = journals.map(() => []);
    for (let round = 0; round < RUNS; round++)
      for (const [at, journal] of round % 2 ? [...journals.entries()].reverse() : [...journals.entries()])
        timed[at].push(await add(journal));
    const lines = [
      '| finished actions | store | `add` CPU, median (range) | × empty | peak memory, median (range) | × empty |',
      '|---:|---|---:|---:|---:|---:|',
    ];
    const empty = {};
    journals.forEach((journal, at) => {
      const [cpu, mb] = [timed[at].map((each) => each.cpu), timed[at].map((each) => each.mb)];
      const base = (empty[journal.store] ??= { cpu: median(cpu), mb: median(mb) });
      lines.push(
        `| ${journal.actions.toLocaleString('en')} | ${journal.store} | ${spread(cpu, 's', 3)} | ${(median(cpu) / base.cpu).toFixed(2)} | ${spread(mb, 'MB', 1)} | ${(median(mb) / base.mb).toFixed(2)} |`,
      );
    });
    const none = team.missing ? `\n\nThe team store was not timed: ${team.missing}` : '';
    return [
      `A write over a long journal (${PER_DAY} finished actions a day): \`hedge add\` against \`hedge sandbox serve --fill-delay 300\`, ${RUNS} runs on each journal in rounds (after one that makes the journal's index); CPU = user + system, peak memory = maximum resident set.${none}`,
      '',
      ...lines,
    ];
  } finally {
    await stopSandbox(sandbox.server);
    await team.stop?.();
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runAlone(historyCase);
