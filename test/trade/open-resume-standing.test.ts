// Resuming an open the server answered, whose hedge's record the side model reads (book.ts recordStanding): a hedge
// that failed was made and is followed to its end, recorded failed, nothing sent again; one in a status hedge does not
// know is never taken as landed: cannot tell, nothing sent.
import { apiData, MARKET, useSimulators } from '../support/simulator.js';
import { exits, journalEntries } from '../support/cli-runs.js';
import { hedgeOf, HOUR } from '../support/keeper.js';

const start = useSimulators({ stepped: true });

/** An open bounded by --timeout before its hedge resolves (exit 7): its entry, submitted with the hedge's id. */
async function openRunOut(simulator: Awaited<ReturnType<typeof start>>) {
  exits(await simulator.hedge(`open ${MARKET} buy 1000 --tenor 1 --yes --timeout 2`), 7, 'The order stands');
  const [entry] = await journalEntries(simulator);
  expect([entry.outcome, entry.hedge_id]).toEqual(['submitted', simulator.hedges()[0].id]);
  return entry;
}

it('resume of an open whose hedge failed on-chain: followed to its end, recorded failed with its own exit, nothing sent again', async () => {
  const simulator = await start({ failRate: 1, fillDelayMs: HOUR, untimed: true });
  const entry = await openRunOut(simulator);
  simulator.advance(HOUR);
  expect(hedgeOf(simulator, entry.hedge_id!).status).toBe('failed');
  exits(await simulator.hedge(`resume ${entry.id} --yes --timeout 20`), 6, `hedge ${entry.hedge_id} failed on-chain`);
  expect(simulator.requests('POST', '/hedges')).toHaveLength(1);
  expect((await journalEntries(simulator))[0]).toMatchObject({ id: entry.id, outcome: 'failed' });
});

it("resume of an open whose hedge shows a status hedge does not know (settling, after a close), past its key's lifetime: cannot tell, in the side model's words, nothing sent again", async () => {
  const simulator = await start({ closedSettlingMs: 10 * HOUR, fillDelayMs: HOUR, untimed: true });
  const entry = await openRunOut(simulator);
  simulator.advance(HOUR);
  await apiData(simulator, 'POST', '/hedges/close', { market: MARKET, side: 'buy' });
  simulator.advance(HOUR);
  expect(await apiData(simulator, 'GET', `/hedges/${entry.hedge_id}`)).toMatchObject({ status: 'settling' });
  exits(
    await simulator.hedge(`resume ${entry.id} --yes --timeout 20`, { env: { HEDGE_KEY_LIFETIME: '1' } }),
    12,
    `The book cannot tell whether it landed: hedge ${entry.hedge_id} shows status "settling", which hedge does not know (neither open nor ended). Nothing was sent.`,
  );
  expect(simulator.requests('POST', '/hedges')).toHaveLength(1);
  expect((await journalEntries(simulator))[0]).toMatchObject({ id: entry.id, outcome: 'submitted' });
});
