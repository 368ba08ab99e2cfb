// What may be recorded: a rate is a positive price within a bounded range (a file's refused, a server's a reading
// problem, exit 14), nothing dated after today; and what the memo prints of a file's text: sanitised, wrapped at any
// width with its words whole, and written before the relationship is recorded.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hedgeIn, tempFolders, ROOT, SPAWN_EVERY_RUN } from '../support/hedge-cli.js';
import { exits, ok, okJson } from '../support/cli-runs.js';
import { envFor, MARKET, useSimulators } from '../support/simulator.js';
import { startRewriteProxy } from '../support/servers/field-proxy.js';
import { exact } from '../../src/features/acct/acct-money.js';
import { criticalTerms } from '../../src/features/acct/acct-rules.js';

const folder = tempFolders('hedge-acct-input-');
const start = useSimulators();
const TODAY = '2026-03-02';
const clock = { now: () => Date.parse(`${TODAY}T12:00:00Z`), sleep: async () => {} };
const EXAMPLE = JSON.parse(readFileSync(join(ROOT, 'docs', 'examples', 'relationship.json'), 'utf8'));
const LATE = ['--recorded-late', 'from the 2018 spreadsheet'];
const HEADER = 'date,spot,forward,discount_factor,source';

function setUp() {
  const dir = folder();
  const run = (args: string[], options: Parameters<typeof hedgeIn>[2] = {}) =>
    hedgeIn(dir, args, { clock, ...options });
  const file = (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
  const store = join(dir, 'acct', 'local', 'records.json');
  return { dir, run, file, store };
}

describe('a rate is a positive price within a bounded range, recorded for a day that has come', () => {
  const cases: Array<[string, string, string]> = [
    ['a spot of 0', `${HEADER}\n2026-03-02,0,,,bank\n`, 'spot: out of range; expected a positive price'],
    ['a spot of -1600', `${HEADER}\n2026-03-02,-1600,,,bank\n`, 'spot: out of range'],
    ['a forward of 1e-7', `${HEADER}\n2026-03-02,1.1,1e-7,,bank\n`, 'forward: out of range'],
    ['a discount factor of 0', `${HEADER}\n2026-03-02,1.1,1.1,0,bank\n`, 'discount_factor: out of range'],
    ['a rate dated tomorrow', `${HEADER}\n2026-03-03,1.1,,,bank\n`, 'date: 2026-03-03 is after today (2026-03-02)'],
  ];
  for (const [what, csv, said] of cases)
    it(`${what}: exit 2, nothing recorded`, async () => {
      const { run, file, store } = setUp();
      exits(
        await run(['acct', 'rates', file('rates.csv', csv), '--market', 'EURUSD', '--quote', 'USD per EUR']),
        2,
        said,
      );
      expect(existsSync(store)).toBe(false);
    });

  it('an event dated after today is refused', async () => {
    const { run, file, store } = setUp();
    ok(await run(['acct', 'designate', file('r.json', EXAMPLE), ...LATE]));
    const before = readFileSync(store);
    exits(
      await run(['acct', 'event', 'EUR-SALE-1', '--occurred', '2026-03-03']),
      2,
      '--occurred: 2026-03-03 is after today (2026-03-02)',
    );
    expect(readFileSync(store).equals(before)).toBe(true);
  });

  it('a server price that cannot be a rate (1e-7) under --record is a reading problem: exit 14, nothing recorded', async () => {
    const simulator = await start();
    const proxy = await startRewriteProxy(simulator.sandbox, (path, item) => {
      if (path === '/prices') item.price = 1e-7;
    });
    try {
      const refused = exits(
        await simulator.hedge(['acct', 'rates', '--record', '--market', MARKET], { env: envFor(proxy) }),
        14,
        `GET /prices answered a price for ${MARKET} that cannot be a rate (spot: out of range`,
      );
      expect(refused.stderr).toContain('nothing was recorded');
      expect(simulator.requests('GET', '/prices').length).toBeGreaterThan(0);
      expect(existsSync(join(simulator.configDir, 'acct'))).toBe(false);
    } finally {
      await proxy.close();
    }
  });
});

describe('the memo: text from files sanitised, wrapped at any width with its words whole', () => {
  it('SGR escapes in approved_by never reach the output (NO_COLOR, stdout a file); at 24 columns no word is broken', async () => {
    const { run, file } = setUp();
    const relationship = { ...EXAMPLE, approved_by: 'Treasurer \u001b[8mhidden\u001b[0m A. Person' };
    const memo = ok(await run(['acct', 'designate', file('r.json', relationship), ...LATE]));
    expect(memo.stdout).not.toContain('\u001b');
    expect(memo.stdout).toContain('Treasurer \\x1b[8mhidden\\x1b[0m A. Person');

    const { run: narrow, file: again } = setUp();
    const screen = ok(
      await narrow(['acct', 'designate', again('r.json', EXAMPLE), ...LATE], { screen: { columns: 24, rows: 400 } }),
    );
    const lines = screen.stdout.split('\n');
    expect(lines.every((line) => line.length <= 24)).toBe(true);
    expect(lines.length).toBeLessThan(200);
    // Every word of the objective is printed whole, in order.
    const words = screen.stdout.split(/\s+/).filter(Boolean).join(' ');
    expect(words).toContain(EXAMPLE.objective.split(/\s+/).join(' '));
  });
});

describe('the memo is written before the relationship is recorded', () => {
  // The run in this process: the durable write's temporary file is named by its pid.
  it.skipIf(SPAWN_EVERY_RUN)(
    '--html that cannot be written: exit 13 naming it, nothing recorded, designated later',
    async () => {
      const { dir, run, file, store } = setUp();
      const relationship = file('r.json', EXAMPLE);
      const memo = join(dir, 'memo.html');
      // A write that fails for root too, as a full disk does: a folder where its temporary file goes.
      const temporary = join(dir, `.memo.html.${process.pid}.tmp`);
      mkdirSync(temporary);
      const refused = exits(
        await run(['acct', 'designate', relationship, ...LATE, '--html', memo]),
        13,
        `--html: cannot write ${memo}`,
      );
      expect(refused.stderr).toContain('nothing was recorded');
      expect(refused.stderr).not.toContain('unexpected');
      expect(existsSync(store)).toBe(false);
      rmdirSync(temporary);
      ok(await run(['acct', 'designate', relationship, ...LATE, '--html', memo]));
      expect(readFileSync(memo, 'utf8')).toContain('Hedge designation memo&#58; EUR-SALE-1');
    },
  );
});

describe('corrections, not edits: appended with their reason, shown by acct log', () => {
  it('a wrong rate and a wrong event are corrected; the figures follow the correction; the trail keeps both', async () => {
    const { run, file } = setUp();
    const RATES = join(ROOT, 'docs', 'examples', 'rates-eurusd.csv');
    const import_ = ['--market', 'EURUSD', '--quote', 'USD per EUR'];
    ok(await run(['acct', 'rates', RATES, ...import_]));
    ok(await run(['acct', 'designate', file('r.json', EXAMPLE), ...LATE]));
    ok(await run(['acct', 'event', 'EUR-SALE-1', '--occurred', '2019-02-02']));
    // What was wrong stays wrong without --correct; with it, a correction is appended.
    exits(await run(['acct', 'event', 'EUR-SALE-1', '--occurred', '2019-02-01', '--correct', '3']), 2, '--reason');
    // The record's number is read as every whole number is: digits only, no exponent or hex.
    for (const number of ['0x3', '3e0', '0'])
      exits(
        await run(['acct', 'event', 'EUR-SALE-1', '--occurred', '2019-02-01', '--correct', number, '--reason', 'x']),
        2,
        `--correct: "${number}" is not allowed; expected the number of the event record to correct`,
      );
    exits(
      await run(['acct', 'event', 'EUR-SALE-1', '--occurred', '2019-02-01', '--correct', '2', '--reason', 'wrong']),
      2,
      '--correct: record 2 is not an event of EUR-SALE-1',
    );
    ok(
      await run([
        'acct',
        'event',
        'EUR-SALE-1',
        '--occurred',
        '2019-02-01',
        '--correct',
        '3',
        '--reason',
        'delivered on the 1st',
      ]),
    );
    const restated = file(
      'fixed.csv',
      // The year end, and January's end that held its rate.
      readFileSync(RATES, 'utf8').replaceAll('1.21,1.20', '1.21,1.19'),
    );
    exits(await run(['acct', 'rates', restated, ...import_]), 2, 'correct them with --correct --reason TEXT');
    const corrected = okJson(
      await run(['acct', 'rates', restated, ...import_, '--correct', '--reason', 'the bank restated', '--json']),
    );
    expect(corrected.recorded).toBe(2);

    const periods = okJson(await run(['acct', 'test', 'EUR-SALE-1', '--as-of', '2019-02-28', '--json']));
    // The forward at 2018-12-31 is now 1.19: 770000 × (1.23 − 1.19) = 30800; the transaction on 2019-02-01, the
    // corrected date: nothing is valued on 2019-02-02, and February ends with it.
    expect(periods.map((row: Record<string, unknown>) => [row.period_end, row.instrument_change])).toEqual([
      ['2018-10-31', 0],
      ['2018-11-30', 0],
      ['2018-12-31', 30800],
      ['2019-01-31', 30800],
      ['2019-02-01', 30800],
    ]);

    const trail = okJson(await run(['acct', 'log', '--json']));
    expect(trail.map((row: Record<string, unknown>) => [row.seq, row.kind, row.subject, row.what, row.why])).toEqual([
      [1, 'rates', 'EURUSD', 'rates (USD per EUR): 6 dates, 2018-10-15 to 2019-02-01', null],
      [2, 'designation', 'EUR-SALE-1', 'designated as of 2018-10-15', 'from the 2018 spreadsheet'],
      [3, 'event', 'EUR-SALE-1', 'occurred 2019-02-02', null],
      [4, 'correction', 'EUR-SALE-1', 'event (record 3) corrected to occurred 2019-02-01', 'delivered on the 1st'],
      [5, 'correction', 'EURUSD', 'rates corrected: 2 dates, 2018-12-31 to 2019-01-31', 'the bank restated'],
    ]);
    expect(trail.every((row: { recorded_at: string }) => row.recorded_at === `${TODAY}T12:00:00.000Z`)).toBe(true);
    const own = okJson(await run(['acct', 'log', 'EUR-SALE-1', '--json']));
    expect(own.map((row: { seq: number }) => row.seq)).toEqual([2, 3, 4]);
  });

  it('who: the person (HEDGE_USER here), with the profile and the key fingerprint it was recorded with', async () => {
    const simulator = await start();
    const { dir, file } = setUp();
    const run = (args: string[], input?: string) => simulator.hedge(args, { configDir: dir, input, clock });
    ok(
      await run(
        ['login', '--profile', 'desk', '--base-url', simulator.baseUrl, '--key-store', 'file'],
        simulator.apiKey,
      ),
    );
    ok(
      await simulator.hedge(['--profile', 'desk', 'acct', 'designate', file('r.json', EXAMPLE), ...LATE], {
        configDir: dir,
        clock,
        env: { HEDGE_USER: 'Ada Obi' },
      }),
    );
    const [designated] = okJson(await run(['--profile', 'desk', 'acct', 'log', '--json']));
    // The key's fingerprint: the first 12 hex digits of its SHA-256, never the key.
    const fingerprint = createHash('sha256').update(simulator.apiKey).digest('hex').slice(0, 12);
    expect([designated.by, designated.profile, designated.key, designated.subject]).toEqual([
      'Ada Obi',
      'desk',
      fingerprint,
      'EUR-SALE-1',
    ]);
  });
});

describe('every acct computation is bounded by --timeout', () => {
  it('a regression over many periods past --timeout ends with one line, nothing printed; without it, its figures', async () => {
    const { run, file } = setUp();
    // A forward to 2030: no event before today, a month end a period.
    const relationship = {
      ...EXAMPLE,
      method: 'regression',
      designated_at: '2018-10-15',
      hedged_item: { ...EXAMPLE.hedged_item, expected_date: '2030-12-31' },
      instrument: { ...EXAMPLE.instrument, maturity: '2030-12-31' },
    };
    ok(await run(['acct', 'designate', file('r.json', relationship), ...LATE]));
    // A month end a row, from the designation's month to the last before today.
    const lines = ['date,instrument_value,hedged_item_value'];
    for (let month = 1; ; month++) {
      const date = new Date(Date.UTC(2018, 9 + month, 0)).toISOString().slice(0, 10);
      if (date >= TODAY) break;
      lines.push(`${date},${month * 10},${-month * 10 - (month % 3)}`);
    }
    const values = file('values.csv', `${lines.join('\n')}\n`);
    const args = ['acct', 'test', 'EUR-SALE-1', '--values', values, '--json'];
    expect(lines.length - 1).toBeGreaterThan(80);
    expect(okJson(await run(args))).toHaveLength(lines.length - 1);
    // A clock that moves a second each time it is read: the work outlasts a one-second bound.
    let now = clock.now();
    const moving = { now: () => (now += 1000), sleep: async () => {} };
    const late = exits(
      await run([...args, '--timeout', '1'], { clock: moving }),
      2,
      '--timeout: the figures were not worked out in time',
    );
    expect(late.stdout).toBe('');
  });

  it('a hedge notional read as 1e-7 is read exactly: the critical terms say it does not match, no failure', () => {
    const terms = criticalTerms({
      instrument: { amount: exact('1e-7')!, currency: 'USD', maturity: '2019-02-01', market: 'EURUSD' },
      ratio: exact('1')!,
      item: { amount: exact('770000')!, currency: 'EUR', expectedDate: '2019-02-01', market: 'EURUSD' },
    });
    expect(terms.amount).toEqual({ instrument: '0.00', hedged_item: '770000.00', matched: false });
    expect(terms.matched).toBe(false);
  });
});
