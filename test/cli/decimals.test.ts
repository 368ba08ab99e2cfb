// One decimal grammar (src/core/input.ts, readDecimal): every option, variable and policy key that
// takes a number reads digits and a fraction if any, no sign, exponent or hex, within its own range;
// a refusal is one line naming it, the unit, the range and an example (a UsageError: exit 2).
import { join } from 'node:path';
import { tokenTtlSeconds } from '../../src/cli/agent/toolbox.js';
import { parseSandboxServeOptions } from '../../src/cli/cmd/tools/sandbox-serve.js';
import { parseListLength } from '../../src/core/input.js';
import { HOUR_MS } from '../../src/core/vocabulary.js';
import { parseWatchInterval } from '../../src/features/book/watch.js';
import { parsePolicyFile, resolvePolicy } from '../../src/features/exposures/exposure-policy.js';
import { parseExposuresFile } from '../../src/features/exposures/exposures-file.js';
import { keyLifetimeMs, repeatWindowMs } from '../../src/core/input.js';
import { runHedge, tempDir } from '../support/hedge-cli.js';
import { usageRefusal as refusal } from '../support/output/refusal.js';

type ServeInput = Parameters<typeof parseSandboxServeOptions>[0];
const serve = (options: Record<string, unknown>) => parseSandboxServeOptions({ args: {}, options } as ServeInput);

interface Reader {
  read: (raw: string) => number | undefined;
  accepts: Record<string, number>;
  /** Comma-separated. */
  refuses: string;
  /** What the refusal says is allowed, as `NAME: "raw" is not allowed; expected …` says it; or the whole line. */
  expected?: string;
  message?: (raw: string) => string;
}

/** Each former reader, by the name a refusal gives, with how its command reads it. */
const READERS: Record<string, Reader> = {
  HEDGE_REPEAT_WINDOW: {
    read: (raw) => repeatWindowMs({ HEDGE_REPEAT_WINDOW: raw }),
    accepts: { '10': 600_000, '0': 0, ' 1440 ': 86_400_000, '0.5': 30_000 },
    refuses: '1441,-1,1e3,ten,.5',
    expected: 'minutes from 0 to 1440, e.g. 10 (0: off)',
  },
  HEDGE_KEY_LIFETIME: {
    read: (raw) => keyLifetimeMs({ HEDGE_KEY_LIFETIME: raw }),
    accepts: { '12': 12 * HOUR_MS, '0.0001': 360, '8760': 8760 * HOUR_MS },
    refuses: '0,8761,-1,1e3,never',
    expected: 'hours above 0 and at most 8760, e.g. 12 or 0.5',
  },
  HEDGE_MCP_TOKEN_TTL_SECONDS: {
    read: (raw) => tokenTtlSeconds({ HEDGE_MCP_TOKEN_TTL_SECONDS: raw }),
    accepts: { '0': 0, '30': 30, ' 2.5 ': 2.5, '3600': 3600 },
    refuses: '-1,3601,1e3,0x10,soon',
    message: (raw) => `HEDGE_MCP_TOKEN_TTL_SECONDS: expected a number of seconds from 0 to 3600 (got "${raw}").`,
  },
  '--band': {
    read: (raw) => resolvePolicy({}, { band: raw }).bandPct,
    accepts: { '5': 5, '12.5%': 12.5, '0': 0, '50': 50 },
    refuses: '51,-1,5 %,wide,1e1',
    expected: 'a percentage of the target from 0 to 50, e.g. 5',
  },
  '--policy p.json: band_pct': {
    read: (raw) => parsePolicyFile(JSON.stringify({ band_pct: raw }), 'p.json').bandPct,
    accepts: { '2': 2, '7.5%': 7.5 },
    refuses: '50.5,-2,narrow',
    expected: 'a percentage of the target from 0 to 50, e.g. 5',
  },
  '--fail-rate': {
    read: (raw) => serve({ failRate: raw }).failRate,
    accepts: { '0': 0, '0.2': 0.2, '1': 1 },
    refuses: '1.5,-0.1,.5,1e-1,0x1',
    expected: 'a share from 0 to 1, e.g. 0.2',
  },
  '--day': {
    read: (raw) => serve({ day: raw }).dayMs,
    accepts: { '0.001': 1, '60': 60_000, '86400': 86_400_000 },
    refuses: '0,1.0001,86401,-1,1e3',
    expected: 'seconds from 0.001 to 86400, e.g. 3 or 0.5',
  },
  '--clock-speed': {
    read: (raw) => serve({ clockSpeed: raw }).clockSpeed,
    accepts: { '600': 600, '0.5': 0.5, '10000000': 1e7 },
    refuses: '0,10000001,1e3,-1,fast',
    expected: 'a number above 0 and at most 10000000, e.g. 600',
  },
  '--clock-skew': {
    read: (raw) => serve({ clockSkew: raw }).dateSkewMs,
    accepts: { '300': 300_000, '-120': -120_000, '+5': 5000, '86400': 86_400_000 },
    refuses: '86401,-86401,1.5,1e3,soon',
    expected: 'whole seconds from -86400 to 86400, e.g. 300 or -120',
  },
  '--watch': {
    read: (raw) => parseWatchInterval(raw),
    accepts: { '1': 1000, '2.5': 2500, '3600': 3_600_000 },
    refuses: '0,0.5,3601,USDTNGN,1e3',
    message: (raw) =>
      /^[\d.]+$/.test(raw)
        ? `--watch: "${raw}" is not allowed; expected a number of seconds from 1 to 3600 (default 2).`
        : `--watch: "${raw}" is not a number of seconds from 1 to 3600 (default 2); put --watch after the arguments, or give seconds (--watch 5).`,
  },
  '--limit': {
    read: (raw) => parseListLength(raw, undefined).limit,
    accepts: { '1': 1, '500': 500, ' 7 ': 7 },
    refuses: '0,501,1.0,1e2,-1',
    expected: 'a whole number from 1 to 500',
  },
};

