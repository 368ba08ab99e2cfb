// A close whose wait was cut short (killed with -9) and whose side was opened again by
// someone else before `hedge resume`: the close's own hedge is closed on the server, so the resume
// says done and acts on nothing — it must not wait for the side to empty, which it never will (the
// new hedge is not its to close). Found by the concurrent-history checker (test/chaos, seed 7 of
// the 1,000-history run): a killed close, then a roll's open on the emptied side, left the close
// `submitted` through every resume. The same close run again (not `resume`) finishes that action too,
// but was asked for a flat side: it names the hedge open now and exits 12. Judged on the simulator's
// own state and request log.
import { expect, it } from 'vitest';
import { exits, journalEntries, killWhen, waitingAfter, ok } from '../support/cli-runs.js';
import { MARKET, useSimulators, type Simulator } from '../support/simulator.js';
import { activeSizes } from '../support/keeper.js';

const startSimulator = useSimulators({ stepped: true });

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
