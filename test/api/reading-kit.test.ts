// The one reading kit (api/wire/fields.ts): one number reader and one field picker
// behind every tolerant reader, so that two readers of one payload read one value.
import { describe, expect, it } from 'vitest';
import {
  firstField,
  nameKey,
  pickField,
  accountForPeople,
  readHistoryRecord,
  readPosition,
  parsePrices,
} from '../../src/platform/api/wire/fields.js';
import { readNumber } from '../../src/core/number-format.js';

describe('readNumber', () => {
  it.each([
    [12.5, 12.5],
    ['12.5', 12.5],
    [' -3.10 ', -3.1],
    ['99889.00', 99889],
    ['.5', 0.5],
    ['1e3', 1000],
    ['+7', 7],
  ])('%j is %d', (value, expected) => {
    expect(readNumber(value)).toBe(expected);
  });

  it.each([
    '0x10',
    '0b11',
    '0o7',
    'Infinity',
    '-Infinity',
    'NaN',
    '',
    '  ',
    '1,000',
    '1_000',
    '12.5 USD',
    '1e400',
    Number.NaN,
    Number.POSITIVE_INFINITY,
    null,
    true,
    {},
    [5],
  ])('%j is no number', (value) => {
    expect(readNumber(value)).toBeUndefined();
  });

  it('every reader refuses hex the same way: position, history, account, prices', () => {
    expect(readPosition({ side: 'buy', notional_usd: '0x10', size_usd: '16' }).notionalUsd).toBe(16);
    expect(readHistoryRecord({ net_pnl_usd: '5', notional_usd: '0x10' }).notionalUsd).toBeUndefined();
    expect(accountForPeople({ balance_usdc: '0x10' }).balance_usdc).toBe('0x10');
    expect(parsePrices([{ market: 'USDTNGN', price: '0x10' }], ['USDTNGN'])).toBeUndefined();
  });
});

describe('the field picker', () => {
  it('one name whatever its spelling style; the first usable of the list wins', () => {
    expect(nameKey('Closed-At')).toBe(nameKey('closedAt'));
    expect(pickField({ SizeUsd: 'n/a', notional: '12' }, ['notional_usd', 'size_usd', 'notional'], readNumber)).toEqual(
      { value: 12, name: 'notional' },
    );
    expect(firstField({ pnlUsd: 5 }, ['net_pnl_usd', 'pnl_usd'], readNumber)).toBe(5);
  });

  it('a position read under camelCase names, as history records always were', () => {
    const facts = readPosition({ Side: 'sell', notionalUsd: 2500, netPnlUsd: '-1.25' });
    expect(facts).toMatchObject({ side: 'sell', notionalUsd: 2500, netPnlUsd: -1.25 });
    expect(facts.synonymsUsed).toEqual([]);
  });

  it('a position with {pnl_usd: 5, unrealized_pnl_usd: 7} has one net P&L, 5, in either order', () => {
    expect(readPosition({ pnl_usd: 5, unrealized_pnl_usd: 7 }).netPnlUsd).toBe(5);
    expect(readPosition({ unrealized_pnl_usd: 7, pnl_usd: 5 }).netPnlUsd).toBe(5);
    expect(readPosition({ unrealized_pnl_usd: 7 }).netPnlUsd).toBe(7);
    expect(readPosition({ net_pnl_usd: 3, pnl_usd: 5, unrealized_pnl_usd: 7 }).netPnlUsd).toBe(3);
  });
});
