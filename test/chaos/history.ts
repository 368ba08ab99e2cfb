// A concurrent-history checker in the spirit of Jepsen's (issue 36): 2–4 actors — separate hedge
// processes on one account — run random histories of open, add, reduce, close, roll, apply (a target
// file moving the side) and keep (`hedge keep FILE --once --converge`) on one side, against a
// simulator with injected faults (5xx, answers dropped after the server committed, latency) and a
// fast clock, while some runs are killed with SIGKILL at a random moment. Two set-ups ("desks"):
//   - local: every actor on one config dir, sharing one journal file, as a desk's terminals do;
//   - team: two config dirs as two machines (actors alternate between them) sharing a PostgreSQL
//     team store (a fresh database per history on the run's one cluster).
// Then every unresolved action is finished (`hedge resume`), and the history is checked on the
// server's own state and request log:
//   1. the side's notional is explained by the journal's landed entries, in the order the server
//      acted on them (the engine's own record of each key it acted on): the seed, then an open adds its notional, an add adds, a
//      reduce subtracts, a close makes it 0; "landed" is what the journal finally says (exit 0, or
//      resolved as landed by the resume). A roll, an apply and a keeper cycle contribute through the
//      legs they journal (a roll: its close, then its open);
//   2. no exit 0 without its action: a run with its own key that exited 0 has a journal entry that
//      landed and a write the server acted on under that key; a roll that exited 0 has a landed
//      roll open leg of its own (counted: as many landed roll opens as rolls that exited 0);
//   3. no action the journal does not know: every key the server acted on is a journal entry's;
//      every entry the journal has as landed was acted on by the server;
//   4. one journal entry per key.
// Every keyed action carries its own --idempotency-key (as a careful script does), so each run's
// fate is known. A failure names the seed and the history, so `npm run chaos -- --seed S
// --histories 1` replays it (the draws are seeded; the timing of the processes is not).
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openJournal } from '../../src/journal/index.js';
import { openTeamJournal } from '../../src/journal/store.js';
import { nextRandom } from '../../src/sandbox/prng.js';
import type { RunOptions, RunResult } from '../support/hedge-cli.js';
import type { PostgresServer } from '../support/postgres-server.js';
import { MARKET, startSimulator, type Simulator } from '../support/simulator.js';
import { teamOf } from '../support/team.js';

export interface HistoryOptions {
  seed: number;
  actors: number;
  opsPerActor: number;
  /** Share of runs killed with SIGKILL at a random moment. */
  killShare: number;
  /** Two machines sharing this PostgreSQL server's team store (a fresh database); absent: one config dir. */
  teamStore?: PostgresServer;
}

export const OP_KINDS = ['open', 'add', 'reduce', 'close', 'roll', 'apply', 'keep'] as const;
export type OpKind = (typeof OP_KINDS)[number];

export interface Op {
  actor: number;
  kind: OpKind;
  /** USD: the amount of an open/add/reduce, the target of an apply or keep; 0 for close and roll. */
  amount: number;
  key: string;
  killAfterMs?: number;
  exit?: number | null;
}

export interface HistoryResult {
  seed: number;
  team: boolean;
  ops: Op[];
  problems: string[];
  serverUsd: number;
  expectedUsd: number;
  /** The landed entries, in the server's order, as the fold read them. */
  landed: string[];
  resumes: number;
  ms: number;
}

/** A seeded draw (the simulator's own mulberry32), so a seed replays its history. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    const next = nextRandom(state);
    state = next.state;
    return next.value;
  };
}

const SEED_USD = 5_000;
const SIDE = 'sell';
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

type Entry = Record<string, any>;

/** Where the actors run and where their journal is: one config dir, or two machines on a team store. */
interface Desk {
  /** The config dir actor `actor` runs in (its target files go there). */
  dirOf(actor: number): string;
  hedge(actor: number, args: string[], options?: RunOptions): Promise<RunResult>;
  /** Every journal entry, whole (the team store's, plus any local fallback record). */
  journal(): Promise<Entry[]>;
  remove(): Promise<void>;
}

function localDesk(simulator: Simulator): Desk {
  return {
    dirOf: () => simulator.configDir,
    hedge: (_actor, args, options) => simulator.hedge(args, options),
    journal: async () => (await openJournal({ dir: simulator.configDir }).list()) as unknown as Entry[],
    remove: async () => undefined,
  };
}

