import { kindFromName, labelFromName, withExtraFields, type FieldSpec } from '../../src/platform/fields/fields.js';

it('labelFromName reads snake_case as words, with units in brackets', () => {
  for (const [value, expected] of [
    ['accrued_carry_usdc', 'Accrued carry (USDC)'],
    ['gross_pnl_usd', 'Gross P&L (USD)'],
    ['daily_rate_pct', 'Daily rate (%)'],
    ['hedge_id', 'Hedge ID'],
    ['desk_region', 'Desk region'],
    ['usd', 'Value (USD)'],
  ] as const)
    expect(labelFromName(value), String(value)).toBe(expected);
});

it('kindFromName infers how to show a field nobody named', () => {
  expect([
    kindFromName('realized_pnl_usd', 12),
    kindFromName('fee_usdc', 1),
    kindFromName('funding_pct', 0.1),
    kindFromName('oracle_price', 1530),
    kindFromName('settled_at', '2026-03-02T10:00:00Z'),
    kindFromName('close_tx_hash', '0xab'),
    kindFromName('legs', 3),
    kindFromName('breakdown', { a: 1 }),
    kindFromName('note', 'x'),
  ]).toEqual('pnl money percent rate time hash count json text'.split(' '));
});

it('withExtraFields puts known fields first, then every other field sorted by name (whatever order the server sent them in); labels and kinds the extras from their names; leaves out only what the caller omits on purpose; drops a known field no row has, unless asked to keep columns stable', () => {
  const known: FieldSpec[] = [
    { key: 'market', label: 'Market' },
    { key: 'client_reference', label: 'Ref' },
    {
      key: 'capacity_buy',
      label: 'Capacity buy',
      get: (row) => (row.available_capacity_usd as { buy: number }).buy,
      covers: ['available_capacity_usd'],
    },
  ];
  const rows = [
    { market: 'USDTNGN', available_capacity_usd: { buy: 1, sell: 2 }, order_tx_hash: '0x1', desk_region: 'lagos' },
    { market: 'USDTKES', available_capacity_usd: { buy: 3, sell: 4 }, risk_tier: 2 },
  ];
  const fields = withExtraFields(known, rows);
  const keys = fields.map((field) => field.key);
  expect(keys).toEqual('market capacity_buy desk_region order_tx_hash risk_tier'.split(' '));
  expect(withExtraFields(known, [...rows].reverse()).map((field) => field.key)).toEqual(keys);
  expect(fields.slice(2).map((field) => [field.label, field.kind])).toEqual([
    ['Desk region', 'text'],
    ['Order tx hash', 'hash'],
    ['Risk tier', 'count'],
  ]);
  expect(withExtraFields(known, rows, ['order_tx_hash']).map((field) => field.key)).toEqual(
    'market capacity_buy desk_region risk_tier'.split(' '),
  );
  expect(
    withExtraFields(known, rows, [], true)
      .map((field) => field.key)
      .slice(0, 3),
  ).toEqual(['market', 'client_reference', 'capacity_buy']);
});
