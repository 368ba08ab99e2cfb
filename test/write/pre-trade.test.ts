// The pre-trade checks as pure functions: which failure wins, what numbers the error carries, and
// that a notional exactly at a limit passes.
import { preTradeProblem } from '../../src/features/trade/pre-trade.js';

function facts(overrides: { status?: string; buy?: number; sell?: number; headroom?: number } = {}) {
  const market = {
    market: 'USDTNGN',
    status: overrides.status ?? 'open',
    price: 1532.4,
    available_capacity_usd: { buy: overrides.buy ?? 800_000, sell: overrides.sell ?? 500_000 },
    net_rate_daily_pct: { buy: 0.01, sell: -0.005 },
  };
  const account = { balance_usdc: 1_000_000, available_exposure_usd: overrides.headroom ?? 600_000 };
  return { markets: [market], account };
}

const ask = (side: 'buy' | 'sell', notionalUsd: number, action: 'open' | 'add' = 'open', market = 'USDTNGN') => ({
  market,
  side,
  notionalUsd,
  action,
});

it.each([
  ['passes a notional within both limits', {}, ask('buy', 10_000), undefined],
  ['passes a notional exactly at the capacity', {}, ask('sell', 500_000), undefined],
  ['passes a notional exactly at the headroom', {}, ask('buy', 600_000, 'add'), undefined],
  ['matches the market name case-insensitively', {}, ask('buy', 1, 'open', 'usdtngn'), undefined],
  ['refuses a disabled market', { status: 'disabled' }, ask('buy', 1), { code: 'market_disabled' }],
  [
    'refuses a notional over the account headroom with both numbers',
    {},
    ask('buy', 700_000),
    {
      code: 'exposure_exceeded',
      details: { requested_usd: 700_000, available_exposure_usd: 600_000, available_capacity_usd: 800_000 },
      // The side's capacity too, and the size that would pass.
      message: expect.stringMatching(
        /700,000\.00 USD would push .*: 600,000\.00 USD of headroom left \(the buy capacity of USDTNGN: 800,000\.00 USD; at most 600,000\.00 USD now\)/,
      ),
    },
  ],
  [
    'refuses a notional over the side capacity',
    { headroom: 900_000 },
    ask('sell', 550_000, 'add'),
    {
      code: 'capacity_exceeded',
      details: { side: 'sell', requested_usd: 550_000, available_capacity_usd: 500_000 },
    },
  ],
  // The other side's capacity is not looked at.
  ['passes the other side', { headroom: 900_000 }, ask('buy', 550_000, 'add'), undefined],
  // Like the service: the exposure cap before the capacity.
  ['checks the cap first', { buy: 100, headroom: 50 }, ask('buy', 1_000), { code: 'exposure_exceeded' }],
])('preTradeProblem %s', (_name, overrides, request, expected) => {
  expect(preTradeProblem(facts(overrides), request)).toEqual(expected && expect.objectContaining(expected));
});
