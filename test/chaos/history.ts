// A concurrent-history checker in the spirit of Jepsen's: 2–4 actors — separate
// hedge processes on one account — run random histories of open, add, reduce, close, roll, apply (a
// target file moving the side) and keep (`hedge keep FILE --once --converge`) on one side, against a
// simulator with injected faults (5xx, answers dropped after the server committed, latency) and a
// fast clock, while some runs are killed with SIGKILL at a random moment. Two set-ups ("desks"):
//   - local: every actor on one config dir, sharing one journal file, as a desk's terminals do;
//   - team: two config dirs as two machines (actors alternate between them) sharing a PostgreSQL
//     team store (a fresh database per history on the run's one cluster).
// Each history also draws, from its seed, how the server behaves: views that trail the
// records, several hedges per side, a short day so that hedges mature inside the history, and a
// settlement some time after maturity (drawBehaviours).
//
// Then every unresolved action is finished (`hedge resume`), and the history is judged on the
// server's own state and request log. A **violation** is the server contradicting what the journal
// and the exits say; **cannot tell** is hedge declining to guess (an entry still unresolved after
// the resumes, exit 12), which is reported, not failed. The checks:
//   1. the side's notional is what the journal's landed entries make, folded in the order the
//      server acted on them with the server's own rules (model below) and its settlements; an entry
//      left unresolved is taken as the server has it, so the rest of the journal is still judged;
//   2. no exit 0 without its action: a run with its own key that exited 0 has a journal entry that
//      landed and a write the server acted on under that key; a roll that exited 0 has a landed
//      roll open leg of its own (counted: as many landed roll opens as rolls that exited 0);
//   3. no action the journal does not know: every key the server acted on is a journal entry's;
//      every entry the journal has as landed was acted on by the server, and applied (not an add
//      whose hedge settled before it landed); none it has as rejected or failed was applied;
//   4. one journal entry per key;
//   5. no second hedge from a decision: an open sent by apply, the keeper or a roll (they decide from
//      the book) never lands while the side already holds a hedge — the double open a trailing view
//      could cause where the server takes several hedges per side;
//   6. the deal lives through a roll: the new hedge carries the client_reference of the hedge(s) it
//      rolled (some actors open with --ref, and the seeded hedge may carry one).
// Every keyed action carries its own --idempotency-key (as a careful script does), so each run's
// fate is known. A history names its seed and its drawn server behaviours, so `npm run chaos --
// --seed S --histories 1` replays it (the draws are seeded; the timing of the processes is not).
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openJournal, openTeamJournal } from '../../src/platform/journal/index.js';
import type { ChangeAction } from '../../src/sandbox/engine-state.js';
import { changeParts } from '../../src/sandbox/http/http-engine.js';
import { reductionClosesFully } from '../../src/sandbox/market-model.js';
import { hashString } from '../../src/sandbox/prng.js';
import { separateProcesses } from '../support/hedge-cli.js';
import type { PostgresServer } from '../support/servers/postgres-server.js';
import { MARKET, startSimulator, type Simulator } from '../support/simulator.js';
import { teamOf } from '../support/team.js';
import { activeNotional } from '../support/keeper.js';
import { call, openBody } from '../support/engine.js';
import { randomStream as prng } from '../support/random-stream.js';

// The actors are hedge processes, every run of them (the resumes after a history included).
separateProcesses();

interface HistoryOptions {
  seed: number;
  actors: number;
  opsPerActor: number;
  /** Share of runs killed with SIGKILL at a random moment. */
  killShare: number;
  /** Two machines sharing this PostgreSQL server's team store (a fresh database); absent: one config dir. */
  teamStore?: PostgresServer;
}

const TENORS = [1, 3, 7] as const;
/** A draw below the number picks the kind: mostly the everyday moves, the side-resetting ones rarer. */
const KIND_DRAWS = [
  [0.3, 'add'],
  [0.52, 'reduce'],
  [0.62, 'roll'],
  [0.72, 'apply'],
  [0.8, 'keep'],
  [0.9, 'open'],
  [1, 'close'],
] as const;

/**
 * One action of an actor: `amount` is the USD of an open/add/reduce, the target of an apply or keep
 * (0 for close and roll); `tenorDays` the tenor of an open or roll, and of an apply's or keeper's
 * target (used when it opens); `ref` an open's --ref; `exit` the run's, once it ran.
 */
type Op = ReturnType<typeof drawOps>[number];

