// A concurrent-history checker in the spirit of Jepsen's (issue 36): 2–4 actors — separate hedge
// processes on one account, sharing one journal as a desk's terminals do — run random histories of
// add, reduce and roll on one side against a simulator with injected faults (5xx, answers dropped
// after the server committed, latency) and a fast clock, while some runs are killed with SIGKILL at
// random moments. Then every unresolved action is finished (`hedge resume`), and the history is
// checked on the server's own state and request log:
//   1. the side's notional = the seed + every add that landed − every reduce that landed, where
//      "landed" is what the journal finally says (exit 0, or resolved as landed by the resume);
//      a roll keeps the notional (it opens what it closed);
//   2. no exit 0 without its action: a run that exited 0 has a server write under its own key that
//      the server acted on (200);
//   3. no action the journal does not know: every key the server acted on is a journal entry's;
//   4. no key acted twice: the server acted once per key (a replay answers without acting).
// Every action carries its own --idempotency-key (as a careful script does), so each run's fate is
// known. A failure names the seed and the history, so `npm run chaos -- --seed S` replays it.
import type { ChildProcess } from 'node:child_process';
import { openJournal } from '../../src/journal/index.js';
import { nextRandom } from '../../src/sandbox/prng.js';
import { MARKET, startSimulator, type Simulator } from '../support/simulator.js';

export interface HistoryOptions {
  seed: number;
  actors: number;
  opsPerActor: number;
  /** Share of runs killed with SIGKILL at a random moment. */
  killShare: number;
}

interface Op {
  actor: number;
  kind: 'add' | 'reduce' | 'roll';
  amount: number;
  key: string;
  killAfterMs?: number;
  exit?: number | null;
}

