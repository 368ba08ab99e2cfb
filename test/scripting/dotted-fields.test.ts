// Dotted --fields (`pricing.market_price`) in every format: nested values kept nested in JSON,
// flattened under the dotted name in TSV, CSV and the table; refused when they reach nothing.
import { expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { kindFromName, valueAtPath, type FieldSpec } from '../../src/platform/fields/fields.js';
import type { DataFormat } from '../../src/platform/terminal/output.js';
import { output } from '../support/output/fake-output.js';

const fieldsOut = (format: DataFormat, fields: string[]) => output(format, { fields, columns: 120 });

const QUOTE = {
  market: 'USDTNGN',
  side: 'buy',
  pricing: { market_price: 1512.95, execution_price: 1513.6, price_impact_usd: -4.3 },
  carry: { daily_usdc: 3.99, total_usdc: 11.97 },
  legs: [{ side: 'sell' }],
};
const MARKETS = [
  {
    market: 'USDTNGN',
    available_capacity_usd: { buy: 1_000_000, sell: 900_000 },
    net_rate_daily_pct: { buy: 0.04, sell: -0.0256 },
  },
  { market: 'USDTKES', available_capacity_usd: { buy: 5_000, sell: 0 } },
];
/** A known field that flattens a nested object, as `markets` has: the nested object is covered. */
const MARKET_FIELDS: FieldSpec[] = [
  { key: 'market', label: 'Market' },
  {
    key: 'capacity_buy_usd',
    label: 'Capacity buy',
    kind: 'money',
    covers: ['available_capacity_usd'],
    get: (row) => (row.available_capacity_usd as { buy: number }).buy,
  },
];

it('dotted --fields: JSON keeps the nesting, in the order asked; a record without the path gets null there; a group asked whole and one of its fields leaves the server data untouched', async () => {
  const one = fieldsOut('json', ['market', 'pricing.market_price', 'carry.total_usdc', 'pricing.price_impact_usd']);
  one.out.record(QUOTE, []);
  const printed = JSON.parse(one.stdout());
  expect([printed, Object.keys(printed)]).toEqual([
    {
      market: 'USDTNGN',
      pricing: { market_price: 1512.95, price_impact_usd: -4.3 },
      carry: { total_usdc: 11.97 },
    },
    ['market', 'pricing', 'carry'],
  ]);

  const list = fieldsOut('json', ['market', 'net_rate_daily_pct.sell']);
  await list.out.list(MARKETS, MARKET_FIELDS, { empty: 'none' });
  expect(JSON.parse(list.stdout())).toEqual([
    { market: 'USDTNGN', net_rate_daily_pct: { sell: -0.0256 } },
    { market: 'USDTKES', net_rate_daily_pct: { sell: null } },
  ]);
  const record = structuredClone(QUOTE);
  const both = fieldsOut('json', ['pricing', 'pricing.market_price']);
  both.out.record(record, []);
  expect([JSON.parse(both.stdout()), record]).toEqual([{ pricing: QUOTE.pricing }, QUOTE]);
});

it('dotted --fields: TSV and CSV: a column headed by the dotted name, raw values; table: the dotted name as the header, the value formatted by what its parts say', async () => {
  const tsv = fieldsOut('tsv', ['market', 'available_capacity_usd.buy', 'net_rate_daily_pct.sell']);
  await tsv.out.list(MARKETS, MARKET_FIELDS, { empty: 'none' });
  expect(tsv.stdout()).toBe(
    'market\tavailable_capacity_usd.buy\tnet_rate_daily_pct.sell\nUSDTNGN\t1000000\t-0.0256\nUSDTKES\t5000\t\n',
  );
  const csv = fieldsOut('csv', ['legs.0.side', 'pricing.market_price']);
  csv.out.record(QUOTE, []);
  expect(csv.stdout()).toBe('legs.0.side,pricing.market_price\nsell,1512.95\n');
  const table = fieldsOut('table', ['market', 'available_capacity_usd.buy', 'net_rate_daily_pct.sell']);
  await table.out.list(MARKETS, MARKET_FIELDS, { empty: 'none' });
  const [header, , first] = table.stdout().split('\n');
  expect(header).toMatch(/^Market\s+available_capacity_usd\.buy\s+net_rate_daily_pct\.sell$/);
  expect(first).toMatch(/^USDTNGN\s+1,000,000\.00\s+-0\.0256%$/);
  expect([
    kindFromName('available_capacity_usd.buy', 5),
    kindFromName('pricing.market_price', 5),
    kindFromName('carry.total_usdc', 5),
  ]).toEqual(['money', 'rate', 'money']);
});

it.each(['json', 'tsv', 'table'] as const)(
  'dotted --fields: %s: a dotted name that reaches nothing is bad usage naming it',
  (format) => {
    const out = fieldsOut(format, ['market', 'pricing.nothing.here', 'nope.x']);
    expect(() => out.out.record(QUOTE, [])).toThrow(UsageError);
    expect(() => out.out.record(QUOTE, [])).toThrow(/--fields: "nope\.x" is not a field here/);
  },
);

it('dotted --fields: valueAtPath follows objects by key and lists by index, nothing else', () => {
  expect([
    [valueAtPath(QUOTE, 'pricing.market_price'), valueAtPath(QUOTE, 'legs.0.side')],
    [valueAtPath(QUOTE, 'legs.x'), valueAtPath(QUOTE, 'market.length'), valueAtPath(QUOTE, 'pricing.toString')],
  ]).toEqual([
    [1512.95, 'sell'],
    [undefined, undefined, undefined],
  ]);
});