/**
 * A history judged: `violations`, the server contradicting the journal or the exits (the history
 * fails); `cannotTell`, entries hedge declined to guess about (still unresolved after the resumes),
 * with what the server did; `landed`, the side's changes in the server's order as the journal's fold
 * read them; `settlements`, hedges settled at maturity during it; `coverage`, what the checks had to
 * judge, so a run's figures show each check was exercised (check()).
 */
export type HistoryResult = Awaited<ReturnType<typeof runHistory>>;

const SEED_USD = 5_000;
const SIDE = 'sell';
/** Sandbox ms per real ms: a 7-day tenor of a short day settles inside a history. */
const CLOCK_SPEED = 60;
const TRADE_PATHS = new Set(['/hedges', '/hedges/add', '/hedges/reduce', '/hedges/close']);
/**
 * Each run's own wait bound (--timeout): a wait that cannot end (a lock that is never freed, a
 * change that never shows) ends the run in 30 s instead of the default 120 s, so a history stays
 * short; the harness's bound on a process is above every bound hedge sets itself.
 */
const WAIT_BOUND = ['--timeout', '30'];
const RUN_BOUND_MS = 200_000;
const LANDED = new Set(['done', 'filled']);
const UNRESOLVED = new Set(['pending', 'submitted', 'unknown', 'planned']);
/** Outcomes that say the server did nothing. */
const NOT_LANDED = new Set(['rejected', 'failed', 'abandoned']);

type Entry = Record<string, any>;

/**
 * The server's behaviours of a history, from its seed alone, on streams of their own (so the ops
 * a seed draws are those it drew). Each behaviour is on in fewer than half of the
 * histories, trailing views (the one that slows a history down) in 30 %, so the median history
 * runs without them. The durations are drawn in the processes' time — hedge polls every 1.5 s of
 * it, so a lag of 1–4 s is one to three polls — and handed to the simulator in its own
 * (× CLOCK_SPEED). The seeded hedge's tenor and deal reference come from here too.
 *   viewLagMs: the positions list, history and account trail the hedge records by this much (0: in step);
 *   severalPerSide: a second open opens another hedge, summed into one positions line;
 *   dayMs: the length of a tenor day; undefined: the simulator's own (a real day, so nothing matures in a history);
 *   settlementDelayMs: a hedge past maturity stays filled this long before it settles.
 */
function drawBehaviours(seed: number) {
  // A stream per behaviour: changing how one is drawn leaves every other draw of a seed as it was.
  const stream = (name: string) => prng(hashString(`chaos-${name}:${seed}`));
  /** On in `share` of the histories: a duration from `fromMs` to `toMs`, in the simulator's ms. */
  const drawMs = (name: string, share: number, fromMs: number, toMs: number) => {
    const random = stream(name);
    return random() < share ? Math.round(fromMs + random() * (toMs - fromMs)) * CLOCK_SPEED : undefined;
  };
  // Trailing views cost a history the most (each write waits until every view shows it, a poll or
  // three), so they are drawn least often.
  const viewLagMs = drawMs('view-lag', 0.3, 1_000, 4_000) ?? 0;
  const severalPerSide = stream('several-per-side')() < 0.4;
  // A day of 2–6 s: a 1-day hedge matures a few seconds after it opens, a 7-day one within a
  // minute; only then can a settlement delay show (nothing else matures inside a history).
  const dayMs = drawMs('day', 0.4, 2_000, 6_000);
  const settlementDelayMs = (dayMs && drawMs('settlement-delay', 0.5, 500, 3_000)) ?? 0;
  const side = stream('seeded');
  const tenorDays = TENORS[Math.floor(side() * TENORS.length)];
  // Most histories' seeded hedge carries a deal reference, which every roll must keep.
  const ref = side() < 0.67 ? `deal-${seed}` : undefined;
  return { server: { viewLagMs, severalPerSide, dayMs, settlementDelayMs }, seeded: { tenorDays, ref } };
}

/**
 * Where the actors run and where their journal is: one config dir, or two machines on a team store
 * (actor n on machine n % 2). `journal()` is every entry, whole: the team store's, plus any local
 * fallback record.
 */
