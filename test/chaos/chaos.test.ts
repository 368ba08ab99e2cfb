// The concurrent-history checker (history.ts) as part of the suite: two short histories on fixed
// seeds inside `npm test` (one on one config dir, one on two machines sharing the team store, run
// at once, each with kills); `npm run chaos -- --histories N --seed S --parallel K` runs as many as
// asked, K at a time (the runner sets HEDGE_CHAOS_* and the bound). Every third seed (seed % 3 = 0)
// is a team-store history. A test fails on a violation (or a history that did not complete), never
// on "cannot tell": that is hedge declining to guess, counted and printed as a share. A history with
// either prints its seed, its drawn server behaviours and every step, so it can be replayed alone;
// with HEDGE_CHAOS_PROGRESS set, each finished history is appended to that file as one JSON line
// (and, unless it holds, its whole description) the moment it ends, so a long run can be read while it runs.
import { appendFileSync } from 'node:fs';
import { POSTGRES_MISSING, sharedPostgres, type PostgresServer } from '../support/servers/postgres-server.js';
import { describeHistory, runHistory, verdictOf, type HistoryResult } from './history.js';

const histories = Number(process.env.HEDGE_CHAOS_HISTORIES ?? 2);
const firstSeed = Number(process.env.HEDGE_CHAOS_SEED ?? 42);
const parallel = Math.max(1, Number(process.env.HEDGE_CHAOS_PARALLEL ?? 2));
const opsPerActor = Number(process.env.HEDGE_CHAOS_OPS ?? 2);
const progressFile = process.env.HEDGE_CHAOS_PROGRESS;
const actors = (seed: number) => 2 + (seed % 3);
const isTeam = (seed: number) => seed % 3 === 0;
// As describeWithPostgres: without server binaries the team-store histories fail under CI=true and are skipped elsewhere.
const skipTeam = POSTGRES_MISSING !== undefined && process.env.CI !== 'true';
if (POSTGRES_MISSING)
  console.warn(`team-store histories: ${POSTGRES_MISSING}${skipTeam ? ' Skipped (CI is not set).' : ''}`);

const seeds = Array.from({ length: histories }, (_, index) => firstSeed + index);

/**
 * At most `parallel` histories at once over both tests (each has its own simulator and dirs), the
 * lowest waiting seed first: team-store histories (queued once PostgreSQL is up) interleave with
 * the others instead of all coming last, so a run cut short still has its share of each.
 */
let running = 0;
const waiting: Array<{ seed: number; start: () => void }> = [];
async function slot<T>(seed: number, body: () => Promise<T>) {
  if (running >= parallel) await new Promise<void>((start) => waiting.push({ seed, start }));
  else running += 1;
  try {
    return await body();
  } finally {
    const next = waiting.sort((a, b) => a.seed - b.seed).shift();
    // The slot passes straight to the next history; only when none waits is it freed.
    if (next) next.start();
    else running -= 1;
  }
}

function report(result: HistoryResult) {
  if (!progressFile) return;
  const kinds: Record<string, number> = {};
  const exits: Record<string, number> = {};
  for (const op of result.ops) {
    kinds[op.kind] = (kinds[op.kind] ?? 0) + 1;
    const exit = `${op.kind}:${op.killAfterMs !== undefined && op.exit === null ? 'killed' : op.exit}`;
    exits[exit] = (exits[exit] ?? 0) + 1;
  }
  const verdict = verdictOf(result);
  const line = {
    seed: result.seed,
    team: result.team,
    behaviours: result.behaviours,
    actors: new Set(result.ops.map((op) => op.actor)).size,
    actions: result.ops.length,
    kinds,
    exits,
    killed: result.ops.filter((op) => op.killAfterMs !== undefined).length,
    exit0: result.ops.filter((op) => op.exit === 0).length,
    resumes: result.resumes,
    settlements: result.settlements,
    coverage: result.coverage,
    verdict,
    violations: result.violations.length,
    cannotTell: result.cannotTell.length,
    // ok: what fails the test (a violation); a "cannot tell" history is ok.
    ok: result.violations.length === 0,
    ms: result.ms,
  };
  appendFileSync(
    progressFile,
    `${JSON.stringify(line)}\n${verdict === 'holds' ? '' : `${verdict === 'violation' ? 'FAILED' : 'CANNOT TELL'} ${describeHistory(result)}\n`}`,
  );
}

/**
 * Runs the seeds' histories: fails on a violation (or a history that did not complete); says, never
 * fails, the "cannot tell" share (hedge declined to guess, and the history shows what the server did).
 */
async function runSeeds(chosen: number[], teamStore?: PostgresServer) {
  const failures: string[] = [];
  const cannotTell: string[] = [];
  await Promise.all(
    chosen.map((seed) =>
      slot(seed, async () => {
        let result: HistoryResult;
        try {
          result = await runHistory({ seed, actors: actors(seed), opsPerActor, killShare: 0.25, teamStore });
        } catch (error) {
          // A harness error (a run past its bound, a store that would not open) is a failed history too, with its seed.
          const message = `seed ${seed}: the history did not complete: ${(error as Error).message}`;
          if (progressFile)
            appendFileSync(
              progressFile,
              `${JSON.stringify({ seed, team: teamStore !== undefined, verdict: 'error', ok: false, error: (error as Error).message.split('\n')[0] })}\nFAILED ${message}\n`,
            );
          failures.push(message);
          return;
        }
        report(result);
        const verdict = verdictOf(result);
        if (verdict === 'violation') failures.push(describeHistory(result));
        else if (verdict === 'cannot tell') cannotTell.push(describeHistory(result));
      }),
    ),
  );
  if (cannotTell.length > 0)
    console.log(
      `cannot tell: ${cannotTell.length} of ${chosen.length} histories (${((100 * cannotTell.length) / chosen.length).toFixed(1)} %)\n\n${cannotTell.join('\n\n')}`,
    );
  expect(failures, failures.join('\n\n')).toEqual([]);
}

const localSeeds = seeds.filter((seed) => !isTeam(seed));
const teamSeeds = seeds.filter(isTeam);

describe.concurrent('random concurrent histories on one side, judged by the server', () => {
  it.skipIf(localSeeds.length === 0)(
    `${localSeeds.length} histories on one config dir from seed ${localSeeds[0]}: no violation (notional, exit 0s, keys, double opens, roll references agree with the server)`,
    () => runSeeds(localSeeds),
  );

  it.skipIf(teamSeeds.length === 0 || skipTeam)(
    `${teamSeeds.length} histories on two machines sharing the team store: the same checks`,
    async () => {
      // The suite run's one PostgreSQL cluster; each history takes a fresh database on it and looks at no other.
      const server = await sharedPostgres();
      try {
        await runSeeds(teamSeeds, server);
      } finally {
        await server.close();
      }
    },
  );
});
