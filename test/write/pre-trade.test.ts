// The pre-trade checks as pure functions: which failure wins, what numbers the error carries, and
// that a notional exactly at a limit passes.
import { describe, expect, it } from 'vitest';
import type { Account, Market } from '../../src/platform/api/schemas.js';
import {
  preTradeProblem as anyPreTradeProblem,
  type PreTradeFacts,
  type PreTradeRequest,
} from '../../src/features/trade/pre-trade-rules.js';
import { PreTradeCheckError, UsageError } from '../../src/core/errors.js';

function facts(overrides: { status?: string; buy?: number; sell?: number; headroom?: number } = {}): PreTradeFacts {
  const market: Market = {
    market: 'USDTNGN',
    status: overrides.status ?? 'open',
    price: 1532.4,
    available_capacity_usd: { buy: overrides.buy ?? 800_000, sell: overrides.sell ?? 500_000 },
    net_rate_daily_pct: { buy: 0.01, sell: -0.005 },
  };
  const account: Account = { balance_usdc: 1_000_000, available_exposure_usd: overrides.headroom ?? 600_000 };
  return { markets: [market], account };
}

/** The notional checks give PreTradeCheckError (exit 3); only an unlisted market is a UsageError. */
function preTradeProblem(facts: PreTradeFacts, request: PreTradeRequest): PreTradeCheckError | undefined {
  const problem = anyPreTradeProblem(facts, request);
  if (problem instanceof UsageError) throw problem;
  return problem;
}

describe('preTradeProblem', () => {
  it('passes a notional within both limits, and one exactly at the tighter limit', () => {
    expect(
      preTradeProblem(facts(), { market: 'USDTNGN', side: 'buy', notionalUsd: 10_000, action: 'open' }),
    ).toBeUndefined();
    expect(
      preTradeProblem(facts(), { market: 'USDTNGN', side: 'sell', notionalUsd: 500_000, action: 'open' }),
    ).toBeUndefined();
    expect(
      preTradeProblem(facts(), { market: 'USDTNGN', side: 'buy', notionalUsd: 600_000, action: 'add' }),
    ).toBeUndefined();
  });

  it('refuses a disabled market', () => {
    const problem = preTradeProblem(facts({ status: 'disabled' }), {
      market: 'USDTNGN',
      side: 'buy',
      notionalUsd: 1,
      action: 'open',
    });
    expect(problem!.code).toBe('market_disabled');
  });

  it('refuses a notional over the account headroom with both numbers', () => {
    const problem = preTradeProblem(facts(), { market: 'USDTNGN', side: 'buy', notionalUsd: 700_000, action: 'open' });
    expect([problem!.code, problem!.details]).toEqual([
      'exposure_exceeded',
      { requested_usd: 700_000, available_exposure_usd: 600_000 },
    ]);
    expect(problem!.message).toContain('700,000.00 USD');
    expect(problem!.message).toContain('600,000.00 USD');
  });

  it('refuses a notional over the side capacity (the other side is not looked at)', () => {
    const problem = preTradeProblem(facts({ headroom: 900_000 }), {
      market: 'USDTNGN',
      side: 'sell',
      notionalUsd: 550_000,
      action: 'add',
    });
    expect([problem!.code, problem!.details]).toEqual([
      'capacity_exceeded',
      { side: 'sell', requested_usd: 550_000, available_capacity_usd: 500_000 },
    ]);
    expect(
      preTradeProblem(facts({ headroom: 900_000 }), {
        market: 'USDTNGN',
        side: 'buy',
        notionalUsd: 550_000,
        action: 'add',
      }),
    ).toBeUndefined();
  });

  it('checks the exposure cap before the capacity, like the service', () => {
    const problem = preTradeProblem(facts({ buy: 100, headroom: 50 }), {
      market: 'USDTNGN',
      side: 'buy',
      notionalUsd: 1_000,
      action: 'open',
    });
    expect(problem!.code).toBe('exposure_exceeded');
  });

  it('matches the market name case-insensitively', () => {
    expect(
      preTradeProblem(facts(), { market: 'usdtngn', side: 'buy', notionalUsd: 1, action: 'open' }),
    ).toBeUndefined();
  });
});
