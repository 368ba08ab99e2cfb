// The details a trader looks for, against the simulator over HTTP: `add` quotes the added notional
// before it is sent and shows the position before → after; `reduce` shows what it realized; close
// words carry and fees the one way (docs/output.md "Sign convention"); an open on a side that is already
// open gets a note pointing to `hedge add` (never a refusal).
// Assertions are on the simulator's own state and request log.
import { formatMoney, formatRate, formatSignedMoney } from '../../src/core/number-format.js';
import { payOrEarn, toAccountSide } from '../../src/core/money.js';
import { runHedge, tempFolders } from '../support/hedge-cli.js';
import { MARKET, useSimulators, type Simulator } from '../support/simulator.js';
import { exits, journalEntries, ok, okJson } from '../support/cli-runs.js';
import { IDEMPOTENCY_KEY } from '../support/output/text.js';
import { openBody } from '../support/engine.js';
import { displayWidth } from '../../src/platform/terminal/width.js';
import { activeSizes, hedgeOf as hedge, HOUR } from '../support/keeper.js';

const start = useSimulators({ stepped: true });
const demoDir = tempFolders('hedge-demo-open-');
/** Wide enough that no card row wraps: the assertions read whole rows. */
const WIDE = { COLUMNS: '160' };

const account = (simulator: Simulator) => Object.values(simulator.sandbox.engine.state.accounts)[0];

// The card of an action that ended hedges (a close, a reduce of the whole side, or their resume): the figures of the
// history records of the hedges it ended, summed, in the one sign convention (docs/output.md "Sign convention").
/** The card's row of a figure the account paid (carry, fees), worded as a closed card words it: "Fees │ -1.23 USDC, you paid". */
const paidRow = (label: string, paid: number) =>
  new RegExp(`${label}\\s+│ ${payOrEarn(toAccountSide(paid), { realized: true }).replace(/[+.]/g, '\\$&')}`);

/** The server's history records of the hedges `ids`, one each: a figure of theirs summed. */
function summed(simulator: Simulator, ids: string[]) {
  const records = account(simulator).history.filter((record) => ids.includes(record.hedge_id));
  expect(records).toHaveLength(ids.length);
  return (key: 'notional_usd' | 'net_pnl_usd' | 'fees_usdc') =>
    records.reduce((total, record) => total + record[key], 0);
}

/** The card names each of `ids` on its Hedge ID row (in whatever order), and shows their notional, net P&L and fees summed. */
function expectSummedCard(simulator: Simulator, stdout: string, ids: string[]) {
  const sum = summed(simulator, ids);
  expect(/Hedge ID\s+│ (.+?) +│/.exec(stdout)?.[1].split(', ').sort()).toEqual([...ids].sort());
  expect(stdout).toMatch(new RegExp(`Notional \\(USD\\)\\s+│ ${formatMoney(sum('notional_usd'))} `));
  // Signed as every P&L is: a gain "+0.15", a loss "-0.15".
  expect(stdout).toMatch(
    new RegExp(`Net P&L \\(USD\\)\\s+│ ${formatSignedMoney(sum('net_pnl_usd')).replace(/[+.]/g, '\\$&')} `),
  );
  expect(stdout).toMatch(paidRow('Fees', sum('fees_usdc')));
}

/** The Entry row's value: before → after, or one price when the two read the same. */
const entryRow = (before: number, after: number) =>
  formatRate(before) === formatRate(after)
    ? `${formatRate(after)} NGN per USDT (unchanged)`
    : `${formatRate(before)} → ${formatRate(after)} NGN per USDT`;

/** The Margin row: before → after, in USDC. */
const marginRow = (before: number, after: number) =>
  new RegExp(`Margin\\s+│ ${formatMoney(before)} → ${formatMoney(after)} USDC`);

const writePaths = (simulator: Simulator) => simulator.writes().map((entry) => entry.path);

/** The command's card on a table wide enough that no row wraps; it must exit 0. */
const card = async (simulator: Simulator, command: string, env = {}) =>
  ok(await simulator.hedge(`${command} --format table`, { env: { ...WIDE, ...env } })).stdout;

