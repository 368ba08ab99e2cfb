// The output layer on fake streams: what each mode puts on stdout and stderr.
import { makeChalk } from '../../src/platform/terminal/color.js';
import type { FieldSpec } from '../../src/platform/fields/fields.js';
import { output as fakeOutput } from '../support/output/fake-output.js';

/** An Output for people (a table), scripts (TSV) or JSON, coloured or not. */
const output = (format: 'table' | 'tsv' | 'json', color = false) => fakeOutput(format, { chalk: makeChalk(color) });

const FIELDS: FieldSpec[] = [
  { key: 'hedge_id', label: 'Hedge ID' },
  { key: 'client_reference', label: 'Ref' },
  { key: 'net_pnl_usd', label: 'Net P&L (USD)', kind: 'pnl' },
  { key: 'closed_at', label: 'Closed', kind: 'time' },
];

// Numbers right-aligned, the totals' too: test/scripting/ui-formats.test.ts ("tables fitted to the width: wide enough …"),
// table.test.ts's drawings and screens.test.ts's reviewed screens.
it('list: table: labels, formatted values, extras labelled from their names, a totals row', async () => {
  const { out, stdout } = output('table');
  const rows = [
    { hedge_id: 'hdg_1', net_pnl_usd: 1234.5, closed_at: '2026-03-02T09:00:00.000Z', desk_region: 'lagos' },
    { hedge_id: 'hdg_2', net_pnl_usd: -20, closed_at: '2026-03-01T10:00:00.000Z', desk_region: 'abuja' },
  ];
  await out.list(rows, FIELDS, { empty: 'none', totals: { label: 'Total (2 hedges)', row: { net_pnl_usd: 1214.5 } } });
  const text = stdout();
  expect(text).not.toContain('Ref'); // no row has a reference: no empty column for people
  // Times in a table: UTC to the minute (the header says UTC), with how long ago.
  for (const part of ['Hedge ID', 'Desk region', '+1,234.50', '-20.00', 'Closed UTC', '2026-03-02 09:00 (1h 0m ago)'])
    expect(text).toContain(part);
  // Columns under a ruled header, the totals under a rule of their own, no boxes.
  const lines = text.trimEnd().split('\n');
  expect(lines[1]).toMatch(/^─+ {2}─+ {2}─+ {2}─+$/);
  expect(lines.at(-2)).toBe(lines[1]);
  expect(lines.at(-1)).toMatch(/^Total \(2 hedges\)\s+\+1,214\.50$/);
  expect(text).not.toMatch(/[│┌└┼]/);
});

it('list: omit leaves a field out of the table only: TSV and JSON keep it', async () => {
  const hash = `0x${'a'.repeat(64)}`;
  const rows = [{ hedge_id: 'hdg_1', order_tx_hash: hash }];
  const [table, plain, json] = await Promise.all(
    (['table', 'tsv', 'json'] as const).map(async (format) => {
      const { out, stdout } = output(format);
      await out.list(rows, FIELDS, { empty: 'none', omit: ['order_tx_hash'] });
      return stdout();
    }),
  );
  expect(table).not.toContain('0xaaaa');
  expect(plain.split('\n')[1]).toContain(hash);
  expect(JSON.parse(json)).toEqual(rows);
});

it('record: plain: a header row of keys and one row, nested values as JSON', async () => {
  const { out, stdout } = output('tsv');
  out.record({ balance_usdc: 1000.5, limits: { a: 1 } }, [{ key: 'balance_usdc', label: 'Balance', kind: 'money' }]);
  expect(stdout()).toBe('balance_usdc\tlimits\n1000.5\t{"a":1}\n');
});

it('human values: P&L is green when positive and red when negative, only with colour on; missing values show a dash; utc times have no relative part', async () => {
  const colored = output('table', true).out;
  expect([
    colored.humanValue({ key: 'net_pnl_usd', kind: 'pnl' }, 5),
    colored.humanValue({ key: 'net_pnl_usd', kind: 'pnl' }, -5),
  ]).toEqual(['\u001b[32m+5.00\u001b[39m', '\u001b[31m-5.00\u001b[39m']);
  const plain = output('table', false).out;
  expect(plain.humanValue({ key: 'net_pnl_usd', kind: 'pnl' }, -5)).toBe('-5.00');
  expect([
    plain.humanValue({ key: 'x' }, undefined),
    plain.humanValue({ key: 'closed_at', kind: 'utc' }, '2026-03-02T09:00:00.000Z'),
    plain.humanValue({ key: 'maturity_at', kind: 'time' }, '2026-03-05T10:00:00.000Z'),
  ]).toEqual(['—', '2026-03-02 09:00:00 UTC', '2026-03-05 10:00:00 UTC (in 3d 0h)']);
});

it('human values: an amount that rounds to zero carries no sign, however the server wrote it (-0.0, -0.004, "-0.00"); one that does not keeps it', () => {
  const plain = output('table', false).out;
  expect(
    [-0, -0.004, '-0.00', '-0.0', -0.005, '-12.50'].map((value) =>
      plain.humanValue({ key: 'accrued_carry_usdc', kind: 'money' }, value),
    ),
  ).toEqual(['0.00', '0.00', '0.00', '0.0', '-0.01', '-12.50']);
  expect(plain.humanValue({ key: 'rate_pct', kind: 'percent' }, -0.00001)).toBe('0.0000%');
});