async function teamDesk(simulator: Simulator, server: PostgresServer): Promise<Desk> {
  const team = await teamOf(simulator, server);
  const machines = [team.a, team.b];
  return {
    dirOf: (actor) => machines[actor % 2]!.dir,
    hedge: (actor, args, options) => machines[actor % 2]!.hedge(args, options),
    journal: async () => {
      const store = await openTeamJournal({ url: team.url, shown: 'chaos', source: 'chaos', fallbackDir: team.a.dir });
      try {
        const shared = (await store.list()) as unknown as Entry[];
        // A record a machine kept locally because the store failed after a send is journal too.
        const local = (await Promise.all(machines.map((machine) => openJournal({ dir: machine.dir }).list()))).flat() as unknown as Entry[];
        return [...shared, ...local];
      } finally {
        await store.close?.();
      }
    },
    // A run of hundreds of histories would otherwise leave hundreds of databases on the one cluster.
    remove: async () => {
      team.remove();
      await server.query('postgres', `DROP DATABASE IF EXISTS ${team.database} WITH (FORCE)`);
    },
  };
}

function sideUsd(simulator: Simulator): number {
  return cents(simulator.active(SIDE).reduce((sum, hedge) => sum + hedge.notionalUsd, 0));
}

const cents = (usd: number) => Math.round(usd * 100) / 100;

function argsOf(desk: Desk, op: Op, index: number): string[] {
  const keyed = ['--idempotency-key', op.key];
  switch (op.kind) {
    case 'open':
      return ['open', MARKET, SIDE, String(op.amount), '--tenor', '7', ...keyed, '--skip-checks'];
    case 'add':
      return ['add', MARKET, SIDE, String(op.amount), ...keyed, '--skip-checks'];
    case 'reduce':
      // reduce has no pre-trade checks to skip.
      return ['reduce', MARKET, SIDE, String(op.amount), ...keyed];
    case 'close':
      return ['close', MARKET, SIDE, ...keyed, '--yes'];
    case 'roll':
      return ['roll', MARKET, SIDE, '--tenor', '7', '--yes'];
    case 'apply':
    case 'keep': {
      const file = join(desk.dirOf(op.actor), `target-${op.actor}-${index}.csv`);
      writeFileSync(file, `market,side,notional_usd,tenor_days\n${MARKET},${SIDE},${op.amount},7\n`);
      return op.kind === 'apply' ? ['apply', file, '--yes'] : ['keep', file, '--once', '--converge', '--yes'];
    }
  }
}

async function runOp(desk: Desk, op: Op, index: number): Promise<void> {
  let child: ChildProcess | undefined;
  let timer: NodeJS.Timeout | undefined;
  const result = await desk.hedge(op.actor, [...argsOf(desk, op, index), ...WAIT_BOUND], {
    timeoutMs: RUN_BOUND_MS,
    env: { HEDGE_REPEAT_WINDOW: '0' },
    onSpawn: (spawned) => {
      child = spawned;
      if (op.killAfterMs !== undefined) timer = setTimeout(() => child?.kill('SIGKILL'), op.killAfterMs);
    },
  });
  if (timer) clearTimeout(timer);
  op.exit = result.code;
}

/** The ops of a history, drawn from its seed alone (so the seed replays them). */
export function drawOps(options: Pick<HistoryOptions, 'seed' | 'actors' | 'opsPerActor' | 'killShare'>, random = prng(options.seed)): Op[] {
  const ops: Op[] = [];
  for (let actor = 0; actor < options.actors; actor++) {
    for (let index = 0; index < options.opsPerActor; index++) {
      const draw = random();
      // Mostly the everyday moves; the side-resetting ones (close, open) rarer, so sides stay alive.
      const kind: OpKind =
        draw < 0.3 ? 'add' : draw < 0.52 ? 'reduce' : draw < 0.62 ? 'roll' : draw < 0.72 ? 'apply' : draw < 0.8 ? 'keep' : draw < 0.9 ? 'open' : 'close';
      const amount =
        kind === 'add' || kind === 'reduce' ? 10 + Math.floor(random() * 190) : kind === 'open' || kind === 'apply' || kind === 'keep' ? 1_000 + 10 * Math.floor(random() * 600) : 0;
      const killed = random() < options.killShare;
      ops.push({ actor, kind, amount, key: `chaos-${options.seed}-${actor}-${index}`, killAfterMs: killed ? Math.floor(random() * 1_500) : undefined });
    }
  }
  return ops;
}