async function openDesk(simulator: Simulator, server?: PostgresServer) {
  const list = async (dir: string) => (await openJournal({ dir }).list()) as unknown as Entry[];
  const team = server && (await teamOf(simulator, server));
  const machines = team ? [team.a, team.b] : [{ dir: simulator.configDir, hedge: simulator.hedge }];
  return {
    machine: (actor: number) => machines[actor % machines.length],
    journal: async () => {
      // On a team store, a record a machine kept locally because the store failed after a send is journal too.
      const local = (await Promise.all(machines.map((machine) => list(machine.dir)))).flat();
      if (!team) return local;
      const store = await openTeamJournal({ url: team.url, shown: 'chaos', source: 'chaos', fallbackDir: team.a.dir });
      try {
        return [...((await store.list()) as unknown as Entry[]), ...local];
      } finally {
        await store.close?.();
      }
    },
    // A run of hundreds of histories would otherwise leave hundreds of databases on the one cluster.
    remove: async () => {
      if (!team) return;
      team.remove();
      await server?.query('postgres', `DROP DATABASE IF EXISTS ${team.database} WITH (FORCE)`);
    },
  };
}
type Desk = Awaited<ReturnType<typeof openDesk>>;

const cents = (usd: number) => Math.round(usd * 100) / 100;

function argsOf(desk: Desk, op: Op, index: number) {
  if (op.kind === 'apply' || op.kind === 'keep') {
    const file = join(desk.machine(op.actor).dir, `target-${op.actor}-${index}.csv`);
    writeFileSync(file, `market,side,notional_usd,tenor_days\n${MARKET},${SIDE},${op.amount},${op.tenorDays}\n`);
    return op.kind === 'apply' ? ['apply', file, '--yes'] : ['keep', file, '--once', '--converge', '--yes'];
  }
  const keyed = `--idempotency-key ${op.key}`;
  const rest = {
    open: `${op.amount} --tenor ${op.tenorDays}${op.ref ? ` --ref ${op.ref}` : ''} ${keyed} --skip-checks`,
    add: `${op.amount} ${keyed} --skip-checks`,
    // reduce has no pre-trade checks to skip.
    reduce: `${op.amount} ${keyed}`,
    close: `${keyed} --yes`,
    roll: `--tenor ${op.tenorDays} --yes`,
  };
  return `${op.kind} ${MARKET} ${SIDE} ${rest[op.kind]}`.split(' ');
}

/**
 * The ops of a history, drawn from its seed alone (so the seed replays them), actor by actor. Kind,
 * amount and kill come from `random` (the stream they came from); tenor and reference from a
 * stream of their own, so adding them left the rest of each seed's history as it was.
 */
function drawOps(options: HistoryOptions, random: () => number) {
  const extras = prng(hashString(`chaos-op-extras:${options.seed}`));
  return Array.from({ length: options.actors * options.opsPerActor }, (_, at) => {
    const actor = Math.floor(at / options.opsPerActor);
    const draw = random();
    const kind = KIND_DRAWS.find(([below]) => draw < below)![1];
    const change = kind === 'add' || kind === 'reduce';
    const amount = change
      ? 10 + Math.floor(random() * 190)
      : kind === 'close' || kind === 'roll'
        ? 0
        : 1_000 + 10 * Math.floor(random() * 600);
    const killed = random() < options.killShare;
    const tenorDays = TENORS[Math.floor(extras() * TENORS.length)];
    const key = `chaos-${options.seed}-${actor}-${at % options.opsPerActor}`;
    return {
      actor,
      kind,
      amount,
      tenorDays: change || kind === 'close' ? 0 : tenorDays,
      // Half the opens name a deal, which every roll of their hedge must carry on.
      ref: kind === 'open' && extras() < 0.5 ? key.replace('chaos-', 'deal-') : undefined,
      key,
      killAfterMs: killed ? Math.floor(random() * 1_500) : undefined,
      exit: undefined as number | null | undefined,
    };
  });
}