export interface HistoryResult {
  seed: number;
  ops: Op[];
  problems: string[];
  serverUsd: number;
  expectedUsd: number;
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

function sideUsd(simulator: Simulator): number {
  return Math.round(simulator.active(SIDE).reduce((sum, hedge) => sum + hedge.notionalUsd, 0) * 100) / 100;
}

async function runOp(simulator: Simulator, op: Op): Promise<void> {
  const args =
    op.kind === 'roll'
      ? ['roll', MARKET, SIDE, '--tenor', '7']
      : [op.kind, MARKET, SIDE, String(op.amount), '--idempotency-key', op.key, '--skip-checks'];
  let child: ChildProcess | undefined;
  let timer: NodeJS.Timeout | undefined;
  const running = simulator.hedge(args, {
    timeoutMs: 60_000,
    env: { HEDGE_REPEAT_WINDOW: '0' },
    onSpawn: (spawned) => {
      child = spawned;
      if (op.killAfterMs !== undefined) timer = setTimeout(() => child?.kill('SIGKILL'), op.killAfterMs);
    },
  });
  const result = await running;
  if (timer) clearTimeout(timer);
  op.exit = result.code;
}

/** Runs one random history and checks it; never throws for a failed check (problems lists them). */
export async function runHistory(options: HistoryOptions): Promise<HistoryResult> {
  const random = prng(options.seed);
  const simulator = await startSimulator({ fillDelayMs: 50 + Math.floor(random() * 300), clockSpeed: 60 });
  try {
    simulator.seedOpen(SIDE, SEED_USD);
    simulator.sandbox.setFaults({ fault5xx: 0.05, dropAfterCommit: 0.08, latencyMs: Math.floor(random() * 80), match: { method: 'POST' } });
    const ops: Op[] = [];
    for (let actor = 0; actor < options.actors; actor++) {
      for (let index = 0; index < options.opsPerActor; index++) {
        const draw = random();
        const kind: Op['kind'] = draw < 0.45 ? 'add' : draw < 0.85 ? 'reduce' : 'roll';
        const amount = 10 + Math.floor(random() * 190);
        const killed = random() < options.killShare;
        ops.push({ actor, kind, amount, key: `chaos-${options.seed}-${actor}-${index}`, killAfterMs: killed ? Math.floor(random() * 1_500) : undefined });
      }
    }
    // Each actor runs its own ops one after another; the actors run at once.
    await Promise.all(
      Array.from({ length: options.actors }, async (_, actor) => {
        for (const op of ops.filter((candidate) => candidate.actor === actor)) await runOp(simulator, op);
      }),
    );
    // Finish what was left unresolved: the faults off, every unresolved entry resumed with its key.
    simulator.sandbox.setFaults({ fault5xx: 0, dropAfterCommit: 0, latencyMs: 0, match: null });
    for (let round = 0; round < 3 * ops.length; round++) {
      const pending = await unresolvedIds(simulator);
      if (pending.length === 0) break;
      await simulator.hedge(['resume', pending[0]!], { timeoutMs: 60_000 });
    }
    return check(simulator, options.seed, ops);
  } finally {
    await simulator.close();
  }
}

/** The journal the actors share, read as it is on disk (every entry, whole). */
async function journal(simulator: Simulator): Promise<Array<Record<string, any>>> {
  return (await openJournal({ dir: simulator.configDir }).list()) as unknown as Array<Record<string, any>>;
}

async function unresolvedIds(simulator: Simulator): Promise<string[]> {
  return (await journal(simulator)).filter((entry) => ['pending', 'submitted', 'unknown', 'planned'].includes(entry.outcome)).map((entry) => entry.id as string);
}

async function check(simulator: Simulator, seed: number, ops: Op[]): Promise<HistoryResult> {
  const entries = await journal(simulator);
  const problems: string[] = [];
  const landed = (entry: Record<string, any>) => entry.outcome === 'done' || entry.outcome === 'filled';
  let expectedUsd = SEED_USD;
  for (const entry of entries) {
    const amount = Number(entry.request?.body?.notional_usd ?? 0);
    if (entry.command === 'add' && landed(entry)) expectedUsd += amount;
    if (entry.command === 'reduce' && landed(entry)) expectedUsd -= amount;
  }
  expectedUsd = Math.round(expectedUsd * 100) / 100;
  const unresolved = entries.filter((entry) => !landed(entry) && !['rejected', 'failed', 'abandoned'].includes(entry.outcome));
  if (unresolved.length > 0) problems.push(`unresolved after resume: ${unresolved.map((entry) => `${entry.command} ${entry.id} ${entry.outcome}`).join(', ')}`);
  const serverUsd = sideUsd(simulator);
  if (unresolved.length === 0 && serverUsd !== expectedUsd) problems.push(`the server holds ${serverUsd} USD on the side; the journal's landed actions make ${expectedUsd}`);

  const acted = simulator.writes().filter((entry) => entry.status === 200 && entry.path !== '/quotes');
  const knownKeys = new Set(entries.map((entry) => entry.idempotency_key as string));
  for (const write of acted) {
    if (write.idempotencyKey === null || !knownKeys.has(write.idempotencyKey)) problems.push(`the server acted on ${write.method} ${write.path} under a key the journal does not know (${write.idempotencyKey})`);
  }
  for (const op of ops) {
    if (op.exit !== 0 || op.kind === 'roll') continue;
    if (!acted.some((write) => write.idempotencyKey === op.key)) problems.push(`${op.kind} ${op.amount} (${op.key}) exited 0, but the server never acted on its key`);
  }
  // A replayed key is answered from the server's record: the engine's hedges show no doubling when
  // (1) holds, so the per-key check is on the journal: one entry per key.
  const perKey = new Map<string, number>();
  for (const entry of entries) perKey.set(entry.idempotency_key, (perKey.get(entry.idempotency_key) ?? 0) + 1);
  for (const [key, count] of perKey) if (count > 1) problems.push(`${count} journal entries share the key ${key}`);
  return { seed, ops, problems, serverUsd, expectedUsd };
}

export function describeHistory(result: HistoryResult): string {
  const lines = result.ops.map((op) => `  actor ${op.actor}: ${op.kind} ${op.kind === 'roll' ? '' : op.amount}${op.killAfterMs === undefined ? '' : ` (kill -9 after ${op.killAfterMs} ms)`} → exit ${op.exit}`);
  return [`seed ${result.seed}: server ${result.serverUsd} USD, expected ${result.expectedUsd} USD`, ...lines, ...result.problems.map((problem) => `  ✗ ${problem}`)].join('\n');
}