/** Runs one random history and checks it; never throws for a failed check (problems lists them). */
export async function runHistory(options: HistoryOptions): Promise<HistoryResult> {
  const started = Date.now();
  const random = prng(options.seed);
  const simulator = await startSimulator({ fillDelayMs: 50 + Math.floor(random() * 300), clockSpeed: 60 });
  let desk: Desk | undefined;
  try {
    desk = options.teamStore ? await teamDesk(simulator, options.teamStore) : localDesk(simulator);
    simulator.seedOpen(SIDE, SEED_USD);
    simulator.sandbox.setFaults({ fault5xx: 0.05, dropAfterCommit: 0.08, latencyMs: Math.floor(random() * 80), match: { method: 'POST' } });
    const ops = drawOps(options, random);
    const activeDesk = desk;
    // Each actor runs its own ops one after another; the actors run at once.
    await Promise.all(
      Array.from({ length: options.actors }, async (_, actor) => {
        for (const [index, op] of ops.entries()) if (op.actor === actor) await runOp(activeDesk, op, index);
      }),
    );
    // Finish what was left unresolved: the faults off, every unresolved entry resumed.
    simulator.sandbox.setFaults({ fault5xx: 0, dropAfterCommit: 0, latencyMs: 0, match: null });
    // Rounds over the unresolved entries, oldest first (an entry may be undecidable until an older
    // change on its side is resolved), until a round resolves nothing or three rounds have run.
    let resumes = 0;
    const unresolvedIds = async () => (await desk!.journal()).filter((entry) => UNRESOLVED.has(entry.outcome)).map((entry) => entry.id as string);
    for (let round = 0; round < 3; round++) {
      const pending = (await unresolvedIds()).reverse();
      if (pending.length === 0) break;
      for (const id of pending) {
        if (!(await unresolvedIds()).includes(id)) continue;
        resumes += 1;
        const run = await desk.hedge(0, ['resume', id, '--yes', ...WAIT_BOUND], { timeoutMs: RUN_BOUND_MS });
        // HEDGE_CHAOS_DEBUG=1: what each resume said (why an entry stays "cannot tell").
        if (process.env.HEDGE_CHAOS_DEBUG) console.log(`resume ${id} → exit ${run.code}\n${run.stderr.slice(-1500)}`);
      }
      if ((await unresolvedIds()).length === pending.length) break;
    }
    return { ...(await check(simulator, desk, options.seed, ops)), team: options.teamStore !== undefined, resumes, ms: Date.now() - started };
  } finally {
    await simulator.close();
    await desk?.remove();
  }
}

/** A leg of a roll: journaled with its group and leg, and the roll's own command line. */
function isRollLeg(entry: Entry): boolean {
  return entry.group !== undefined && entry.leg !== undefined && (entry.argv?.[0] === 'roll' || entry.command === 'roll');
}

/** What a landed entry makes of the side's notional before it. */
function applyEntry(before: number, entry: Entry): number {
  const body = (entry.request?.body ?? {}) as Record<string, unknown>;
  const amount = Number(body.notional_usd ?? body.amount_usd ?? 0);
  switch (entry.request?.path) {
    case '/hedges':
      return before + amount;
    case '/hedges/add':
      return before + amount;
    case '/hedges/reduce':
      return before - amount;
    case '/hedges/close':
      return 0;
    default:
      return before;
  }
}

/**
 * The keys the server acted on, and when (sandbox time): the engine's own idempotency records,
 * which it keeps for successes only. Not the request log's statuses: an answer dropped after the
 * commit is logged `dropped`, though the engine acted.
 */
function actedKeys(simulator: Simulator): Map<string, number> {
  const acted = new Map<string, number>();
  for (const [scope, record] of Object.entries(simulator.sandbox.engine.state.idempotency)) {
    if (record.status >= 200 && record.status < 300) acted.set(scope.split(':').slice(2).join(':'), record.createdAtMs);
  }
  return acted;
}