/** Runs one random history and checks it; never throws for a failed check (violations lists them). */
export async function runHistory(options: HistoryOptions) {
  const started = Date.now();
  const random = prng(options.seed);
  const drawn = drawBehaviours(options.seed);
  // The fill delay and latency come first on the ops' stream, as they did.
  const fillDelayMs = 50 + Math.floor(random() * 300);
  const latencyMs = Math.floor(random() * 80);
  const behaviours = { ...drawn.server, fillDelayMs, latencyMs };
  const simulator = await startSimulator({ fillDelayMs, clockSpeed: CLOCK_SPEED, ...drawn.server });
  let desk: Desk | undefined;
  try {
    const activeDesk = (desk = await openDesk(simulator, options.teamStore));
    // The side's seeded hedge, opened in the engine (not over HTTP) with the drawn tenor and reference, and filled.
    const seedKey = randomUUID();
    const { tenorDays, ref } = drawn.seeded;
    const opened = call(simulator.sandbox.engine, simulator.sandbox.clock.now(), 'POST', '/hedges', {
      key: simulator.apiKey,
      idempotencyKey: seedKey,
      body: openBody(SIDE, SEED_USD, tenorDays, ref ? { client_reference: ref } : {}),
    });
    if (opened.status !== 200) throw new Error(`seed open failed: ${JSON.stringify(opened.body)}`);
    simulator.advance(fillDelayMs + 1);
    simulator.sandbox.setFaults({ fault5xx: 0.05, dropAfterCommit: 0.08, latencyMs, match: { method: 'POST' } });
    const ops = drawOps(options, random);
    // Each actor runs its own ops one after another; the actors run at once.
    await Promise.all(
      Array.from({ length: options.actors }, async (_, actor) => {
        for (const [index, op] of ops.entries()) {
          if (op.actor !== actor) continue;
          let timer: NodeJS.Timeout | undefined;
          const result = await activeDesk.machine(actor).hedge([...argsOf(activeDesk, op, index), ...WAIT_BOUND], {
            timeoutMs: RUN_BOUND_MS,
            env: { HEDGE_REPEAT_WINDOW: '0' },
            onSpawn: (child) => {
              if (op.killAfterMs !== undefined) timer = setTimeout(() => child.kill('SIGKILL'), op.killAfterMs);
            },
          });
          clearTimeout(timer);
          op.exit = result.code;
        }
      }),
    );
    // Finish what was left unresolved: the faults off, every unresolved entry resumed.
    simulator.sandbox.setFaults({ fault5xx: 0, dropAfterCommit: 0, latencyMs: 0, match: null });
    // Rounds over the unresolved entries, oldest first (an entry may be undecidable until an older
    // change on its side is resolved), until a round resolves nothing or three rounds have run.
    let resumes = 0;
    const unresolvedIds = async () =>
      (await activeDesk.journal()).filter((entry) => UNRESOLVED.has(entry.outcome)).map((entry) => entry.id);
    for (let round = 0; round < 3; round++) {
      const pending = (await unresolvedIds()).reverse();
      if (pending.length === 0) break;
      for (const id of pending) {
        if (!(await unresolvedIds()).includes(id)) continue;
        resumes += 1;
        const run = await activeDesk
          .machine(0)
          .hedge(['resume', id, '--yes', ...WAIT_BOUND], { timeoutMs: RUN_BOUND_MS });
        // HEDGE_CHAOS_DEBUG=1: what each resume said (why an entry stays "cannot tell").
        if (process.env.HEDGE_CHAOS_DEBUG) console.log(`resume ${id} → exit ${run.code}\n${run.stderr.slice(-1500)}`);
      }
      if ((await unresolvedIds()).length === pending.length) break;
    }
    // The server as it stands once everything it accepted has landed: the sandbox lands a change
    // when a request or an advance reaches its due time, so a change accepted by the last resume
    // (a reduce re-sent onto a roll's new hedge, seed 958) would otherwise still be pending when
    // judged, while the model lands it.
    simulator.advance(fillDelayMs + 1);
    return {
      seed: options.seed,
      team: options.teamStore !== undefined,
      behaviours,
      seeded: drawn.seeded,
      ops,
      ...(await check(simulator, await activeDesk.journal(), ops, opened.data.id, seedKey)),
      resumes,
      ms: Date.now() - started,
    };
  } finally {
    await simulator.close();
    await desk?.remove();
  }
}

// ---- the checks, and the server's side as the server's own rules make it -------------------

const amountOf = (body: Entry) => Number(body.notional_usd ?? body.amount_usd ?? 0);

