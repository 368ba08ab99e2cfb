// A close (or a whole reduce) on a server that shows a hedge in a status of its own while the close
// lands (the simulator's gamma dialect: `settling`), bounded by --timeout before it lands: the first
// run exits 7 (accepted, not settled yet). Its resume, while the server still shows the hedge
// settling, is the same outcome: the server's answer to this action (journaled) proves it was
// accepted, and the settling side is it landing, so the resume follows it without sending it again —
// exit 7, never "cannot tell". Judged on the simulator's own state and request log.
//
// A close whose wait was cut short (killed with -9) and whose side was opened again by
// someone else before `hedge resume`: the close's own hedge is closed on the server, so the resume
// says done and acts on nothing — it must not wait for the side to empty, which it never will (the
// new hedge is not its to close). Found by the concurrent-history checker (test/chaos, seed 7 of
// the 1,000-history run): a killed close, then a roll's open on the emptied side, left the close
// `submitted` through every resume. The same close run again (not `resume`) finishes that action too,
// but was asked for a flat side: it names the hedge open now and exits 12. Judged on the simulator's
// own state and request log.
import { exits, journalEntries, killWhen, ok, waitingAfter } from '../support/cli-runs.js';
import { colleagueOpens, MARKET, useSimulators, type Simulator } from '../support/simulator.js';
import { until } from '../support/polling.js';
import { activeSizes, HOUR } from '../support/keeper.js';

const startSimulator = useSimulators({ stepped: true });
// Gamma lists USDTNGN disabled.
const KES = 'USDTKES';

it.each([
  [
    'gamma: a close resumed while its hedge is still `settling` exits 7 as its first run did and sends nothing; once the close lands, a resume ends it done',
    'close',
    [],
    [],
  ],
  // Gamma refuses the amount's first name: that request did nothing (journaled rejected), and the reduce goes again
  // under a key of its own.
  [
    'gamma: a whole reduce resumed while its hedge is still `settling` exits 7 as its first run did and sends nothing; once it lands, a resume ends it',
    'reduce',
    ['1000'],
    [400],
  ],
])('%s', async (_name, command, amount, refused) => {
  // --timeout 2 on a clock hedge's pauses alone move: its waits run it out, never the reads before the send.
  const simulator = await startSimulator({ dialect: 'gamma', fillDelayMs: HOUR, untimed: true });
  const hedge = simulator.seedOpen('sell', 1_000, KES);
  const first = exits(
    await simulator.hedge([command, KES, 'sell', ...amount, '--yes', '--timeout', '2']),
    7,
    'was accepted',
  );
  const [entry] = await journalEntries(simulator);
  expect(first.stderr).toContain(`hedge resume ${entry.id}`);
  /** The server's status of the hedge, its history's length, the action's requests and the journal's rows. */
  const state = async () => [
    (await simulator.api('GET', `/hedges/${hedge.id}`)).body.data.status,
    simulator.historyCount(),
    simulator.requests('POST', `/hedges/${command}`).map((write) => [write.idempotencyKey, write.status]),
    (await journalEntries(simulator)).map((row) => [row.id, row.outcome]),
  ];
  const sent = [
    ...refused.map((status) => [expect.not.stringContaining(entry.idempotency_key), status]),
    [entry.idempotency_key, 200],
  ];
  const rejected = refused.map(() => [expect.any(String), 'rejected']);
  const settling = ['settling', 0, sent, [[entry.id, 'submitted'], ...rejected]];
  expect(await state()).toEqual(settling);

  const resumed = await simulator.hedge(['resume', entry.id, '--yes', '--timeout', '2']);
  exits(resumed, 7, `the server accepted this ${command}`, 'Nothing is sent again', `hedge resume ${entry.id}`);
  expect(resumed.stderr).not.toContain('cannot be told');
  // Nothing sent again, under any key; the hedge is still settling, nothing else moved.
  expect(await state()).toEqual(settling);

  // It lands on the server: the next resume follows it to its end, done, one record in the server's history.
  simulator.advance(HOUR);
  ok(await simulator.hedge(['resume', entry.id, '--yes', '--timeout', '20']));
  expect(await state()).toEqual(['closed', 1, sent, [[entry.id, 'done'], ...rejected]]);
});

