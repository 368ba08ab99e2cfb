// The human table's view of records whose fields the server names its own way: what the tolerant
// readers found under a synonym (or from the hedge) is shown under our name, once; the rest as sent.
import { describe, expect, it } from 'vitest';
import { historyRecordForPeople } from '../../src/api/wire/read-history.js';
import { readPosition } from '../../src/api/wire/read-position.js';
import { showUnderKnownNames } from '../../src/api/wire/unspecified.js';
import { positionForPeople } from '../../src/flows/positions.js';

describe('showUnderKnownNames', () => {
  it('moves a value read under a synonym to the known name and keeps the rest in order', () => {
    const row = showUnderKnownNames({ a: 1, direction: 'Buy', z: 2 }, [{ known: 'side', value: 'buy', synonyms: ['side', 'direction'] }]);
    expect(row).toEqual({ a: 1, z: 2, side: 'buy' });
    expect(Object.keys(row)).toEqual(['a', 'z', 'side']);
  });

  it('leaves a record that already uses the known name, or has no value, untouched', () => {
    const raw = { side: 'sell', direction: 'buy' };
    expect(showUnderKnownNames(raw, [{ known: 'side', value: 'sell', synonyms: ['side', 'direction'] }])).toEqual(raw);
    expect(showUnderKnownNames({ x: 1 }, [{ known: 'side', value: undefined, synonyms: ['side'] }])).toEqual({ x: 1 });
  });

  it('keeps a synonym field whose value is not the one that was read (nothing is lost)', () => {
    const row = showUnderKnownNames({ direction: 'long-ish' }, [{ known: 'side', value: 'buy', synonyms: ['side', 'direction'] }]);
    expect(row).toEqual({ direction: 'long-ish', side: 'buy' });
  });
});

describe('positionForPeople', () => {
  it('alpha: direction and size_usd shown as side and notional_usd', () => {
    const raw = { market: 'USDTNGN', direction: 'buy', hedge_id: 'hdg_1', size_usd: 12000, units: 12000, entry_rate: 1517.3, net_margin_usd: 990 };
    const row = positionForPeople({ ...readPosition(raw), raw });
    expect(row).toEqual({ market: 'USDTNGN', hedge_id: 'hdg_1', units: 12000, net_margin_usd: 990, side: 'buy', notional_usd: 12000, entry_price: 1517.3 });
  });

  it('beta: a side the position does not carry, taken from its hedge, is shown', () => {
    const raw = { market: 'USDTNGN', hedge_id: 'hdg_2', notional: 8000, qty: 8000, net_margin_usd: 790 };
    const row = positionForPeople({ ...readPosition(raw), side: 'sell', raw });
    expect(row).toEqual({ market: 'USDTNGN', hedge_id: 'hdg_2', units: 8000, net_margin_usd: 790, notional_usd: 8000, side: 'sell' });
  });
});

describe('historyRecordForPeople', () => {
  it('alpha: hedge, direction, size_usd, tenor and the times under the known names', () => {
    const raw = {
      hedge: 'hdg_3',
      market: 'USDTNGN',
      direction: 'sell',
      size_usd: 8000,
      tenor: 1,
      client_ref: 'DEAL-1',
      entry_time: '2026-11-22T12:00:00.000Z',
      exit_time: '2026-11-22T13:00:00.000Z',
      carry_paid_usdc: 0.5,
      fees_paid_usdc: 8,
      net_pnl_usd: -6.4,
    };
    expect(historyRecordForPeople(raw)).toEqual({
      market: 'USDTNGN',
      client_reference: 'DEAL-1',
      net_pnl_usd: -6.4,
      carry_usdc: 0.5,
      fees_usdc: 8,
      notional_usd: 8000,
      side: 'sell',
      tenor_days: 1,
      hedge_id: 'hdg_3',
      opened_at: '2026-11-22T12:00:00.000Z',
      closed_at: '2026-11-22T13:00:00.000Z',
    });
  });

  it('beta: id, notional, opened, closed and funding_usdc', () => {
    const raw = { id: 'hdg_4', side: 'buy', notional: 10000, opened: '2026-11-22T12:00:00.000Z', closed: '2026-11-22T12:30:00.000Z', funding_usdc: 0, net_pnl_usd: -13.8 };
    expect(historyRecordForPeople(raw)).toEqual({
      side: 'buy',
      net_pnl_usd: -13.8,
      carry_usdc: 0,
      notional_usd: 10000,
      hedge_id: 'hdg_4',
      opened_at: '2026-11-22T12:00:00.000Z',
      closed_at: '2026-11-22T12:30:00.000Z',
    });
  });
});