it("hedge add: the quote for the addition, then the position before → after: quotes the added notional (one POST /quotes) before the one POST /hedges/add; --json is the side, the details go to stderr; on a server 4 days on, the next add is quoted for the days left on its clock: 3, not the 7 this machine's clock would say", async () => {
  const simulator = await start();
  const seeded = simulator.seedOpen('buy', 10_000);
  const before = { entry: seeded.entryPrice!, margin: seeded.marginUsdc };

  const result = ok(await simulator.hedge(`add ${MARKET} buy 5000 --json`));
  expect(JSON.parse(result.stdout)).toMatchObject({
    market: MARKET,
    side: 'buy',
    hedge_id: seeded.id,
    notional_usd: 15_000,
    hedge: { id: seeded.id, notional_usd: 15_000, status: 'filled' },
    answer: { hedge_id: seeded.id, action: 'add', notional_usd: 5000 },
  });

  expect(writePaths(simulator)).toEqual(['/quotes', '/hedges/add']);
  const [quote, add] = simulator.writes();
  // The seeded hedge matures in 7 days: the quote takes the tenor covering what is left.
  expect(quote.body).toEqual(openBody('buy', 5000, 7));
  expect(add.body).toEqual({ market: MARKET, side: 'buy', notional_usd: 5000 });
  expect(add.idempotencyKey).toMatch(IDEMPOTENCY_KEY);
  // Nothing is sent before the quote: the only request after it that writes is the add.
  expect(simulator.sandbox.requestLog.indexOf(quote)).toBeLessThan(simulator.sandbox.requestLog.indexOf(add));

  // Waited until the add landed: nothing pending on the server.
  const after = hedge(simulator, seeded.id);
  expect(after.pendingChange).toBeUndefined();
  expect(result.stderr).toContain(
    `margin ${formatMoney(after.marginUsdc - before.margin)} USDC, fee ${payOrEarn(-2.5)}`,
  );
  expect(result.stderr).toContain(
    `Position after the add: notional 10,000.00 → 15,000.00 USD; entry ${entryRow(before.entry, after.entryPrice!)}; ` +
      `margin ${formatMoney(before.margin)} → ${formatMoney(after.marginUsdc)} USDC`,
  );

  // The server 4 days and 5 minutes on: 2 days 23 h 55 min left there.
  simulator.advance(4 * 86_400_000 + 300_000);
  ok(await simulator.hedge(`add ${MARKET} buy 500 --yes`));
  expect(simulator.requests('POST', '/quotes').map((entry) => (entry.body as any).tenor_days)).toEqual([7, 3]);
  expect(activeSizes(simulator, 'buy')).toEqual([[seeded.id, 15_500]]);
});

