// Killed writes, then the same command (or `hedge resume`) again: every action happens exactly once
// on the server. Each kill is timed by the simulator's own request log (a write held mid-answer, a
// read held by latency, the wait's polls) or, for a kill -9 in a wait, by the journal's record of the
// answer the wait follows; never by a sleep. What is asserted is the server's state and its log: one
// idempotency key per action, one hedge, the notional moved once.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { until } from '../support/polling.js';
import { useSimulators, type Simulator } from '../support/simulator.js';
import {
  exits,
  journalEntries,
  keysAnswered,
  killWhen,
  heldPauses,
  waitingAfter,
  ok,
  okJson,
} from '../support/cli-runs.js';
import { hedgeOf } from '../support/keeper.js';

const startTrading = useSimulators({ stepped: true });

/** Sandbox time for a fill or a change to land: the tests move the clock, nothing lands by itself. */
const LAND_MS = 3_600_000;

/**
 * From now, a write answered, recorded as submitted and the journal's file lock let go: its run is in
 * its wait, and writes nothing more until a poll shows the landing. The journal holds a row already.
 */
function inItsWait(t: Simulator) {
  const file = join(t.configDir, 'journal.jsonl');
  const submitted = () => readFileSync(file, 'utf8').split('"outcome":"submitted"').length;
  const before = submitted();
  return () => submitted() > before && !existsSync(`${file}.lock`);
}

/** A filled hedge to change: opened without waiting, then the clock moved past its fill. */
async function filledHedge(t: Simulator, side: 'buy' | 'sell', notional: string) {
  const id = okJson(await t.hedge(`open USDTNGN ${side} ${notional} --tenor 7 --no-wait --json`)).hedge_id;
  t.sandbox.clock.advance(LAND_MS);
  expect(okJson(await t.hedge(`hedges ${id} --json`))).toMatchObject({ status: 'filled' });
  return id;
}

describe('kill -9, then the same command again: the action happens once', () => {
  // The same killed open finished by running it again, or by `hedge resume`.
  it.each([
    [
      'open killed after the server committed, before its answer arrived: the re-run resumes, one hedge',
      'open USDTNGN buy 10000 --tenor 3 --json',
    ],
    ['hedge resume finishes a killed open once, updating the same journal entry', 'resume --json'],
  ])('%s', async (_name, again) => {
    const t = await startTrading();
    // The answer's status line and half its body are sent, then the socket hangs: the engine has acted.
    t.sandbox.setFaults({ stall: 'body', match: { method: 'POST', path: '/hedges' } });
    const killed = await killWhen(
      t,
      'open USDTNGN buy 10000 --tenor 3'.split(' '),
      () => t.requests('POST', '/hedges').some((entry) => entry.status === 'stalled'),
      'the open was committed and held',
    );
    expect(killed.signal).toBe('SIGKILL');
    expect(t.hedges()).toHaveLength(1);
    const [left] = await journalEntries(t, '--pending');
    expect(left).toMatchObject({ command: 'open', outcome: 'pending' });

    t.sandbox.setFaults({ stall: null, match: null });
    const resumed = ok(await t.hedge(again));
    expect(resumed.stderr).toMatch(
      new RegExp(
        `Resuming the open started \\d\\d:\\d\\d:\\d\\d UTC (\\(journal ${left.id}, outcome pending\\) )?with key ${left.idempotency_key}`,
      ),
    );
    const [hedge, ...more] = t.hedges();
    expect(more).toEqual([]);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ id: hedge.id, status: 'filled' });
    // Every POST /hedges carried the one key; the engine created one hedge for it.
    expect(new Set(t.requests('POST', '/hedges').map((entry) => entry.idempotencyKey))).toEqual(
      new Set([left.idempotency_key]),
    );
    expect(await journalEntries(t)).toMatchObject([{ id: left.id, outcome: 'filled', hedge_id: hedge.id }]);
  });

  it.each([
    ['add', 'buy', '10000', '500', { notionalUsd: 10_500 }],
    ['reduce', 'sell', '20000', '5000', { notionalUsd: 15_000, status: 'filled' }],
    ['close', 'buy', '8000', undefined, { status: 'closed' }],
  ] as const)(
    '%s killed during its wait: the re-run resumes with the same key and the hedge changes once',
    async (command, side, notional, amount, after) => {
      const t = await startTrading({ fillDelayMs: LAND_MS });
      const id = await filledHedge(t, side, notional);
      const args = [command, 'USDTNGN', side, ...(amount ? [amount] : [])];
      const path = `/hedges/${command}`;
      const killed = await killWhen(t, args, inItsWait(t), `the ${command} was waiting`);
      expect(killed.signal).toBe('SIGKILL');
      if (command === 'add') expect(hedgeOf(t, id).pendingChange).toMatchObject({ action: 'add', notionalUsd: 500 });

      t.sandbox.clock.advance(LAND_MS);
      exits(await t.hedge([...args, '--json']), 0, `Resuming the ${command} started`);
      expect(hedgeOf(t, id)).toMatchObject(after);
      expect(hedgeOf(t, id).pendingChange).toBeUndefined();
      expect([
        keysAnswered(t, path).length,
        new Set(t.requests('POST', path).map((entry) => entry.idempotencyKey)).size,
      ]).toEqual([1, 1]);
      expect((await journalEntries(t)).filter((entry) => entry.command === command)).toMatchObject([
        { outcome: 'done' },
      ]);
      // One realized record: the close's.
      if (command === 'close')
        expect(Object.values(t.sandbox.engine.state.accounts)[0].history.map((record) => record.hedge_id)).toEqual([
          id,
        ]);
    },
  );

  it('killed before the send (held at a pre-trade read): nothing was journaled or sent, the re-run is one fresh action', async () => {
    const t = await startTrading();
    t.sandbox.setFaults({ nextLatency: { count: 1, ms: 60_000 }, match: { method: 'GET' } });
    const killed = await killWhen(
      t,
      'open USDTNGN sell 2000 --tenor 3'.split(' '),
      () =>
        t.sandbox.requestLog.some(
          (entry) => entry.method === 'GET' && entry.status === 'pending' && entry.fault === 'latency',
        ),
      'a pre-trade read was held',
    );
    expect(killed.signal).toBe('SIGKILL');
    expect([t.writes(), await journalEntries(t)]).toEqual([[], []]);

    t.sandbox.setFaults({ nextLatency: null, match: null });
    const again = ok(await t.hedge('open USDTNGN sell 2000 --tenor 3'));
    expect(again.stderr).not.toContain('Resuming');
    expect([t.hedges().length, t.sends('/hedges').length]).toEqual([1, 1]);
    expect(await journalEntries(t)).toMatchObject([{ command: 'open', outcome: 'filled' }]);
  });
});