async function check(simulator: Simulator, entries: Entry[], ops: Op[], seedId: string, seedKey: string) {
  const violations: string[] = [];
  // A key's first entry (check 4 wants no second).
  const byKey = new Map(entries.toReversed().map((entry) => [entry.idempotency_key, entry]));

  // What the server acted on: the engine's idempotency records (not the request log's statuses: an
  // answer dropped after the commit is logged `dropped`, though the engine acted), each with its
  // request as the log received it and its place there.
  const logged = new Map<string, { order: number; path: string; body: Entry }>();
  simulator.writes().forEach(({ idempotencyKey: key, path, body }, order) => {
    if (key !== null && TRADE_PATHS.has(path) && !logged.has(key)) logged.set(key, { order, path, body: body ?? {} });
  });
  const allActs = Object.entries(simulator.sandbox.engine.state.idempotency).flatMap(([scope, record]) => {
    const key = scope.split(':').slice(2).join(':');
    const request = logged.get(key);
    if (key === seedKey || !request) return [];
    const data = JSON.parse(record.bodyJson)?.data ?? {};
    // The hedge an open created, or the newest one a change touched (the answer's).
    const hedgeId = [data.hedge_id, data.id].find((id) => typeof id === 'string') || undefined;
    return [{ key, atMs: record.createdAtMs, ...request, hedgeId }];
  });
  /** A write the server acted on (the engine's own idempotency record: it keeps successes only); `order` is its place in the request log, to order acts of the same ms. */
  type ServerAct = (typeof allActs)[number];
  // The side's acts, in the server's order (the actors trade only it; one elsewhere is still judged by check 3).
  const acts = allActs
    .filter((act) => act.body.side === SIDE && act.body.market?.toUpperCase() === MARKET)
    .sort((a, b) => a.atMs - b.atMs || a.order - b.order);
  const actedKeys = new Set(allActs.map((act) => act.key));

  const sideHedges = simulator.hedges().filter((hedge) => hedge.market === MARKET && hedge.side === SIDE);
  const hedgeById = new Map(sideHedges.map((hedge) => [hedge.id, hedge]));
  const settlements = sideHedges.filter((hedge) => hedge.closeReason === 'settled');
  const fillDelayMs = simulator.sandbox.engine.fillDelayMs;
  const serverUsd = cents(activeNotional(simulator, SIDE));

  const outcomeOf = (act: ServerAct) => byKey.get(act.key)?.outcome;
  const describeAct = (act: ServerAct) => {
    const group = byKey.get(act.key)?.group;
    const what = act.path === '/hedges' ? 'open' : act.path.replace('/hedges/', '');
    const by = group ? `${group.split('-')[0]} ` : '';
    const amount = act.path === '/hedges/close' ? '' : ` ${amountOf(act.body)}`;
    return `${by}${what}${amount}${act.path === '/hedges' && act.hedgeId ? ` ${act.hedgeId}` : ''} (${act.key})`;
  };
  /** An act in a fold's trace: one the journal left unresolved is taken as the server has it. */
  const traced = (act: ServerAct) =>
    `${describeAct(act)}${UNRESOLVED.has(outcomeOf(act)) ? ` [${outcomeOf(act)}; as the server has it]` : ''}`;

  /**
   * The engine's rules for one side, run over the acts given and the settlements the server made (so
   * the checker does not trust the journal for what the server does with a write): an open adds a
   * hedge at once; add, reduce and close pick their hedges when the server acts (add: the newest;
   * close: all; reduce: from the newest, all of them when it is about the whole side) and land
   * `fillDelayMs` later on those still there — one that settled first is left alone; a reduce of about
   * a hedge's whole notional closes it. At one instant, due landings and settlements come before an
   * act (the engine applies what is due before it handles a request). `seen` holds, per act, the side's hedges when
   * the server acted (oldest first) and, for add/reduce/close, the hedges it took part of and whether
   * each was still there when it landed.
   */
  const runModel = (acts: readonly ServerAct[]) => {
    const live = [{ id: seedId, notionalUsd: SEED_USD }];
    let mostHedges = live.length;
    type Part = { id: string; usd: number; applied?: boolean };
    const seen = new Map<string, { act: ServerAct; liveBefore: typeof live; parts: Part[] }>();
    const total = () => cents(live.reduce((sum, hedge) => sum + hedge.notionalUsd, 0));
    /** What happened to the side, in order, each with the notional after it (for a person reading a history). */
    const trace: string[] = [];
    const actOn = (act: ServerAct) => {
      const usd = amountOf(act.body);
      const record = { act, liveBefore: live.map((hedge) => ({ ...hedge })), parts: [] as Part[] };
      seen.set(act.key, record);
      if (act.path === '/hedges') {
        live.push({ id: act.hedgeId ?? act.key, notionalUsd: usd });
        mostHedges = Math.max(mostHedges, live.length);
        trace.push(`${traced(act)} → ${total()}`);
        return;
      }
      // The engine's own choice of the hedges a change takes part of (an add on a bare side takes none).
      const action = act.path.slice('/hedges/'.length) as ChangeAction;
      if (live.length)
        record.parts = changeParts(action, live, usd).map((part) => ({ id: part.hedge.id, usd: part.notionalUsd }));
      events.push({
        atMs: act.atMs + fillDelayMs,
        rank: 1,
        // Acts landing at one instant land in the order the server acted on them.
        order: act.order,
        run: () => {
          for (const part of record.parts) {
            const hedge = live.find((candidate) => candidate.id === part.id);
            part.applied = hedge !== undefined;
            if (!hedge) continue;
            if (action === 'add') hedge.notionalUsd = cents(hedge.notionalUsd + part.usd);
            else if (action === 'close' || reductionClosesFully(hedge.notionalUsd, part.usd))
              live.splice(live.indexOf(hedge), 1);
            else hedge.notionalUsd = cents(hedge.notionalUsd - part.usd);
          }
          const landed = record.parts.some((part) => part.applied);
          trace.push(`${traced(act)}${landed ? '' : ' (did not land: its hedge had ended)'} → ${total()}`);
        },
      });
    };
    const events = [
      ...settlements.map((settled, order) => ({
        atMs: settled.closedAtMs!,
        rank: 0,
        order,
        run: () => {
          const index = live.findIndex((hedge) => hedge.id === settled.id);
          if (index >= 0) live.splice(index, 1);
          trace.push(`${settled.id} settled${index >= 0 ? '' : ' (not held here)'} → ${total()}`);
        },
      })),
      ...acts.map((act) => ({ atMs: act.atMs, rank: 2, order: act.order, run: () => actOn(act) })),
    ];
    // The earliest event next (a landing is added as its act runs): by time, then rank, then order.
    for (let next; (next = events.sort((a, b) => a.atMs - b.atMs || a.rank - b.rank || a.order - b.order).shift());)
      next.run();
    return { live, seen, trace, totalUsd: total(), mostHedges };
  };

  // The server's own truth: every act it made, by its rules. It must make what the server holds —
  // else the checker's model is wrong, or a trade reached the server without a key.
  const truth = runModel(acts);
  const serverLive = simulator
    .active(SIDE)
    .map((hedge) => `${hedge.id} ${cents(hedge.notionalUsd)}`)
    .sort();
  const modelLive = truth.live.map((hedge) => `${hedge.id} ${hedge.notionalUsd}`).sort();
  if (serverLive.join() !== modelLive.join())
    violations.push(
      `the server's acts, by its own rules, make ${modelLive.join(', ') || 'nothing'}; it holds ${serverLive.join(', ') || 'nothing'} (a trade without a key, or the checker's model is wrong)`,
    );
  // Whether the server applied an act: an open whose hedge did not fail, a change with a part that landed.
  const isApplied = (key: string) => {
    const seen = truth.seen.get(key);
    if (seen?.act.path === '/hedges') return hedgeById.get(seen.act.hedgeId ?? '')?.status !== 'failed';
    return !!seen?.parts.some((part) => part.applied);
  };

  // Cannot tell: what hedge left unresolved after the resumes, with what the server did.
  const unresolved = entries.filter((entry) => UNRESOLVED.has(entry.outcome));
  const cannotTell = unresolved.map((entry) => {
    const key = entry.idempotency_key;
    const did = !actedKeys.has(key)
      ? 'the server never acted on its key'
      : isApplied(key)
        ? 'the server applied it'
        : 'the server acted on it, but it did not land';
    return `${entry.command}${entry.leg ? ` (${entry.group?.split('-')[0]} ${entry.leg})` : ''} ${entry.id} ${entry.outcome}: ${did}`;
  });

  // (3) every entry the journal has as landed was acted on and applied; none it has as not landed was.
  const landed = entries.filter((entry) => LANDED.has(entry.outcome) && TRADE_PATHS.has(entry.request?.path));
  for (const entry of landed) {
    const key = entry.idempotency_key;
    const label = `the journal has ${entry.command} ${entry.request.path} (${key}) as ${entry.outcome}, but`;
    const part = truth.seen.get(key)?.parts[0];
    const endedAtMs = part && hedgeById.get(part.id)?.closedAtMs;
    if (!actedKeys.has(key)) violations.push(`${label} the server never acted on its key`);
    else if (!isApplied(key))
      violations.push(
        `${label} it never landed: its hedge ${part?.id ?? '?'} ended${endedAtMs !== undefined ? ` at ${new Date(endedAtMs).toISOString()}` : ''} before it would have`,
      );
  }
  for (const entry of entries)
    if (NOT_LANDED.has(entry.outcome) && isApplied(entry.idempotency_key))
      violations.push(
        `the journal has ${entry.command} ${entry.request?.path} (${entry.idempotency_key}) as ${entry.outcome}${entry.error_code ? ` (${entry.error_code})` : ''}, but the server applied it`,
      );

  // (1) the journal's fold: its landed entries (and, for what it left unresolved, the server's
  // answer) by the server's rules, in the server's order, with the server's settlements.
  const counted = acts.filter((act) => LANDED.has(outcomeOf(act)) || UNRESOLVED.has(outcomeOf(act)));
  const fold = runModel(counted);
  if (fold.totalUsd !== serverUsd)
    violations.push(
      `the server holds ${serverUsd} USD on the side; the journal's landed actions${unresolved.length > 0 ? ' (and its unresolved ones as the server has them)' : ''}, in the server's order and with its settlements, make ${fold.totalUsd}`,
    );

  // (3) every key the server acted on is a journal entry's, and no trade reached it without a key.
  for (const write of simulator.writes())
    if (
      TRADE_PATHS.has(write.path) &&
      write.idempotencyKey === null &&
      (write.status === 200 || write.status === 'dropped')
    )
      violations.push(`the server received ${write.method} ${write.path} without a key`);
  for (const act of allActs)
    if (!byKey.has(act.key))
      violations.push(`the server acted on POST ${act.path} under a key the journal does not know (${act.key})`);

  // (2) no exit 0 without its own action.
  for (const op of ops) {
    if (op.exit !== 0 || !['open', 'add', 'reduce', 'close'].includes(op.kind)) continue;
    const own = byKey.get(op.key);
    const label = `${op.kind} ${op.amount} (${op.key}) exited 0, but`;
    if (!LANDED.has(own?.outcome)) violations.push(`${label} its journal entry is ${own?.outcome ?? 'missing'}`);
    if (!actedKeys.has(op.key)) violations.push(`${label} the server never acted on its key`);
  }
  const rollsExited0 = ops.filter((op) => op.kind === 'roll' && op.exit === 0).length;
  const rollOpensLanded = landed.filter(
    // A leg of a roll: journaled with its group and leg, and the roll's own command line.
    (entry) =>
      entry.group !== undefined &&
      entry.leg !== undefined &&
      (entry.argv?.[0] === 'roll' || entry.command === 'roll') &&
      entry.request.path === '/hedges',
  ).length;
  if (rollOpensLanded < rollsExited0)
    violations.push(`${rollsExited0} rolls exited 0, but the journal has only ${rollOpensLanded} landed roll opens`);

  // (4) one journal entry per key.
  for (const key of byKey.keys()) {
    const count = entries.filter((entry) => entry.idempotency_key === key).length;
    if (count > 1) violations.push(`${count} journal entries share the key ${key}`);
  }

  // (5) an open that apply, the keeper or a roll decided on never lands on a side that holds a hedge.
  const decided = acts.filter((act) => act.path === '/hedges' && byKey.get(act.key)?.group !== undefined);
  for (const act of decided) {
    const held = truth.seen.get(act.key)?.liveBefore ?? [];
    if (held.length === 0) continue;
    violations.push(
      `a second hedge on the side: ${describeAct(act)} opened ${act.hedgeId ?? '?'} at ${new Date(act.atMs).toISOString()} while the side held ${held.map((hedge) => `${hedge.id} (${hedge.notionalUsd} USD)`).join(', ')}`,
    );
  }

  // (6) a roll's new hedge carries the deal reference of the hedge(s) it rolled.
  const referenceOf = (id: string) => hedgeById.get(id)?.clientReference;
  const name = (reference: unknown) => (typeof reference === 'string' ? JSON.stringify(reference) : 'none');
  const groups = new Set(entries.filter((entry) => `${entry.group}`.startsWith('roll-')).map((entry) => entry.group));
  let rollsChecked = 0;
  let rollsWithReference = 0;
  for (const group of groups) {
    const leg = (which: string) =>
      entries.find((entry) => entry.group === group && entry.leg === which && actedKeys.has(entry.idempotency_key));
    const open = leg('open');
    if (!open) continue;
    const newId = truth.seen.get(open.idempotency_key)?.act.hedgeId;
    const close = leg('close');
    // What the roll rolled: the hedges its close took part of, or the ended hedge it opened anew.
    const rolled = close
      ? (truth.seen.get(close.idempotency_key)?.parts.map((part) => part.id) ?? [])
      : [open.context?.rolled_hedge_id].filter((id) => typeof id === 'string');
    if (newId === undefined || rolled.length === 0) continue;
    const references = new Set(rolled.map(referenceOf));
    rollsChecked += 1;
    if ([...references].some((reference) => reference !== undefined)) rollsWithReference += 1;
    const carried = referenceOf(newId);
    const sent = open.request?.body?.client_reference;
    // One reference among the rolled hedges must be carried on; of several different ones, one of them.
    if (!references.has(carried))
      violations.push(
        `the roll ${group} opened ${newId} with reference ${name(carried)}; it rolled ${rolled.map((id) => `${id} (${name(referenceOf(id))})`).join(', ')}`,
      );
    else if (sent !== carried)
      violations.push(
        `the roll ${group} journaled its open with reference ${name(sent)}, but the server's hedge ${newId} carries ${name(carried)}`,
      );
  }

  return {
    violations,
    cannotTell,
    serverUsd,
    expectedUsd: fold.totalUsd,
    landed: fold.trace,
    settlements: settlements.length,
    // Opens decided by apply, the keeper or a roll (check 5); rolls checked for their reference
    // (check 6), and those where one was carried; the most hedges held at once; changes the server
    // accepted on a hedge that ended before they landed.
    coverage: {
      decidedOpens: decided.length,
      rollsChecked,
      rollsWithReference,
      mostHedges: truth.mostHedges,
      changesOnEndedHedges: [...truth.seen.values()].filter(
        (seen) => seen.parts.length > 0 && !seen.parts.some((part) => part.applied),
      ).length,
    },
  };
}