describe.each(Object.entries(READERS))('%s', (name, reader) => {
  it.each(Object.entries(reader.accepts))('reads %j as %d', (raw, expected) => {
    expect(reader.read(raw)).toBe(expected);
  });

  it.each(reader.refuses.split(','))('refuses %j in one line naming it, its range and an example', (raw) => {
    expect(refusal(() => reader.read(raw))).toBe(
      reader.message?.(raw) ?? `${name}: "${raw}" is not allowed; expected ${reader.expected}.`,
    );
  });
});

describe('hedge_ratio, a column of an exposures file: a ratio from 0 to 1, or a percentage (a % or above 1)', () => {
  const read = (raw: string) =>
    parseExposuresFile(
      `id,market,type,amount,currency,due,hedge_ratio\nA,USDTNGN,payable,1000,USD,2027-01-01,${raw}\n`,
      {
        sourceName: 'e.csv',
      },
    );
  it.each(Object.entries({ '0.75': 0.75, '75': 0.75, '75%': 0.75, '1': 1, '0.5%': 0.005, '100': 1 }))(
    'reads %j as %d',
    (raw, ratio) => {
      expect(read(raw)).toMatchObject({ rows: [{ hedgeRatio: ratio }] });
    },
  );

  it.each('101,150%,-0.5,1e-1,75 %,most'.split(','))('refuses %j', (raw) => {
    expect(JSON.stringify(read(raw))).toContain(
      'hedge_ratio: not allowed; expected a ratio from 0 to 1 (0.75) or a percentage from 0% to 100% (75%).',
    );
  });
});

// The options a command reads before anything else: exit 2, one line, and nothing read (the file is not there).
const folder = tempDir();
afterAll(() => folder.remove());
const missing = join(folder.path, 'missing.csv');

const COMMAND_OPTIONS = [
  [
    '--interval',
    ['keep', missing, '--once'],
    '2 60 86400',
    '1.9 86401 -1 1e3 soon',
    'seconds from 2 to 86400, e.g. 60',
  ],
  [
    '--fee-bps',
    ['exposures', missing],
    '0 5 1000',
    '1001 -1 1e3 five',
    'basis points of the notional traded from 0 to 1000, e.g. 5',
  ],
] as const;

it.each(COMMAND_OPTIONS)(
  '%s: refuses what is not allowed in one line, exit 2; takes what is allowed (the run goes on to the missing file)',
  async (option, command, accepts, refuses, allowed) => {
    const run = (raw: string) => runHedge([...command, `${option}=${raw}`]);
    for (const raw of refuses.split(' ')) {
      const { code, stderr } = await run(raw);
      expect([code, stderr]).toEqual([2, `hedge: ${option}: "${raw}" is not allowed; expected ${allowed}.\n`]);
    }
    for (const raw of accepts.split(' ')) {
      const { stderr } = await run(raw);
      expect(stderr).not.toContain(option);
      expect(stderr).toContain('missing.csv');
    }
  },
);