it('hedge resume ID of an add killed in its wait re-sends its key, then waits for the landing as add would', async () => {
  const t = await startTrading({ fillDelayMs: LAND_MS });
  const id = await filledHedge(t, 'buy', '10000');
  await killWhen(t, 'add USDTNGN buy 500'.split(' '), inItsWait(t), 'the add was waiting');
  const [left] = await journalEntries(t, '--pending');
  expect(left).toMatchObject({ command: 'add' });

  const before = t.sandbox.requestLog.length;
  // Its pauses end at once until it has polled the positions after its replayed add; the next one is the test's to end.
  const pauses = heldPauses(() => {
    const log = t.sandbox.requestLog.slice(before);
    const sent = log.findIndex((entry) => entry.path === '/hedges/add' && entry.status === 200);
    return sent >= 0 && log.slice(sent + 1).some((entry) => entry.path === '/positions' && entry.status === 200);
  });
  let finished = false;
  const running = t.hedge(`resume ${left.id} --json`, { clock: pauses.clock }).finally(() => (finished = true));
  await until(pauses.paused, 'the resumed add waiting after a poll', { process: running });
  // Still running: waiting for the landing only this test can bring about.
  expect(finished).toBe(false);
  t.sandbox.clock.advance(LAND_MS);
  pauses.wake();
  const resumed = ok(await running);
  expect(JSON.parse(resumed.stdout)).toMatchObject({ notional_usd: 10_500 });
  expect(hedgeOf(t, id).notionalUsd).toBe(10_500);
  expect(keysAnswered(t, '/hedges/add')).toEqual([left.idempotency_key]);
  expect((await journalEntries(t)).find((entry) => entry.id === left.id)).toMatchObject({ outcome: 'done' });
});

it.each([
  // An add waiting for its landing in the positions list, on a filled open.
  [
    'SIGTERM',
    143,
    'add USDTNGN buy 500',
    '/hedges/add',
    '/positions',
    [
      ['add', 'submitted'],
      ['open', 'done'],
    ],
  ],
  // An open waiting for its fill on its hedge record.
  ['SIGHUP', 129, 'open USDTNGN sell 3000 --tenor 3', '/hedges', '/hedges/hdg_', [['open', 'submitted']]],
] as const)(
  'stopped by a signal during the wait, %s → exit %i, names the resume command and the key; the entry stays unresolved (--pending lists it alone) and the key is never in the journal',
  async (signal, code, args, path, polled, journaled) => {
    const t = await startTrading({ fillDelayMs: LAND_MS });
    if (args.startsWith('add')) await filledHedge(t, 'buy', '10000');
    // Its poll seen: a signal before the wait is under way is another story.
    const waiting = waitingAfter(t, path, (seen) => seen.startsWith(polled));
    const stopped = exits(await killWhen(t, args.split(' '), waiting, 'the write was waiting', { signal }), code);
    const [pending, ...more] = await journalEntries(t, '--pending');
    expect([pending.outcome, more]).toEqual(['submitted', []]);
    for (const said of [`hedge resume ${pending.id}`, pending.idempotency_key]) expect(stopped.stderr).toContain(said);
    expect((await journalEntries(t)).map((entry) => [entry.command, entry.outcome])).toEqual(journaled);
    expect(t.hedges()).toHaveLength(1);
    expect(readFileSync(join(t.configDir, 'journal.jsonl'), 'utf8')).not.toContain(t.sandbox.apiKey);
  },
);