export function verdictOf(result: HistoryResult) {
  return result.violations.length > 0 ? 'violation' : result.cannotTell.length > 0 ? 'cannot tell' : 'holds';
}

export function describeHistory(result: HistoryResult) {
  // The server's behaviours in one line a person reads (and a replay is checked against): durations in real seconds, then the simulator's ms.
  const seconds = (ms: number) => `${(ms / CLOCK_SPEED / 1000).toFixed(1)} s`;
  const { viewLagMs, severalPerSide, dayMs, settlementDelayMs, fillDelayMs, latencyMs } = result.behaviours;
  const server = [
    viewLagMs > 0 ? `views trail by ${seconds(viewLagMs)} (viewLagMs ${viewLagMs})` : 'views in step',
    severalPerSide ? 'several hedges per side' : 'one hedge per side',
    dayMs !== undefined ? `a day of ${seconds(dayMs)} (dayMs ${dayMs})` : 'real days',
    settlementDelayMs > 0
      ? `settled ${seconds(settlementDelayMs)} after maturity (settlementDelayMs ${settlementDelayMs})`
      : 'settled at maturity',
    `fill delay ${fillDelayMs} ms, latency ${latencyMs} ms (simulator time)`,
  ].join('; ');
  const lines = result.ops.map(
    (op) =>
      `  actor ${op.actor}: ${op.kind}${op.amount ? ` ${op.amount}` : ''}${op.tenorDays ? ` --tenor ${op.tenorDays}` : ''}${op.ref ? ` --ref ${op.ref}` : ''}${op.killAfterMs === undefined ? '' : ` (kill -9 after ${op.killAfterMs} ms)`} → exit ${op.exit}`,
  );
  return [
    `seed ${result.seed} (${result.team ? 'team store, two machines' : 'one config dir'}): ${verdictOf(result)}; server ${result.serverUsd} USD, expected ${result.expectedUsd} USD`,
    `  server: ${server}`,
    `  seeded: ${SEED_USD} USD for ${result.seeded.tenorDays} days${result.seeded.ref ? `, reference ${result.seeded.ref}` : ''}`,
    ...lines,
    `  the side's changes, in the server's order: ${result.landed.join(' · ') || 'none'}`,
    ...result.violations.map((problem) => `  ✗ ${problem}`),
    ...result.cannotTell.map((entry) => `  ? cannot tell: ${entry}`),
  ].join('\n');
}
