import { formatRate, shortHash } from '../../src/core/number-format.js';
import {
  formatBps,
  localTimeBeside,
  formatPercent,
  formatRelative,
  formatTimeLeft,
  formatUtcMinutes,
  fractionDigits,
} from '../../src/platform/terminal/format.js';

// The precision a rate's size needs: number-format.test.ts (formatRate without decimals). A long hash shortened in a
// table or a card: test/scripting/ui-formats.test.ts.
it('rates take the decimals they are given; percentages and basis points are signed; a short hash is left whole', () => {
  expect([
    formatRate(1530.3312, 4),
    formatPercent(0.0405),
    formatPercent(-0.0279),
    formatPercent(0),
    formatBps(-4.4),
    formatBps(12.345),
    shortHash('0x1234'),
  ]).toEqual('1,530.3312|+0.0405%|-0.0279%|0.0000%|-4.4 bps|+12.3 bps|0x1234'.split('|'));
});

it('times: local beside UTC only where it reads differently', () => {
  expect([
    localTimeBeside('2026-03-05T10:00:00.000Z', 'Africa/Lagos'),
    localTimeBeside('2026-03-05T10:00:00.000Z', 'UTC'),
  ]).toEqual(['2026-03-05 11:00 GMT+1', '']);
  // London's clock is UTC's in winter and an hour on in summer.
  expect([
    localTimeBeside('2026-01-15T10:00:00.000Z', 'Europe/London'),
    localTimeBeside('2026-07-15T10:00:00.000Z', 'Europe/London'),
  ]).toEqual(['', '2026-07-15 11:00 GMT+1']);
  // A zone behind UTC across midnight: the date differs too.
  expect([
    localTimeBeside('2026-03-05T02:00:00.000Z', 'America/New_York'),
    localTimeBeside('not a time', 'Africa/Lagos'),
  ]).toEqual(['2026-03-04 21:00 EST', '']);
});

it('times: relative to now, in the largest two units', () => {
  const now = Date.parse('2026-03-02T10:00:00.000Z');
  expect(
    '2026-03-05T10:00:00.000Z 2026-03-05T09:59:00.000Z 2026-03-02T09:00:00.000Z 2026-03-02T09:55:00.000Z 2026-03-02T10:00:30.000Z 2026-03-02T10:00:00.400Z 2026-03-02T09:59:59.500Z garbage'
      .split(' ')
      .map((iso) => formatRelative(iso, now)),
  ).toEqual(['in 3d 0h', 'in 2d 23h', '1h 0m ago', '5m ago', 'in 30s', 'now', 'now', '']);
});

it('table cells: the decimals a number has, up to 6', () => {
  for (const [value, expected] of [
    [3, 0],
    [12.5, 1],
    [1530.3291, 4],
    [0.1 + 0.2, 1],
    [1 / 3, 6],
  ] as const)
    expect(fractionDigits(value), String(value)).toBe(expected);
});

it('table cells: UTC to the minute, and time left until a moment', () => {
  const now = Date.parse('2026-03-02T10:00:00.000Z');
  expect([formatUtcMinutes('2026-03-05T10:00:59.000Z'), formatUtcMinutes('garbage')]).toEqual([
    '2026-03-05 10:00',
    'garbage',
  ]);
  // Whatever the form, the same minute as Date reads it: a canonical UTC stamp straight from its text, the rest through Date.
  for (const iso of '2026-03-05T10:00Z 2026-03-05T10:00:59Z 2026-12-31T23:59:59.999999Z 2026-03-05T12:00:00+02:00 2026-03-05T10:00:00.000 2026-03-05 +002026-03-05T10:00:00Z'.split(
    ' ',
  )) {
    expect(formatUtcMinutes(iso)).toBe(new Date(iso).toISOString().slice(0, 16).replace('T', ' '));
  }
  expect([
    formatUtcMinutes('2026-13-05T10:00:00Z'),
    ...'2026-03-05T09:59:00.000Z 2026-03-02T10:05:00.000Z 2026-03-02T09:00:00.000Z garbage'
      .split(' ')
      .map((iso) => formatTimeLeft(iso, now)),
  ]).toEqual(['2026-13-05T10:00:00Z', '2d 23h', '5m', 'due', '']);
});
