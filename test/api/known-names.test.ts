// hedge's one shape of records whose fields the server names its own way (the human table's view
// and --json's): what the tolerant readers found under a synonym (or from the hedge) is shown under
// our name, once; the rest as sent; what the server sent under one of our names meaning something
// else is kept under `_wire` (nothing the server sent is lost).
import { describe, expect, it } from 'vitest';
import {
  accountForPeople,
  firstField,
  nameKey,
  parsePrices,
  pickField,
  pricesInOneShape,
  readHistoryRecord,
  readPosition,
  sameFact,
  showUnderKnownNames,
} from '../../src/platform/api/wire/fields.js';
import { readNumber } from '../../src/core/number-format.js';
import { forScripts } from '../../src/platform/fields/script-shape.js';

/** A fact read under `known` (or one of its synonyms). */
const fact = (known: string, value: unknown, ...synonyms: string[]) => ({
  known,
  value,
  synonyms: [known, ...synonyms],
});

describe('showUnderKnownNames: our names for what was read, nothing the server sent lost', () => {
  const at = '2026-03-02T09:00:00.000Z';
  type Row = [string, Record<string, unknown>, Array<ReturnType<typeof fact>>, Record<string, unknown>];
  it.each<Row>([
    [
      'a value read under a synonym moves to the known name; the rest kept in order',
      { a: 1, direction: 'Buy', z: 2 },
      [fact('side', 'buy', 'direction')],
      { a: 1, z: 2, side: 'buy' },
    ],
    [
      'a record already under the known name is untouched',
      { side: 'sell', direction: 'buy' },
      [fact('side', 'sell', 'direction')],
      { side: 'sell', direction: 'buy' },
    ],
    ['a fact with no value leaves the record untouched', { x: 1 }, [fact('side', undefined)], { x: 1 }],
    [
      'a synonym field whose value is not the one read is kept',
      { direction: 'long-ish' },
      [fact('side', 'buy', 'direction')],
      { direction: 'long-ish', side: 'buy' },
    ],
    [
      'the field read from is dropped when it is the same value as decimal text',
      { used_margin_usdc: '99889.00' },
      [fact('margin_in_use_usdc', 99889, 'used_margin_usdc')],
      { margin_in_use_usdc: 99889 },
    ],
    ['… in another case', { direction: 'BUY' }, [fact('side', 'buy', 'direction')], { side: 'buy' }],
    ['… as the same instant', { opened: '2026-03-02T09:00:00Z' }, [fact('opened_at', at, 'opened')], { opened_at: at }],
    [
      'a zone-less time is not compared as an instant: kept beside ours',
      { opened: '2026-03-02 09:00' },
      [fact('opened_at', at, 'opened')],
      { opened: '2026-03-02 09:00', opened_at: at },
    ],
    [
      "the synonym read from (the readers' order) is dropped, not another field holding the same value",
      { exposure_usd: 5000, size_usd: 5000 },
      [fact('notional_usd', 5000, 'size_usd', 'exposure_usd')],
      { exposure_usd: 5000, notional_usd: 5000 },
    ],
    [
      'a value read under our own name, as the fact, stays exactly as sent (its text too)',
      { closed_at: '2026-03-02T09:00:00Z', net_pnl_usd: '-3.10' },
      [fact('closed_at', at), fact('net_pnl_usd', -3.1)],
      { closed_at: '2026-03-02T09:00:00Z', net_pnl_usd: '-3.10' },
    ],
    [
      "a server field named `_wire` is the server's: kept inside the holder, never mistaken for it",
      { _wire: 'v2', x: 1 },
      [fact('side', undefined)],
      { x: 1, _wire: { _wire: 'v2' } },
    ],
  ])('%s', (_what, raw, facts, expected) => {
    const row = showUnderKnownNames(raw, facts);
    expect(row).toEqual(expected);
    expect(Object.keys(row)).toEqual(Object.keys(expected));
  });

  it('sameFact: a different word, a tenor in words, an object are different values', () => {
    expect(sameFact('long', 'buy')).toBe(false);
    expect(sameFact('7 days', 7)).toBe(false);
    expect(sameFact({ id: 'hdg_1' }, 'hdg_1')).toBe(false);
    expect(sameFact(42, '42')).toBe(true);
    expect(sameFact('2026-03-02T10:00:00+01:00', '2026-03-02T09:00:00.000Z')).toBe(true);
  });
});

describe('pricesInOneShape: market, price and timestamp first, every other field of the price as sent', () => {
  it("gamma's {rates: [{pair, bid, ask, as_of}]}: the bid and ask the mid is made of are kept, as numbers in --json", () => {
    const quotes = parsePrices(
      {
        rates: [
          { pair: 'USDTKES', bid: '130.0', ask: '130.4', as_of: '2026-11-22T08:00:00.000Z', venue: { name: 'x' } },
        ],
      },
      ['USDTKES'],
    )!;
    const [price] = pricesInOneShape(quotes);
    expect(price).toEqual({
      market: 'USDTKES',
      price: 130.2,
      timestamp: '2026-11-22T08:00:00.000Z',
      bid: '130.0',
      ask: '130.4',
      venue: { name: 'x' },
    });
    expect(Object.keys(price).slice(0, 3)).toEqual(['market', 'price', 'timestamp']);
    expect(forScripts(price)).toMatchObject({ bid: 130, ask: 130.4 });
  });

  it("alpha's {MARKET: {mid, ts}}: the names read are not repeated; a beta price without a time has a null timestamp", () => {
    expect(
      pricesInOneShape(parsePrices({ USDTNGN: { mid: 1512.5, ts: '2026-11-22T08:00:00.000Z' } }, ['USDTNGN'])!),
    ).toEqual([{ market: 'USDTNGN', price: 1512.5, timestamp: '2026-11-22T08:00:00.000Z' }]);
    expect(pricesInOneShape(parsePrices([{ symbol: 'USDTNGN', rate: '1512.5' }], ['USDTNGN'])!)).toEqual([
      { market: 'USDTNGN', price: 1512.5, timestamp: null },
    ]);
  });

  it('what the server sent under one of our three names meaning something else is under _wire', () => {
    const quotes = parsePrices(
      [{ symbol: 'USDTNGN', mid: 1512.5, price: { source: 'twap' }, timestamp: 1763798400 }],
      ['USDTNGN'],
    )!;
    expect(pricesInOneShape(quotes)).toEqual([
      {
        market: 'USDTNGN',
        price: 1512.5,
        timestamp: null,
        _wire: { price: { source: 'twap' }, timestamp: 1763798400 },
      },
    ]);
  });
});

// The one reading kit (api/wire/fields.ts): one number reader and one field picker
// behind every tolerant reader, so that two readers of one payload read one value.
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