/** The value of a boxed card's row whose label starts with `label` (a label may wrap onto the next line, a value too). */
function cardValue(screen: string, label: string) {
  const lines = screen.split('\n').map((line) => /^│ (.*?) +│ (.*?) *│$/.exec(line));
  const at = lines.findIndex((cells) => cells?.[1].startsWith(label));
  const values = [lines[at]![2]];
  // The lines after it that carry more of its value, under a label of its own wrapped or none.
  for (const cells of lines.slice(at + 1)) {
    if (!cells || (cells[1] && !/^\(/.test(cells[1])) || !cells[2]) break;
    values.push(cells[2]);
  }
  return values.join(' ');
}

it('hedge add: the quote card says the time left one way: the carry to maturity and the maturity count it from the same instant, in the same days and hours, at 80 columns and at 60, no line wider than the screen', async () => {
  const simulator = await start();
  simulator.seedOpen('buy', 10_000);
  for (const [columns, usd] of [
    [80, 1000],
    [60, 2000],
  ]) {
    const screen = ok(
      await simulator.hedge(`add ${MARKET} buy ${usd} --yes`, { screen: { columns, rows: 60 } }),
    ).stdout;
    const card = screen.slice(0, screen.indexOf('Indicative only'));
    const left = /\((\d+d \d+h) left\)$/.exec(cardValue(card, 'Carry to maturity'))?.[1];
    expect(left, screen).toMatch(/^6d \d+h$/);
    expect(cardValue(card, 'Maturity'), screen).toMatch(new RegExp(`\\(in ${left}\\)$`));
    for (const line of screen.split('\n')) expect(displayWidth(line), line).toBeLessThanOrEqual(columns);
  }
});

it.each([
  ['reference', {}],
  // The add body names the change amount_usd (alpha) or delta_usd (beta).
  ['alpha', { HEDGE_WIRE_NOTIONAL_FIELD: 'amount_usd' }],
  ['beta', { HEDGE_WIRE_NOTIONAL_FIELD: 'delta_usd' }],
] as const)(
  'hedge add: the quote for the addition, then the position before → after: on a terminal-width table (%s dialect): the quote card (margin, fee, carry) and the position card, figures as the server holds them',
  async (dialect, env) => {
    const simulator = await start({ dialect });
    const seeded = simulator.seedOpen('sell', 20_000);
    const before = { entry: seeded.entryPrice!, margin: seeded.marginUsdc };

    const stdout = await card(simulator, `add ${MARKET} sell 4000`, env);
    const after = hedge(simulator, seeded.id);
    for (const part of [
      'Adding 4,000.00 USD to USDTNGN sell (now 20,000.00 USD)',
      new RegExp(`Required margin\\s+│ ${formatMoney(after.marginUsdc - before.margin).replace('.', '\\.')} USDC`),
      /Platform fee\s+│ -2\.00 USDC, you pay/,
      /Carry per day\s+│ [+-]?\d+\.\d\d USDC\/day, (you pay|you earn|nothing to pay)/,
      /Execution price\s+│ [\d,]+\.\d\d NGN per USDT/,
      'Position after the add: USDTNGN sell',
      /Notional\s+│ 20,000\.00 → 24,000\.00 USD/,
      entryRow(before.entry, after.entryPrice!),
      marginRow(before.margin, after.marginUsdc),
      /Added at \(implied\)\s+│ [\d,]+\.\d\d NGN per USDT, [+-]?\d+\.\d bps, (better than quoted|worse than quoted|as quoted)/,
      `The hedge in full: hedge hedges ${seeded.id}`,
    ])
      expect(stdout).toMatch(part);
    expect(writePaths(simulator)).toEqual(['/quotes', '/hedges/add']);
  },
);

it('hedge reduce: what it realized: a partial reduce: the reduced share of the position (est.) and the balance before → after, no quote; --json is the side after it, the realized line on stderr', async () => {
  const simulator = await start();
  const seeded = simulator.seedOpen('sell', 20_000);
  const balanceBefore = account(simulator).balanceUsdc;
  const marginBefore = seeded.marginUsdc;

  const stdout = await card(simulator, `reduce ${MARKET} sell 5000`);
  const balanceAfter = account(simulator).balanceUsdc;
  const after = hedge(simulator, seeded.id);
  expect(after.notionalUsd).toBe(15_000);
  for (const part of [
    'Position after the reduce: USDTNGN sell',
    /Notional\s+│ 20,000\.00 → 15,000\.00 USD/,
    marginRow(marginBefore, after.marginUsdc),
    /Returned \(est\.\)\s+│ \+[\d,]+\.\d\d USD to your balance/,
    /Realized net P&L \(est\.\)\s+│ [+-]?[\d,]+\.\d\d USD/,
    `Balance change          │ ${formatSignedMoney(balanceAfter - balanceBefore)} USDC (${formatMoney(balanceBefore)} → ${formatMoney(balanceAfter)})`,
    '(est.) is 25.0% (5,000.00 of 20,000.00 USD) of what the position showed just before the reduce',
  ])
    expect(stdout).toMatch(part);
  expect(writePaths(simulator)).toEqual(['/hedges/reduce']);

  // Without a terminal: the side after it as TSV, and a line of what it was and is.
  const [keys, values] = exits(
    await simulator.hedge(`reduce ${MARKET} sell 2500`),
    0,
    'Reduced by 2,500.00 USD: the sell hedge on USDTNGN is now 12,500.00 USD (was 15,000.00 USD).',
  )
    .stdout.trim()
    .split('\n')
    .map((line) => line.split('\t'));
  expect(values[keys.indexOf('notional_usd')]).toBe('12500');
  expect(hedge(simulator, seeded.id)).toMatchObject({ notionalUsd: 12_500, status: 'filled' });

  // --json: the side after it, the hedge as the server sent it beside it; the realized line goes to stderr.
  const jsonBefore = account(simulator).balanceUsdc;
  const json = ok(await simulator.hedge(`reduce ${MARKET} sell 2000 --json`));
  const body = JSON.parse(json.stdout);
  expect(body).toMatchObject({
    hedge_id: seeded.id,
    notional_usd: 10_500,
    hedge: { id: seeded.id, notional_usd: 10_500, status: 'filled' },
  });
  expect(body).not.toHaveProperty('realized');
  expect(json.stderr).toContain('Position after the reduce: notional 12,500.00 → 10,500.00 USD;');
  expect(json.stderr).toContain(`balance ${formatSignedMoney(account(simulator).balanceUsdc - jsonBefore)} USDC.`);
});

it('hedge reduce: what it realized: a side of two hedges (alpha): a close, or a reduce of the whole side, names both hedges it ended and shows their realized figures summed; a reduce that takes all of the newest and part of, or none of, the other names the hedge that remains on every line of its card; an add the one it grew, and --json of an add and a reduce the side after the change, whichever hedge it was booked on', async () => {
  const simulator = await start({ dialect: 'alpha' });
  const ended = async (command: string) => {
    const ids = [simulator.seedOpen('buy', 1_000).id, simulator.seedOpen('buy', 500).id];
    const { stdout } = ok(await simulator.hedge(command, { env: WIDE }));
    expect(ids.map((id) => hedge(simulator, id).status)).toEqual(['closed', 'closed']);
    return { stdout, ids };
  };
  for (const command of [`close ${MARKET} buy`, `reduce ${MARKET} buy 1500`]) {
    const { stdout, ids } = await ended(`${command} --format table`);
    expectSummedCard(simulator, stdout, ids);
  }
  const { stdout, ids } = await ended(`close ${MARKET} buy --json`);
  const sum = summed(simulator, ids);
  const { realized } = JSON.parse(stdout);
  expect([...realized.hedge_ids].sort()).toEqual([...ids].sort());
  expect(realized).toMatchObject({
    notional_usd: expect.closeTo(sum('notional_usd'), 6),
    net_pnl_usd: expect.closeTo(sum('net_pnl_usd'), 6),
    fees_usdc: expect.closeTo(sum('fees_usdc'), 6),
  });
  // The side is flat again: a reduce that leaves one of its hedges.
  /** The card names `id` on its Hedge ID row and in the command it gives for the hedge in full. */
  const expectNames = (stdout: string, id: string) =>
    expect(
      [/Hedge ID\s+│ (\S+)/, /The hedge in full: hedge hedges (\S+)/].map((named) => named.exec(stdout)?.[1]),
    ).toEqual([id, id]);
  const older = simulator.seedOpen('buy', 1_000);
  // All of the newest and 200 of the older, then all of the newest and none of the other: the older is what remains, at 800.
  for (const [newest, usd] of [
    [500, 700],
    [300, 300],
  ]) {
    const gone = simulator.seedOpen('buy', newest);
    const stdout = await card(simulator, `reduce ${MARKET} buy ${usd}`);
    expect([activeSizes(simulator, 'buy'), hedge(simulator, gone.id).status]).toEqual([[[older.id, 800]], 'closed']);
    expectNames(stdout, older.id);
    expect(stdout).not.toContain(gone.id);
  }
  // An add grows the newest hedge: the one both lines name.
  const grown = simulator.seedOpen('buy', 200);
  const added = await card(simulator, `add ${MARKET} buy 100`);
  expect(hedge(simulator, grown.id).notionalUsd).toBe(300);
  expectNames(added.slice(added.indexOf('Position after the add')), grown.id);
  // --json: the side after the change, whichever hedge the server booked it on (the newest).
  expect(okJson(await simulator.hedge(`add ${MARKET} buy 200 --json`))).toMatchObject({
    market: MARKET,
    side: 'buy',
    notional_usd: 1300,
    hedge: { id: grown.id, notional_usd: 500 },
    answer: { hedge_id: grown.id, action: 'add', notional_usd: 200 },
  });
  expect(activeSizes(simulator, 'buy')).toEqual([
    [older.id, 800],
    [grown.id, 500],
  ]);
  expect(okJson(await simulator.hedge(`reduce ${MARKET} buy 300 --json`))).toMatchObject({
    notional_usd: 1000,
    hedge: { id: grown.id, notional_usd: 200 },
    answer: { action: 'reduce', notional_usd: 300 },
  });
});

// Bounded by --timeout before it lands (exit 7), then resumed once it has: as the first run would have shown it, never
// one hedge's figures for the side.
it.each([
  ['close', [] as string[], '/hedges/close'],
  ['reduce', ['1500'], '/hedges/reduce'],
])(
  'hedge reduce: what it realized: alpha: a %s of a side of two hedges resumed after it landed names both hedges and their summed figures',
  async (command, amount, path) => {
    // --timeout 2 on a clock hedge's pauses alone move: its wait runs it out, never the reads before the send.
    const simulator = await start({ dialect: 'alpha', fillDelayMs: HOUR, untimed: true });
    const ids = [simulator.seedOpen('buy', 1_000).id, simulator.seedOpen('buy', 500).id];
    exits(await simulator.hedge([command, MARKET, 'buy', ...amount, '--yes', '--timeout', '2']), 7, 'accepted');
    const entry = (await journalEntries(simulator)).find((row) => row.outcome === 'submitted')!;
    const sent = () => simulator.requests('POST', path).map((write) => [write.idempotencyKey, write.status]);
    const before = sent();
    expect(before.filter(([key]) => key === entry.idempotency_key)).toEqual([[entry.idempotency_key, 200]]);

    simulator.advance(HOUR);
    const resumed = await card(simulator, `resume ${entry.id} --yes --timeout 20`);
    // Nothing sent again; both hedges ended on the server, each with its history record, 1,500 between them.
    expect([sent(), summed(simulator, ids)('notional_usd')]).toEqual([before, 1_500]);
    expectSummedCard(simulator, resumed, ids);
  },
);

it('hedge reduce: what it realized: the close card fits 24 rows at 80 columns, a deal reference included, and says at its top what it is; a reduce of the whole position waits until its hedge is closed and reads as a close, with the realized figures of its history record', async () => {
  const simulator = await start();
  ok(await simulator.hedge(`open ${MARKET} sell 4000 --tenor 3 --ref DEAL-2026-000042`));
  const result = ok(await simulator.hedge(`close ${MARKET} sell --format table`, { env: { COLUMNS: '80' } }));
  const lines = result.stdout.trimEnd().split('\n');
  expect(lines[0]).toBe(`Position closed: ${MARKET} sell`);
  expect(result.stdout).toContain('DEAL-2026-000042');
  // Its title stays on a 24-row screen with the shell's next prompt under the card.
  expect(lines.length, result.stdout).toBeLessThanOrEqual(23);
  for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
  // Carry and fees in the one sign convention: "-… USDC, you paid" (or earned), from the history record.
  const [record] = account(simulator).history;
  expect(result.stdout).toMatch(paidRow('Fees', record.fees_usdc));
  expect(result.stdout).toMatch(paidRow('Carry', record.carry_usdc));

  const [buy, sell] = [simulator.seedOpen('buy', 6_000), simulator.seedOpen('sell', 8_000)];
  const reduced = await card(simulator, `reduce ${MARKET} buy 6000`);
  const [, reducedRecord] = account(simulator).history;
  expect(reducedRecord.hedge_id).toBe(buy.id);
  expect(reduced).toContain('Position closed');
  expect(reduced).toMatch(paidRow('Fees', reducedRecord.fees_usdc));
  expect(okJson(await simulator.hedge(`reduce ${MARKET} sell 8000 --json`))).toMatchObject({
    market: MARKET,
    side: 'sell',
    notional_usd: 0,
    hedge: { id: sell.id, status: 'closed' },
    answer: { hedge_id: sell.id, action: 'reduce', notional_usd: 8000 },
  });
  const { activeHedgeIds, history } = account(simulator);
  expect([hedge(simulator, sell.id).status, activeHedgeIds, history.map((entry) => entry.hedge_id)]).toEqual([
    'closed',
    {},
    [record.hedge_id, buy.id, sell.id],
  ]);
});

it('opening a side that is already open: says so before quoting and points to `hedge add`; the server decides (reference: 409, nothing opened)', async () => {
  const simulator = await start();
  const seeded = simulator.seedOpen('buy', 10_000);
  exits(
    await simulator.hedge(`open ${MARKET} buy 2500 --tenor 1 --json`),
    3,
    `Note: the buy side of USDTNGN is already open (10,000.00 USD, hedge ${seeded.id}).`,
    'To add to that hedge (same maturity): `hedge add USDTNGN buy 2500`.',
    'hedge_already_open',
  );
  const log = simulator.sandbox.requestLog.map((entry) => `${entry.method} ${entry.path}`);
  expect(log.indexOf('GET /positions')).toBeLessThan(log.indexOf('POST /quotes'));
  expect(writePaths(simulator)).toEqual(['/quotes', '/hedges']);
  expect(simulator.active('buy').map((entry) => entry.id)).toEqual([seeded.id]);
});

it('opening a side that is already open: open --ref after an early close that leaves the hedge `filled` (alpha): the history shows it ended, so the reference is free; an open one still refuses it; where the service allows several hedges per side, an open on an open side is a note, not a refusal: it goes through', async () => {
  const simulator = await start({ dialect: 'alpha' });
  ok(await simulator.hedge(`open ${MARKET} sell 1500 --tenor 7 --ref deal-c`));
  ok(await simulator.hedge(`close ${MARKET} sell`));
  const [first] = simulator.hedges();
  expect((await simulator.api('GET', `/hedges/${first.id}`)).body.data).toMatchObject({
    status: 'filled',
    client_reference: 'deal-c',
  });
  expect(simulator.historyCount()).toBe(1);

  ok(await simulator.hedge(`open ${MARKET} sell 1500 --tenor 7 --ref deal-c`));
  const carrying = simulator.hedges().filter((hedge) => hedge.clientReference === 'deal-c');
  expect(carrying).toHaveLength(2);
  expect(simulator.active('sell').map((hedge) => hedge.id)).toContain(carrying.find((hedge) => hedge !== first)!.id);

  exits(await simulator.hedge(`open ${MARKET} sell 1500 --tenor 7 --ref deal-c`), 3, 'An active hedge already carries');
  expect(simulator.sends('/hedges')).toHaveLength(2);
  // A note, not a refusal: the open goes through; no note on a side that is not open.
  expect(ok(await simulator.hedge(`open ${MARKET} buy 1000 --tenor 1 --json`)).stderr).not.toContain('already open');
  exits(
    await simulator.hedge(`open ${MARKET} sell 1000 --tenor 1 --json`),
    0,
    'Note: the sell side of USDTNGN is already open (1,500.00 USD',
  );
  expect(simulator.active('sell')).toHaveLength(2);
});

it('opening a side that is already open: the hint repeats --demo', async () => {
  const configDir = demoDir();
  ok(await runHedge(`--demo open ${MARKET} sell 1000 --tenor 1 --json`, { configDir }));
  expect((await runHedge(`--demo open ${MARKET} sell 500 --tenor 1 --json`, { configDir })).stderr).toContain(
    'To add to that hedge (same maturity): `hedge --demo add USDTNGN sell 500`.',
  );
});
