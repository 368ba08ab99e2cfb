// The one number formatter family (core/number-format.ts): every variant agrees with
// Intl.NumberFormat on the values a desk sees (the fast path must round as Intl does), and the HTML
// report's row path builds no formatter per cell.
import {
  formatFixed,
  formatMoney,
  formatRate,
  formatSignedMoney,
  formatUpTo,
  formatUsd,
} from '../../src/core/number-format.js';
import { closedHedgeRow } from '../../src/features/report/report-html.js';

const SAMPLES = (() => {
  let seed = 11;
  const next = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const values = [
    0,
    -0,
    0.5,
    1.005,
    2.675,
    0.125,
    -0.125,
    999.995,
    -999.995,
    1500.5,
    1e14 + 0.5,
    1e-7,
    1e21,
    -0.0049,
    0.004,
    99.9999,
    1234567.891,
  ];
  for (let index = 0; index < 1000; index++)
    values.push((next() - 0.5) * 10 ** Math.floor(next() * 12), Math.round(next() * 1e6) / 1e4 - 50);
  return values;
})();

const made = new Map<string, Intl.NumberFormat>();
/** Intl's en-US formatter with these options, made once (making one is slow). */
function intl(options: Intl.NumberFormatOptions) {
  const key = JSON.stringify(options);
  if (!made.has(key)) made.set(key, new Intl.NumberFormat('en-US', options));
  return made.get(key)!;
}

it('formatUpTo reads as Intl with maximumFractionDigits (trailing zeros dropped)', () => {
  expect([formatUpTo(1500.5, 2), formatUpTo(25_000, 2)]).toEqual(['1,500.5', '25,000']);
  for (const value of SAMPLES) {
    for (const decimals of [0, 2]) {
      expect(formatUpTo(value, decimals), `${value} up to ${decimals}`).toBe(
        intl({ maximumFractionDigits: decimals }).format(value),
      );
    }
  }
});

it('formatFixed rounds as Intl.NumberFormat does (half away from zero on the shortest decimal), separators included', () => {
  for (const value of SAMPLES)
    for (const decimals of [0, 1, 2, 4, 6])
      expect(formatFixed(value, decimals), `${value} to ${decimals}`).toBe(
        intl({ minimumFractionDigits: decimals, maximumFractionDigits: decimals }).format(value),
      );
});

it('money, USD, signed money and rates are the same family', () => {
  expect([formatMoney(1234.5), formatUsd(12_345), formatSignedMoney(1234.561), formatSignedMoney(-3)]).toEqual([
    '1,234.50',
    '12,345.00 USD',
    '+1,234.56',
    '-3.00',
  ]);
  // Signed to the cent: a figure that rounds to zero carries no sign (the sign convention).
  expect([-0.456, -0.004, -0.001, 0].map((value) => formatSignedMoney(value))).toEqual(
    '-0.46 0.00 0.00 0.00'.split(' '),
  );
  expect([formatRate(1530.3291), formatRate(1.23456), formatRate(0.0123456)]).toEqual([
    '1,530.33',
    '1.2346',
    '0.012346',
  ]);
  for (const value of SAMPLES) expect(formatMoney(value)).toBe(formatFixed(value, 2));
});

it("the report's closed-hedge rows build no Intl.NumberFormat per cell", () => {
  const made = vi.spyOn(Intl, 'NumberFormat');
  let html = '';
  for (let index = 0; index < 2_000; index++) {
    html += closedHedgeRow({
      hedgeId: `hdg_${index}`,
      market: 'USDTNGN',
      side: 'buy',
      tenorDays: 7,
      entryPrice: 1530.25 + index / 100,
      exitPrice: 1531.5,
      notionalUsd: 25_000 + index,
      closedAt: '2026-11-20T10:00:00Z',
      grossPnlUsd: 12.34,
      carryUsd: 1.5,
      feesUsd: 0.25,
      netPnlUsd: 10.59,
    });
  }
  expect(html).toContain('<td class="num">25,000.00</td>');
  expect(html).toContain('<td class="num">1,530.25</td>');
  expect(made).not.toHaveBeenCalled();
  made.mockRestore();
});
