// One USD-amount grammar: every argument and option that takes USD reads the notional's
// grammar — `10000`, `10_000`, `10,000`, `10k`, `1.5m` — and refuses a malformed `1,0,0` with one
// line naming itself (a UsageError: exit 2, nothing sent). Before, `--alert-headroom 1,0,0` was
// 100 and `--tolerance` refused `1,000` and `1k`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAgentLimits } from '../../src/cli/agent/toolbox.js';
import { parseExposuresFile } from '../../src/features/exposures/exposures-file.js';
import { parseNotional, parseUsdAmount, readAmount } from '../../src/core/input.js';
import { parseTargetFile } from '../../src/core/target-file.js';
import { parseKeeperServiceOptions } from '../../src/features/keeper/keeper-service.js';
import { parseTolerance } from '../../src/features/plan/target-plan.js';
import { usageRefusal } from '../support/output/refusal.js';

/** Every USD argument and option, by the name a refusal gives, with how its command reads it. */
const USD_INPUTS: Record<string, (raw: string) => number | undefined> = {
  notional: (raw) => parseNotional(raw),
  '--max-notional': (raw) => parseAgentLimits({ maxNotional: raw }).maxNotionalUsd,
  '--max-daily-notional': (raw) => parseAgentLimits({ maxDailyNotional: raw }).maxDailyNotionalUsd,
  '--tolerance': (raw) => parseTolerance(raw),
  '--alert-headroom': (raw) => parseKeeperServiceOptions({ alertHeadroom: raw }).alertHeadroomUsd,
  '--alert-pnl': (raw) => parseUsdAmount(raw, '--alert-pnl', 'signed'),
};

const GRAMMAR = Object.entries({
  '10000': 10_000,
  '10_000': 10_000,
  '10,000': 10_000,
  '10k': 10_000,
  '1.5m': 1_500_000,
  '1,234.56': 1_234.56,
  '.5': 0.5,
  '1.2bn': 1_200_000_000,
  '2.5K': 2_500,
  '0.01': 0.01,
  '1,000,000': 1_000_000,
});

describe('every USD argument and option', () => {
  it('the table above names every option of the command specs that takes <usd>', () => {
    const flags = [
      ...readFileSync(join(__dirname, '../../src/cli/cmd/specs.ts'), 'utf8').matchAll(
        /(?:flags: |opt\()\s*'(--[a-z-]+) <usd>'/g,
      ),
    ].map((match) => match[1]);
    expect(flags.length).toBeGreaterThan(0);
    for (const flag of new Set(flags)) expect(Object.keys(USD_INPUTS), flag).toContain(flag);
  });

  describe.each(Object.entries(USD_INPUTS))('%s', (name, read) => {
    it.each(GRAMMAR)('reads %s as %d', (raw, expected) => {
      expect(read(raw)).toBe(expected);
    });

    // Split at |: the last is the empty string.
    it.each(
      '1,0,0|1000,000|1,000_000|10,00|1,0000|10 000|1e3|1e400|0x10|5 usd|lots|1.5x|0.001|2000000m|Infinity|NaN|'.split(
        '|',
      ),
    )('refuses %j: one line naming it, exit 2 (a UsageError)', (raw) => {
      const message = usageRefusal(() => read(raw));
      expect(message.startsWith(`${name}: `), message).toBe(true);
    });
  });

  it('which amounts each takes: a notional and a limit are positive, a tolerance and a headroom 0 or more, a P&L threshold signed', () => {
    for (const name of ['notional', '--max-notional', '--max-daily-notional'])
      expect(() => USD_INPUTS[name]('0'), name).toThrow(/expected a positive USD amount/);
    for (const name of ['--tolerance', '--alert-headroom']) {
      expect(USD_INPUTS[name]('0')).toBe(0);
      expect(() => USD_INPUTS[name]('-1'), name).toThrow(/expected a USD amount of 0 or more/);
    }
    expect('-2.5k -1,000 -1_000.5 -0 +250 -.5'.split(' ').map((raw) => USD_INPUTS['--alert-pnl'](raw))).toEqual([
      -2_500, -1_000, -1_000.5, 0, 250, -0.5,
    ]);
    for (const raw of ['-', '--5', '-500x'])
      expect(() => USD_INPUTS['--alert-pnl'](raw), raw).toThrow(
        /^--alert-pnl: .* is not allowed; expected a USD amount, signed/,
      );
    expect(() => parseNotional('-5')).toThrow(/^notional: "-5" is not allowed/);
  });
});

it('the file columns read the same grammar: a target row notional_usd and an exposure amount', () => {
  const target = parseTargetFile('market,side,notional_usd,tenor_days\nUSDTNGN,buy,"10,000",7\nUSDTNGN,sell,1.5m,7\n', {
    sourceName: 't.csv',
  });
  expect('rows' in target && target.rows.map((row) => row.notionalUsd)).toEqual([10_000, 1_500_000]);
  const refused = parseTargetFile('market,side,notional_usd,tenor_days\nUSDTNGN,buy,"1,0,0",7\n', {
    sourceName: 't.csv',
  });
  expect('problems' in refused && refused.problems.map((problem) => problem.message)).toEqual([
    'notional_usd: the value is not allowed; expected a positive USD amount such as 10000, 10_000, 10k or 1.5m.',
  ]);
  const exposures = parseExposuresFile(
    'id,market,type,amount,currency,due\nA,USDTNGN,payable,"1,0,0",USD,2027-01-01\n',
    { sourceName: 'e.csv' },
  );
  expect(JSON.stringify(exposures)).toMatch(/amount: missing or not allowed/);
});

// Its other outcomes (a number, -0 as 0, the wrong shape, too big, cents) through every parser above.
it('the file columns read the same grammar: readAmount: the one grammar under every parser, a sign only where signed', () => {
  expect(readAmount('+5', 'positive', 1e12)).toBe('shape');
});