/** A close killed while it waits (its entry `submitted`), landed since, and the side opened again by another actor. */
async function closeKilledThenReopened() {
  const simulator = await startSimulator({ fillDelayMs: 60_000 });
  const closed = simulator.seedOpen('sell', 1_000);
  expect(
    (
      await killWhen(
        simulator,
        ['close', MARKET, 'sell', '--yes'],
        waitingAfter(simulator, '/hedges/close'),
        'the close was answered and its wait began',
      )
    ).signal,
  ).toBe('SIGKILL');
  const [entry] = await journalEntries(simulator);
  expect(entry.outcome).toBe('submitted');
  // The close lands (the test moves the server's clock), then another actor opens the side again.
  simulator.advance(61_000);
  expect(simulator.hedges().find((hedge) => hedge.id === closed.id)?.status).toBe('closed');
  const reopened = simulator.seedOpen('sell', 700);
  return { simulator, entry, reopened };
}

/** One close key on the server's log, and the other actor's hedge of 700 all the side holds. */
function oneCloseKeyOtherHedgeOpen(simulator: Simulator, reopened: string) {
  expect(new Set(simulator.requests('POST', '/hedges/close').map((write) => write.idempotencyKey)).size).toBe(1);
  expect(activeSizes(simulator, 'sell')).toEqual([[reopened, 700]]);
}

it("a close resumed after its side was opened again by another: done on its own hedge's close, no new close, the new hedge left alone", async () => {
  const { simulator, entry, reopened } = await closeKilledThenReopened();
  ok(await simulator.hedge(`resume ${entry.id} --yes --timeout 20`));
  const [after] = await journalEntries(simulator);
  expect(after).toMatchObject({ id: entry.id, outcome: 'done' });
  // No new close: at most its own key sent again (the server answers it from its record), and the other actor's hedge is untouched.
  oneCloseKeyOtherHedgeOpen(simulator, reopened.id);
});

it('a close re-run after its earlier run closed the side and the side was opened again: names the hedge open now and exits 12, not 0; nothing new is closed', async () => {
  const { simulator, reopened } = await closeKilledThenReopened();
  const rerun = exits(
    await simulator.hedge(['close', MARKET, 'sell', '--yes', '--timeout', '20']),
    12,
    `${reopened.id} (700.00 USD)`,
  );
  expect(rerun.stdout + rerun.stderr).not.toContain('is no longer open');
  // Only the earlier run's key reached the server, and the other actor's hedge is still open.
  oneCloseKeyOtherHedgeOpen(simulator, reopened.id);
});

it("a close never answered, resumed once its own hedge has ended while another actor's hedge is still opening on the side: not proof it did not land, so it is not sent again (exit 12)", async () => {
  const simulator = await startSimulator({ fillDelayMs: 60_000 });
  const own = simulator.seedOpen('sell', 1_000);
  // The close is held on its way in and its run killed there (its entry never answered); the server then takes it.
  simulator.sandbox.setFaults({
    nextLatency: { count: 1, ms: 600_000 },
    match: { method: 'POST', path: '/hedges/close' },
  });
  const closes = () => simulator.requests('POST', '/hedges/close');
  await killWhen(
    simulator,
    ['close', MARKET, 'sell', '--yes'],
    () => closes().some((write) => write.status === 'pending'),
    'the held close',
  );
  simulator.sandbox.releaseHeld();
  await until(() => closes().some((write) => write.status === 200), 'the close taken');
  simulator.advance(61_000);
  expect(simulator.hedges().find((hedge) => hedge.id === own.id)?.status).toBe('closed');
  colleagueOpens(simulator, 'sell', 700, 7);
  const [entry] = await journalEntries(simulator);
  // Its key past its lifetime (0.001 h): only proof that it did not land would send it again.
  exits(
    await simulator.hedge(['resume', entry.id, '--yes', '--timeout', '20'], { env: { HEDGE_KEY_LIFETIME: '0.001' } }),
    12,
  );
  expect(closes().map((write) => write.idempotencyKey)).toEqual([entry.idempotency_key]);
  expect(
    simulator
      .hedges()
      .filter((hedge) => hedge.status !== 'closed')
      .map((hedge) => hedge.notionalUsd),
  ).toEqual([700]);
});
