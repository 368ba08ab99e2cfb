// Every example a refusal offers (`expected … such as 6h, 1d or 2w`, `e.g. 0.2`) is one the same
// reader accepts: a message never suggests what it would refuse again.
import { parseSince } from '../../src/cli/cmd/journal/journal-list.js';
import { parseSandboxServeOptions } from '../../src/cli/cmd/tools/sandbox-serve.js';
import { parseDuration } from '../../src/core/duration.js';
import { parseMarket, parseTenor, parseUsdAmount } from '../../src/core/input.js';
import { parseTargetFile } from '../../src/core/target-file.js';
import { parseExposuresFile } from '../../src/features/exposures/exposures-file.js';
import { parsePolicyFile } from '../../src/features/exposures/exposure-policy.js';
import { parseWithin } from '../../src/features/book/maturities.js';

const NOW = Date.parse('2026-03-02T09:00:00Z');

/** The examples a message offers: the list after `such as` or `e.g.`, up to its end, a bracket or a semicolon. */
function examplesIn(message: string) {
  const list = /(?:such as|e\.g\.) (.+?)(?: \(|\)|;|, more than|\.$)/.exec(message)?.[1];
  expect(list, message).toBeDefined();
  return list!.split(/, (?:or )?| or /);
}

/** The message `read` refuses `bad` with. */
function refusal(read: (raw: string) => unknown, bad: string) {
  try {
    read(bad);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${bad} was accepted`);
}

/** A target file's one row, with `roll_before` given. */
const targetRow = (rollBefore: string) => {
  const parsed = parseTargetFile(
    `market,side,notional_usd,tenor_days,roll_before\nUSDTNGN,buy,1000,3,${rollBefore}\n`,
    {
      sourceName: 'target.csv',
    },
  );
  if ('problems' in parsed) throw new Error(parsed.problems.map((problem) => problem.message).join(' '));
  return parsed.rows;
};

/** An exposures file's one item, with `amount` given (JSON: an amount may hold commas). */
const exposure = (amount: string) => {
  const item = { id: 'INV-1', market: 'USDTNGN', type: 'receivable', amount, currency: 'NGN', due: '2027-01-15' };
  const parsed = parseExposuresFile(JSON.stringify({ exposures: [item] }), { sourceName: 'exposures.json' });
  if ('problems' in parsed) throw new Error(parsed.problems.map((problem) => problem.message).join(' '));
  return parsed.rows;
};

type ServeInput = Parameters<typeof parseSandboxServeOptions>[0];
const serve = (key: string) => (raw: string) => {
  const options: Record<string, unknown> = { [key]: raw };
  return parseSandboxServeOptions({ args: {}, options } as ServeInput);
};

// --clock-skew's and --fail-rate's examples are read in decimals.test.ts, their refusals' exact words with them.
const READERS: Array<[string, (raw: string) => unknown, string]> = [
  ['--within', parseWithin, '3x'],
  ['--alert-maturity', (raw) => parseDuration(raw, '--alert-maturity'), '3x'],
  ['roll_before', targetRow, '3x'],
  ['notional', (raw) => parseUsdAmount(raw, 'notional'), 'ten'],
  ['--tolerance', (raw) => parseUsdAmount(raw, '--tolerance', 'zero-or-more'), 'ten'],
  ['--alert-pnl', (raw) => parseUsdAmount(raw, '--alert-pnl', 'signed'), 'ten'],
  ['an exposure amount', exposure, 'ten'],
  ['market', parseMarket, 'U$D'],
  ['--view-lag', serve('viewLag'), 'soon'],
  ['functional', (raw) => parsePolicyFile(JSON.stringify({ functional: raw }), 'policy.json'), 'dollars'],
];

it.each(READERS)('the examples a refusal offers: %s: each is accepted', (_name, read, bad) => {
  const examples = examplesIn(refusal(read, bad));
  expect(examples.length).toBeGreaterThan(0);
  for (const example of examples) expect(() => read(example), example).not.toThrow();
});

it('the examples a refusal offers: --since: each date, time and time ago in brackets is accepted', () => {
  const message = refusal((raw) => parseSince(raw, NOW), '3x');
  const examples = [...message.matchAll(/\(([^)]+)\)/g)].flatMap((match) => match[1].split(', '));
  expect(examples).toEqual('2026-11-20 2026-11-20T08:00:00Z 30m 2h 3d 1w 1mo'.split(' '));
  for (const example of examples) expect(() => parseSince(example, NOW), example).not.toThrow();
});

it('the examples a refusal offers: --within offers no minutes, which it refuses; --tenor: a unit other than d says d is the only one, and its example 3d is 3 days', () => {
  expect([refusal(parseWithin, '30m'), refusal(parseTenor, '1w'), parseTenor('3d')]).toEqual([
    '--within: "30m" is not allowed; expected a duration such as 6h, 1d, 1d12h or 2w (h, d, w).',
    '--tenor: "1w" is not allowed; expected 1, 3 or 7 (days); d is the only unit (3d is 3 days).',
    3,
  ]);
});

it('the examples a refusal offers: the policy file: the JSON object its refusal shows is a policy', () => {
  const message = refusal((raw) => parsePolicyFile(raw, 'policy.json'), '{');
  const shown = /such as (\{.*\})/.exec(message)![1];
  expect(() => parsePolicyFile(shown, 'policy.json')).not.toThrow();
});
