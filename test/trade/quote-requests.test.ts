// `hedge quote` is GET /markets, then POST /quotes with GET /account beside it: a market the list does not
// show is refused before the quote is sent (exit 2); a size an open would be refused for is said on stderr,
// the quote still printed (exit 0). After a refusal the markets list says whether the market is why.
// Counted on the simulator's own log.
import { apiData, startSimulator, withSimulator, type Simulator } from '../support/simulator.js';
import { ok, exits } from '../support/cli-runs.js';
import { openBody } from '../support/engine.js';

let simulator: Simulator;
/** The requests since `before`, sorted: the quote and its reads go out together. */
const sent = (before: number) =>
  simulator
    .requests()
    .slice(before)
    .map((entry) => `${entry.method} ${entry.path} ${entry.status}`)
    .sort();

beforeAll(async () => {
  simulator = await startSimulator({
    preset: 'frozen',
    extraMarkets: [{ market: 'USDTGHS', status: 'disabled', basePrice: 15.4 }],
  });
});

afterAll(async () => {
  await simulator?.close();
});

it('quote: a good quote is POST /quotes with the normalised body, the pre-trade reads beside it, nothing said', async () => {
  const before = simulator.requests().length;
  const result = ok(await simulator.hedge('quote usdtngn Buy 10k --tenor 3 --json'));
  const normalised = openBody('buy', 10_000, 3);
  expect(JSON.parse(result.stdout)).toMatchObject(normalised);
  expect(result.stderr).toBe('');
  expect(sent(before)).toEqual(['GET /account 200', 'GET /markets 200', 'POST /quotes 200']);
  expect(simulator.requests('POST', '/quotes').at(-1)!.body).toEqual(normalised);
});

it('a tenor with a unit: 3d is 3 days; any other unit is refused in one line naming d, nothing sent (exit 2)', async () => {
  ok(await simulator.hedge('quote USDTNGN buy 10000 --tenor 3d --json'));
  expect(simulator.requests('POST', '/quotes').at(-1)!.body).toMatchObject({ tenor_days: 3 });
  const before = simulator.requests().length;
  for (const tenor of ['1w', '72h', '3days']) {
    expect(exits(await simulator.hedge(`quote USDTNGN buy 10000 --tenor ${tenor}`), 2).stderr).toBe(
      `hedge: --tenor: "${tenor}" is not allowed; expected 1, 3 or 7 (days); d is the only unit (3d is 3 days).\n`,
    );
  }
  expect(simulator.requests().length).toBe(before);
});

it('an unlisted market: refused from the markets list before anything else is sent, exit 2', async () => {
  const before = simulator.requests().length;
  const result = exits(await simulator.hedge('quote EURNGN buy 10000 --tenor 3'), 2);
  expect(result.stdout).toBe('');
  expect(result.stderr).toBe('hedge: market: "EURNGN" is not listed for this account; listed: USDTNGN, USDTGHS.\n');
  expect(sent(before)).toEqual(['GET /markets 200']);
});

it('a listed market that is not open: the API refusal (exit 3), its hint naming the status and the open markets', async () => {
  const before = simulator.requests().length;
  const result = exits(await simulator.hedge('quote USDTGHS sell 10000 --tenor 7 --json'), 3);
  expect(result.stdout).toBe('');
  expect(JSON.parse(result.stderr).error).toMatchObject({
    code: 'market_disabled',
    class: 'rejected',
    status: 400,
    hint: 'USDTGHS is disabled on the markets list; open now: USDTNGN.',
  });
  expect(sent(before)).toEqual(['GET /account 200', 'GET /markets 200', 'GET /markets 200', 'POST /quotes 400']);
});

it("a markets list that cannot be read: the quote is sent and the server's refusal stands (exit 3, not 2)", async () => {
  await withSimulator({ preset: 'frozen' }, async (unread) => {
    unread.sandbox.setFaults({
      nextError: { count: 1, status: 404, code: 'not_found' },
      match: { method: 'GET', path: '/markets' },
    });
    const result = exits(await unread.hedge('quote EURNGN buy 10000 --tenor 3 --json'), 3);
    expect(JSON.parse(result.stderr).error).toMatchObject({
      class: 'rejected',
      status: 400,
      hint: 'EURNGN is not on the markets list; listed: USDTNGN.',
    });
    expect(unread.requests('POST', '/quotes').map((entry) => entry.status)).toEqual([400]);
  });
});

it("a size over the account's headroom: the quote printed, exit 0, and on stderr what an open would be refused for", async () => {
  const result = ok(await simulator.hedge('quote USDTNGN buy 5m --tenor 1 --json'));
  expect(JSON.parse(result.stdout)).toMatchObject({ market: 'USDTNGN', side: 'buy', notional_usd: 5_000_000 });
  const { available_exposure_usd: headroom } = await apiData(simulator, 'GET', '/account');
  const [listed] = await apiData(simulator, 'GET', '/markets');
  const usd = (amount: number) => `${amount.toLocaleString('en-US', { minimumFractionDigits: 2 })} USD`;
  const capacity = listed.available_capacity_usd.buy;
  // Both limits: the cap's headroom and the side's capacity, and the size that would pass.
  expect(result.stderr).toBe(
    `Pre-trade check: opening 5,000,000.00 USD would push the account over its exposure cap: ${usd(headroom)} of headroom left (the buy capacity of USDTNGN: ${usd(capacity)}; at most ${usd(Math.min(headroom, capacity))} now). An open of this size would be refused.\n`,
  );
  expect(simulator.writes().filter((entry) => entry.path !== '/quotes')).toEqual([]);
});

it("a size over the side's capacity (headroom to spare): the capacity and the size on stderr, exit 0", async () => {
  await withSimulator({ preset: 'frozen', exposureCapUsd: 100_000_000 }, async (roomy) => {
    const result = ok(await roomy.hedge('quote USDTNGN sell 5m --tenor 1'));
    const [listed] = await apiData(roomy, 'GET', '/markets');
    const capacity = listed.available_capacity_usd.sell.toLocaleString('en-US', {
      minimumFractionDigits: 2,
    });
    expect(result.stderr).toContain(
      `Pre-trade check: 5,000,000.00 USD is more than the sell capacity of USDTNGN: ${capacity} USD available. An open of this size would be refused.`,
    );
    expect(result.stdout).toMatch(/^market\tside\t/);
  });
});
