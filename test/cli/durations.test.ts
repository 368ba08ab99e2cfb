// One duration parser (core/duration.ts): --within, --alert-maturity, the journal's
// `--since 2h`, a target row's roll_before read one grammar; a refusal is one line naming the option.
import { parseSince } from '../../src/cli/cmd/journal/journal-list.js';
import { parseDuration } from '../../src/core/duration.js';
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