async function check(simulator: Simulator, desk: Desk, seed: number, ops: Op[]): Promise<Omit<HistoryResult, 'team' | 'resumes' | 'ms'>> {
  const entries = await desk.journal();
  const problems: string[] = [];
  const actedAt = actedKeys(simulator);
  // The server's order of acting: the engine's time of each key's first success, then its place in the request log.
  const logIndex = new Map<string, number>();
  simulator.writes().forEach((write, index) => {
    if (write.idempotencyKey !== null && TRADE_PATHS.has(write.path) && !logIndex.has(write.idempotencyKey)) logIndex.set(write.idempotencyKey, index);
  });
  const serverOrder = (key: string) => [actedAt.get(key)!, logIndex.get(key) ?? Number.MAX_SAFE_INTEGER] as const;

  const unresolved = entries.filter((entry) => UNRESOLVED.has(entry.outcome));
  if (unresolved.length > 0) problems.push(`unresolved after resume: ${unresolved.map((entry) => `${entry.command} ${entry.id} ${entry.outcome}`).join(', ')}`);

  // (1) the fold of the landed entries, in the order the server acted on them.
  const landed = entries.filter((entry) => LANDED.has(entry.outcome) && TRADE_PATHS.has(entry.request?.path));
  for (const entry of landed) {
    if (!actedAt.has(entry.idempotency_key)) problems.push(`the journal has ${entry.command} ${entry.request.path} (${entry.idempotency_key}) as ${entry.outcome}, but the server never acted on its key`);
  }
  const ordered = landed
    .filter((entry) => actedAt.has(entry.idempotency_key))
    .sort((a, b) => {
      const [timeA, indexA] = serverOrder(a.idempotency_key);
      const [timeB, indexB] = serverOrder(b.idempotency_key);
      return timeA - timeB || indexA - indexB;
    });
  let expectedUsd = SEED_USD;
  for (const entry of ordered) expectedUsd = cents(Math.max(0, applyEntry(expectedUsd, entry)));
  const serverUsd = sideUsd(simulator);
  if (unresolved.length === 0 && serverUsd !== expectedUsd) problems.push(`the server holds ${serverUsd} USD on the side; the journal's landed actions, in the server's order, make ${expectedUsd}`);

  // (3) every key the server acted on is a journal entry's.
  const knownKeys = new Set(entries.map((entry) => entry.idempotency_key as string));
  for (const write of simulator.writes()) {
    if (!TRADE_PATHS.has(write.path)) continue;
    if (write.idempotencyKey === null && (write.status === 200 || write.status === 'dropped')) problems.push(`the server received ${write.method} ${write.path} without a key`);
    else if (write.idempotencyKey !== null && actedAt.has(write.idempotencyKey) && !knownKeys.has(write.idempotencyKey)) {
      problems.push(`the server acted on ${write.method} ${write.path} under a key the journal does not know (${write.idempotencyKey})`);
    }
  }
  // (2) no exit 0 without its own action.
  for (const op of ops) {
    if (op.exit !== 0 || !['open', 'add', 'reduce', 'close'].includes(op.kind)) continue;
    const own = entries.find((entry) => entry.idempotency_key === op.key);
    if (!own || !LANDED.has(own.outcome)) problems.push(`${op.kind} ${op.amount} (${op.key}) exited 0, but its journal entry is ${own ? own.outcome : 'missing'}`);
    if (!actedAt.has(op.key)) problems.push(`${op.kind} ${op.amount} (${op.key}) exited 0, but the server never acted on its key`);
  }
  const rollsExited0 = ops.filter((op) => op.kind === 'roll' && op.exit === 0).length;
  const rollOpensLanded = landed.filter((entry) => isRollLeg(entry) && entry.request.path === '/hedges').length;
  if (rollOpensLanded < rollsExited0) problems.push(`${rollsExited0} rolls exited 0, but the journal has only ${rollOpensLanded} landed roll opens`);
  // (4) one journal entry per key.
  const perKey = new Map<string, number>();
  for (const entry of entries) perKey.set(entry.idempotency_key, (perKey.get(entry.idempotency_key) ?? 0) + 1);
  for (const [key, count] of perKey) if (count > 1) problems.push(`${count} journal entries share the key ${key}`);
  const landedLines = ordered.map((entry) => `${isRollLeg(entry) ? 'roll' : entry.command}:${String(entry.request.path).replace('/hedges/', '') || 'open'} ${entry.request.body?.notional_usd ?? ''}`.trim());
  return { seed, ops, problems, serverUsd, expectedUsd, landed: landedLines };
}

export function describeHistory(result: HistoryResult): string {
  const lines = result.ops.map(
    (op) =>
      `  actor ${op.actor}: ${op.kind}${op.amount ? ` ${op.amount}` : ''}${op.killAfterMs === undefined ? '' : ` (kill -9 after ${op.killAfterMs} ms)`} → exit ${op.exit}`,
  );
  return [
    `seed ${result.seed} (${result.team ? 'team store, two machines' : 'one config dir'}): server ${result.serverUsd} USD, expected ${result.expectedUsd} USD`,
    ...lines,
    `  landed, in the server's order: ${result.landed.join(' · ') || 'none'}`,
    ...result.problems.map((problem) => `  ✗ ${problem}`),
  ].join('\n');
}
