// One duration parser (core/duration.ts): --within, --alert-maturity, the journal's
// `--since 2h`, a target row's roll_before read one grammar; a refusal is one line naming the option.
// One duration text (formatSpan): every span hedge shows people.
import { parseSince } from '../../src/cli/cmd/journal/journal-list.js';
import { formatSpan, parseDuration } from '../../src/core/duration.js';
import { parseWithin } from '../../src/features/book/maturities.js';
import { UsageError } from '../../src/core/errors.js';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-03-02T09:00:00Z');

// --alert-maturity 1d12h: test/book/watch-alerts.test.ts; the journal's --since 30m: test/journal/journal-commands.test.ts.
it('one duration grammar: a compound length reads the same everywhere', () => {
  expect([parseWithin('1d12h'), parseSince('1d12h', NOW)]).toEqual([36 * HOUR, NOW - 36 * HOUR]);
});

it('one duration grammar: each refuses in one line naming itself (exit 2)', () => {
  for (const [read, name] of [
    [() => parseWithin('3m'), '--within'],
    [() => parseDuration('5s', '--alert-maturity'), '--alert-maturity'],
    [() => parseSince('3x', NOW), '--since'],
    [() => parseDuration('0d', '--x'), '--x'],
  ] as const) {
    expect(read, name).toThrow(UsageError);
    expect(read, name).toThrow(new RegExp(`^${name}: "[^"]*" is not allowed`));
  }
});

it('one duration grammar: a journal reaches back further than a year', () => {
  expect(parseSince('104w', NOW)).toBe(NOW - 104 * 7 * 24 * HOUR);
  expect(() => parseWithin('400d')).toThrow(/at most 366d/);
});

it('one duration text: a span in two units at most, the larger first, a last unit of 0 left out', () => {
  const [S, MIN] = [1000, 60_000];
  const spans = [
    12,
    99.6,
    500,
    960,
    1.5 * S,
    1.25 * S,
    9.96 * S,
    45 * S,
    119.4 * S,
    2 * MIN,
    10 * MIN + S,
    119 * MIN + 59 * S,
    2 * HOUR,
  ];
  const more = [2 * HOUR + 5 * MIN + 20 * S, 33 * HOUR, 47 * HOUR + 59 * MIN, 48 * HOUR, 76 * HOUR + 30 * MIN];
  expect([...spans, ...more].map(formatSpan)).toEqual([
    '12 ms',
    '100 ms',
    '0.5 s',
    '1 s',
    '1.5 s',
    '1.3 s',
    '10 s',
    '45 s',
    '119 s',
    '2 min',
    '10 min 1 s',
    '119 min 59 s',
    '2 h',
    '2 h 5 min',
    '33 h',
    '47 h 59 min',
    '2 days',
    '3 days 4 h',
  ]);
});
