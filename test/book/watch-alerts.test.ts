// The alert rules of --watch (domain/alerts.ts): which conditions hold for a snapshot, that an
// alert fires once per condition until it clears, and how --alert-maturity is read.
import { alertConditions, alertEdges, type AlertFacts } from '../../src/core/alerts.js';
import { parseDuration } from '../../src/core/duration.js';
import { UsageError } from '../../src/core/errors.js';

const NOW = Date.parse('2026-03-02T09:00:00.000Z');
const HOUR = 3_600_000;
const at = (ms: number) => new Date(NOW + ms).toISOString();

function facts(netPnlUsd: number | undefined, maturities: AlertFacts['maturities'] = []) {
  return { netPnlUsd, maturities };
}

it('alertConditions: holds a P&L alert at or below the threshold, not above it, and not when the P&L is unknown; holds nothing without rules', () => {
  const pnl = (netPnlUsd: number) => [{ kind: 'pnl', key: 'pnl', netPnlUsd, thresholdUsd: -500 }];
  expect(
    [-500, -612.4, -499.99, undefined].map((net) => alertConditions(facts(net), { pnlAtOrBelowUsd: -500 }, NOW)),
  ).toEqual([pnl(-500), pnl(-612.4), [], []]);
  expect(alertConditions(facts(-1e9, [{ key: 'x', maturityAt: at(0) }]), {}, NOW)).toEqual([]);
});

it('alertConditions: holds a maturity alert for each hedge maturing within the window, a past maturity included', () => {
  const rules = { maturityWithinMs: 6 * HOUR, maturityWithinText: '6h' };
  expect(
    alertConditions(
      facts(undefined, [
        {
          key: 'hdg_a',
          maturityAt: at(5 * HOUR),
          market: 'USDTNGN',
          side: 'buy',
          hedgeId: 'hdg_a',
        },
        {
          key: 'hdg_b',
          maturityAt: at(7 * HOUR),
          market: 'USDTNGN',
          side: 'sell',
          hedgeId: 'hdg_b',
        },
        { key: 'hdg_c', maturityAt: at(-1000), hedgeId: 'hdg_c' },
        { key: 'bad', maturityAt: 'not a time' },
      ]),
      rules,
      NOW,
    ),
  ).toEqual([
    {
      kind: 'maturity',
      key: 'maturity:hdg_a',
      maturityAt: at(5 * HOUR),
      secondsLeft: 5 * 3600,
      within: '6h',
      market: 'USDTNGN',
      side: 'buy',
      hedgeId: 'hdg_a',
    },
    {
      kind: 'maturity',
      key: 'maturity:hdg_c',
      maturityAt: at(-1000),
      secondsLeft: 0,
      within: '6h',
      hedgeId: 'hdg_c',
    },
  ]);
});

it('alertEdges: keeps each hedge maturity alert apart: a new hedge in the window fires, the one already alerted does not', () => {
  const rules = { maturityWithinMs: HOUR };
  const soon = at(60_000);
  const first = alertEdges(new Map(), alertConditions(facts(undefined, [{ key: 'a', maturityAt: soon }]), rules, NOW));
  const second = alertEdges(
    first.active,
    alertConditions(
      facts(undefined, [
        { key: 'a', maturityAt: soon },
        { key: 'b', maturityAt: soon },
      ]),
      rules,
      NOW,
    ),
  );
  expect(first.started.map((alert) => alert.key)).toEqual(['maturity:a']);
  expect(second.started.map((alert) => alert.key)).toEqual(['maturity:b']);
  expect([...second.active.keys()]).toEqual(['maturity:a', 'maturity:b']);
});

// --alert-pnl reads the USD grammar, signed: usd-amounts.test.ts.
it.each([
  ['30m', 30 * 60_000, '30m'],
  ['6h', 6 * HOUR, '6h'],
  ['1d', 24 * HOUR, '1d'],
  ['1d12h', 36 * HOUR, '1d12h'],
  ['2W', 14 * 24 * HOUR, '2w'],
  ['1.5h', 1.5 * HOUR, '1.5h'],
  [' 6H ', 6 * HOUR, '6h'],
])('--alert-maturity: %s → %d ms', (raw, ms, text) => {
  expect(parseDuration(raw, '--alert-maturity')).toEqual({ ms, text });
});

it.each(['', '6', 'h', '6x', '0h', '-1d', '400d', '6 hours'])(
  '--alert-maturity: refuses %j naming --alert-maturity',
  (raw) => {
    expect(() => parseDuration(raw, '--alert-maturity')).toThrow(UsageError);
    expect(() => parseDuration(raw, '--alert-maturity')).toThrow(/^--alert-maturity: /);
  },
);
