// The `hedge open` wizard driven through a real pseudo-terminal (@lydell/node-pty), the built
// binary on the other end and a sandbox server behind it: typed answers, the notional refused as
// typed when over the headroom, the quote card, the confirmation, the spinner and the fill; Ctrl-C
// at a prompt, which ends with exit 130 and nothing sent, and "No" at the confirmation, exit 8
// (declined). At 80 columns every line is drawn whole: no line wider than the terminal and no word
// split at a line end, prompts and the message after an interrupted wait included.
import {
  KEYS,
  spawnInTerminal as spawnTerminal,
  stripAnsi,
  wordsSplitAtLineEnd,
  type DrawnLine,
  type Terminal,
} from '../support/servers/pseudo-terminal.js';
import { displayWidth } from '../../src/platform/terminal/width.js';
import { apiData, MARKET, useSimulators, type Simulator } from '../support/simulator.js';
import { activeNotional, HOUR } from '../support/keeper.js';
import { pairOf, sideGains } from '../../src/core/markets.js';
import { SIDES } from '../../src/core/vocabulary.js';

const { DOWN, ENTER, CTRL_C, BACKSPACE } = KEYS;

/** A terminal (of `size` when given) running hedge on `trading`. */
const spawnInTerminal = (trading: Simulator, args: string[], size?: { cols?: number; rows?: number }) =>
  spawnTerminal({ configDir: trading.configDir, env: trading.env, args, ...size });

/**
 * The drawn screen as one line of text, its lines joined by a space: what a person reads. A word
 * split at a line end reads as two words here, so a sentence found whole was broken at spaces only.
 */
const readAsText = (lines: readonly DrawnLine[]) =>
  lines
    .map((line) => line.text.trim())
    .join(' ')
    .replace(/ +/g, ' ');

// Registered before the afterEach below, so it runs after it: the terminal is gone before its simulator.
const startTrading = useSimulators();
let terminal: Terminal | undefined;

afterEach(() => {
  terminal?.kill();
  terminal = undefined;
});

/** Waits for each of `texts` on the terminal, in turn. */
const see = async (...texts: Array<string | RegExp>) => {
  for (const text of texts) await terminal!.waitFor(text);
};

it('walks market, side, notional (checked as typed), tenor, reference, quote card, confirm, then waits for the fill', async () => {
  const trading = await startTrading({ exposureCapUsd: 100_000, fillDelayMs: 1_500 });
  terminal = spawnInTerminal(trading, ['open']);

  // The first question is what the person has; "I know the side" goes on to the market and the side.
  await see('? What do you have?', 'I know the side (buy or sell)');
  terminal.write(`${DOWN}${DOWN}${ENTER}`);
  await see('? Market', /USDTNGN\s+[\d,.]+\s+│ buy: capacity 100,000\.00 USD, carry [+-]/);
  terminal.write(ENTER);
  await see('? Side', 'sell  capacity 100,000.00 USD');
  terminal.write(ENTER);
  await see('? Notional in USD (at most 100,000.00)');
  terminal.write(`150000${ENTER}`);
  await see('would push the account over its exposure cap: 100,000.00 USD of headroom left');
  terminal.write(`${BACKSPACE.repeat(6)}25k${ENTER}`);
  await see('? Tenor', /7 days\s+matures about \d{4}-\d\d-\d\d/);
  terminal.write(`${DOWN}${ENTER}`);
  await see('? Client reference (optional, Enter to skip)');
  terminal.write(`WIZ-7${ENTER}`);
  await see(
    'Quote USDTNGN buy 25,000.00 USD, 3 days',
    'Execution price',
    'Total upfront',
    '? Open buy 25,000.00 USD on USDTNGN for 3 days (ref WIZ-7)',
    '(y/N)',
  );
  // Nothing is sent before the confirmation: only reads and the quote so far.
  expect(trading.writes().map((entry) => entry.path)).toEqual(['/quotes']);
  terminal.write(`y${ENTER}`);
  await see(/waiting for the fill \d+s/, 'Hedge filled');
  expect(await terminal.exitCode).toBe(0);

  const [hedge] = trading.hedges();
  expect(trading.hedges()).toMatchObject([
    { status: 'filled', side: 'buy', notionalUsd: 25_000, tenorDays: 3, clientReference: 'WIZ-7' },
  ]);
  expect(terminal.screen()).toContain(hedge.id);
  // On screen the hash is shortened in the middle (whole in --json, TSV and CSV).
  const fill = hedge.fillTxHash!;
  expect(terminal.screen()).toContain(`${fill.slice(0, 6)}…${fill.slice(-4)}`);
  expect(terminal.screen()).not.toContain(fill);
});

it('Ctrl-C at the notional prompt, with market and side given on the command line, exits 130 with nothing sent', async () => {
  const trading = await startTrading();
  terminal = spawnInTerminal(trading, ['open', 'USDTNGN', 'sell']);
  await see('? Notional in USD');
  expect(terminal.screen()).not.toContain('? Market');
  terminal.write(`12${CTRL_C}`);
  expect(await terminal.exitCode).toBe(130);
  expect(terminal.screen()).toContain('nothing was sent');
  expect([trading.writes(), trading.hedges()]).toEqual([[], []]);
});

it('at 80 columns: a side already open, a refused notional, the reference and the confirmation, each drawn whole (no word split); No exits 8', async () => {
  const trading = await startTrading({ exposureCapUsd: 100_000 });
  trading.seedOpen('buy', 10_000);
  terminal = spawnInTerminal(trading, ['open'], { cols: 80 });
  // Each prompt is redrawn in place once answered: the screen is read while it is up.
  const screens: DrawnLine[][] = [];
  /** The screen as drawn now, kept for the width checks at the end, as one line of text. */
  const shot = async () => {
    screens.push(await terminal!.drawn());
    return readAsText(screens.at(-1)!);
  };
  await see('? What do you have?', 'I know the side');
  await shot();
  terminal.write(`${DOWN}${DOWN}${ENTER}`);
  await see('? Market');
  // The market choice is its name and price, both sides as its description.
  await see(/buy:\s+capacity [\d,.]+ USD, carry [+-]/, /sell:\s+capacity [\d,.]+ USD, carry [+-]/);
  await shot();
  terminal.write(ENTER);
  await see('? Side', 'sell');
  const sides = await shot();
  expect(sides).toMatch(
    /buy capacity [\d,.]+ USD, carry [+-][\d.]+%\/day, you (pay|earn) — already open: 10,000\.00 USD/,
  );
  expect(sides).not.toMatch(/sell capacity [^—]*— already open/);
  terminal.write(ENTER);
  // The open side is offered as "add to it" or the other side — never as an open the server may refuse.
  await see('What now?', 'Cancel');
  const whatNow = await shot();
  expect(whatNow).toMatch(/The buy side of USDTNGN already holds 10,000\.00 USD \(hdg_\w+\)\. What now\?/);
  expect(whatNow).toContain('Open on the sell side instead');
  terminal.write(`${DOWN}${ENTER}`);
  await see('? Notional in USD');
  terminal.write(`1O_000${ENTER}`);
  await see('1.5m.');
  expect(await shot()).toContain(
    'notional: "1O_000" is not allowed; expected a positive USD amount such as 10000, 10_000, 10k or 1.5m.',
  );
  terminal.write(`${BACKSPACE.repeat(6)}10_000${ENTER}`);
  await see('? Tenor');
  terminal.write(ENTER);
  await see('? Client reference');
  terminal.write(`DEAL-2026-000042${ENTER}`);
  await see('Total upfront', '(y/N)');
  expect(await shot()).toMatch(
    /Open sell 10,000\.00 USD on USDTNGN for 1 day \(ref DEAL-2026-000042\), [\d,.]+ USDC upfront\? \(y\/N\)/,
  );
  terminal.write(`n${ENTER}`);
  expect(await terminal.exitCode).toBe(8);
  expect(trading.writes().map((entry) => entry.path)).toEqual(['/quotes']);
  expect(await shot()).toContain('Not confirmed; nothing was sent.');

  for (const screen of screens) {
    expect(screen.filter((line) => displayWidth(line.text) > 80)).toEqual([]);
    expect(wordsSplitAtLineEnd(screen)).toEqual([]);
  }
});

it('at 80×24: a side already open, "add to it" chosen — the add is quoted, asked about (y/N, as the open is) and lands on that hedge; no open is sent', async () => {
  const trading = await startTrading({ exposureCapUsd: 100_000, fillDelayMs: 200 });
  const seeded = trading.seedOpen('sell', 3_000);
  terminal = spawnInTerminal(trading, ['open', 'USDTNGN', 'sell'], { cols: 80, rows: 24 });
  await see('What now?', 'Cancel');
  const question = await terminal.drawn();
  // The side's holding is in the question itself: on screen when it is answered.
  expect(readAsText(question)).toContain(
    `The sell side of USDTNGN already holds 3,000.00 USD (${seeded.id}). What now?`,
  );
  // The side was given on the command line: the other side is not offered in its place.
  expect(readAsText(question)).not.toContain('Open on the buy side instead');
  terminal.write(ENTER);
  await see('? Notional in USD');
  terminal.write(`500${ENTER}`);
  // The wizard asks before the add as before an open, on any key, with the addition's quote card in view.
  await see('Indicative only', '(y/N)');
  expect(readAsText(await terminal.drawn())).toMatch(
    new RegExp(
      `Add 500\\.00 USD to the sell hedge on USDTNGN \\(${seeded.id}\\) at about [\\d,.]+, [\\d,.]+ USDC upfront\\? \\(y/N\\)`,
    ),
  );
  // Nothing is sent before the answer: only the quote so far.
  expect(trading.writes().map((entry) => entry.path)).toEqual(['/quotes']);
  terminal.write(`y${ENTER}`);
  expect(await terminal.exitCode).toBe(0);
  expect(stripAnsi(terminal.screen())).toContain('Added 500.00 USD: the sell hedge on USDTNGN is now 3,500.00 USD');
  expect(trading.writes().map((entry) => entry.path)).toEqual(['/quotes', '/hedges/add']);
  expect(activeNotional(trading, 'sell')).toBe(3_500);
  for (const line of await terminal.drawn()) expect(displayWidth(line.text)).toBeLessThanOrEqual(80);
});

it('a side whose views disagree (its hedge in a status hedge does not know) is said as the side model says it: not known, with why, never a figure one view gave; Cancel sends nothing', async () => {
  const trading = await startTrading({ closedSettlingMs: 10 * HOUR });
  const seeded = trading.seedOpen('buy', 10_000);
  await apiData(trading, 'POST', '/hedges/close', { market: MARKET, side: 'buy' });
  trading.advance(HOUR);
  // Its record: `settling` with a notional of 0; the positions list no longer shows the side.
  expect(await apiData(trading, 'GET', `/hedges/${seeded.id}`)).toMatchObject({ status: 'settling', notional_usd: 0 });
  terminal = spawnInTerminal(trading, ['open', MARKET, 'buy']);
  await see('What now?', 'Cancel');
  const question = readAsText(await terminal.drawn());
  expect(question).toContain(
    `The buy side of USDTNGN is not flat, and what it holds is not known: hedge ${seeded.id} shows status "settling", which hedge does not know (neither open nor ended). What now?`,
  );
  expect(question).not.toContain('already holds');
  terminal.write(`${DOWN}${ENTER}`);
  expect(await terminal.exitCode).toBe(8);
  expect(trading.writes().map((entry) => entry.path)).toEqual(['/hedges/close']);
});

it('a side whose holding is not known is never offered "add to it": the screen says why and offers to read it again; read again once it has settled, it is flat and the wizard goes on to an open', async () => {
  const trading = await startTrading({ closedSettlingMs: 10 * HOUR });
  const seeded = trading.seedOpen('buy', 10_000);
  await apiData(trading, 'POST', '/hedges/close', { market: MARKET, side: 'buy' });
  trading.advance(HOUR);
  terminal = spawnInTerminal(trading, ['open', MARKET, 'buy'], { cols: 80, rows: 24 });
  await see('What now?', 'Cancel');
  const question = readAsText(await terminal.drawn());
  expect(question).toContain('is not flat, and what it holds is not known');
  expect(question).not.toContain('Add to it');
  expect(question).toContain('Read the side again (hedge adds only to a side it can read)');
  // The close lands: the side is flat, and read again it is opened, not added to (the tenor is asked).
  trading.advance(10 * HOUR);
  expect(await apiData(trading, 'GET', `/hedges/${seeded.id}`)).toMatchObject({ status: 'closed' });
  terminal.write(ENTER);
  await see('? Notional in USD');
  terminal.write(`500${ENTER}`);
  await see('? Tenor');
  terminal.write(CTRL_C);
  expect(await terminal.exitCode).toBe(130);
  expect(trading.writes().map((entry) => entry.path)).toEqual(['/hedges/close']);
});

it('Ctrl-C while waiting for the fill stops the wait only: exit 130, the order stands and the way to check it is shown, wrapped at 80 columns', async () => {
  const trading = await startTrading({ fillDelayMs: 60_000 });
  terminal = spawnInTerminal(trading, ['open', 'USDTNGN', 'buy', '5000', '--tenor', '1'], { cols: 80 });
  await see('Execution price');
  // Too long for one spinner line at 80 columns: the label is written whole above a counting spinner.
  await see('waiting for the fill', /waiting \d+s/);
  terminal.write(CTRL_C);
  expect(await terminal.exitCode).toBe(130);
  const [hedge] = trading.hedges();
  expect(hedge.status).toBe('submitted');
  const drawn = await terminal.drawn();
  const text = readAsText(drawn);
  expect(text).toContain(`Submitted ${hedge.id} (tx 0x`);
  expect(text).toContain(`Stopped waiting. The order stands: hedge ${hedge.id} is still being processed.`);
  expect(text).toContain(`hedge hedges ${hedge.id} --wait`);
  expect(drawn.filter((line) => displayWidth(line.text) > 80)).toEqual([]);
  expect(wordsSplitAtLineEnd(drawn)).toEqual([]);
});

it("at 60 columns: the side step says under the highlighted side which way it gains, and the quote card says it for the side chosen, from the market's own pair (USDTKES: KES per USDT), each line drawn whole", async () => {
  const trading = await startTrading({ extraMarkets: [{ market: 'USDTKES', status: 'open', basePrice: 129.4 }] });
  // The buy side holds a hedge: its choice line is too long for 60 columns and wraps.
  trading.seedOpen('buy', 1_000, 'USDTKES');
  terminal = spawnInTerminal(trading, ['open', 'USDTKES'], { cols: 60 });
  const screens: DrawnLine[][] = [];
  const shot = async () => {
    screens.push(await terminal!.drawn());
    return readAsText(screens.at(-1)!);
  };
  // The given market's currency only.
  await see('? What do you have?', 'A receivable in KES', 'I know the side');
  expect(await shot()).not.toContain('NGN');
  terminal.write(`${DOWN}${DOWN}${ENTER}`);
  await see('? Side', 'buy gains as KES weakens (more KES per USDT)');
  expect(await shot()).not.toContain('sell gains');
  // A side's wrapped line starts under its figures (past `sell  `), not under its name.
  const drawn = screens.at(-1)!.map((line) => line.text);
  const step = drawn.slice(drawn.findIndex((line) => line.startsWith('? Side')) + 1);
  const choices = step.slice(
    0,
    step.findIndex((line) => !line.trim()),
  );
  const wrapped = choices.filter((line) => !/^(❯|\s) (buy|sell) /.test(line));
  expect(wrapped.length).toBeGreaterThan(0);
  for (const line of wrapped) expect(line).toMatch(/^ {8}\S/);
  terminal.write(DOWN);
  await see('sell gains as KES strengthens (fewer KES per USDT)');
  expect(await shot()).not.toContain('buy gains');
  terminal.write(ENTER);
  await see('? Notional in USD');
  terminal.write(`2000${ENTER}`);
  await see('? Tenor');
  terminal.write(ENTER);
  await see('? Client reference');
  terminal.write(ENTER);
  await see('Quote USDTKES sell 2,000.00 USD, 1 day', '(y/N)');
  expect(await shot()).toMatch(
    /┘ sell gains as KES strengthens \(fewer KES per USDT\)\. Sell covers KES payables \(books in USD\)\. Indicative only/,
  );
  terminal.write(`n${ENTER}`);
  expect(await terminal.exitCode).toBe(8);
  expect(trading.writes().map((entry) => entry.path)).toEqual(['/quotes']);
  for (const screen of screens) {
    expect(screen.filter((line) => displayWidth(line.text) > 60)).toEqual([]);
    expect(wordsSplitAtLineEnd(screen)).toEqual([]);
  }
});

it('the first question is what the person has: an NGN payable picks sell on USDTNGN, its cover said under it; no market or side question; No exits 8 with nothing sent', async () => {
  const trading = await startTrading();
  terminal = spawnInTerminal(trading, ['open'], { cols: 80 });
  await see('? What do you have?', 'A receivable in NGN: money you will be paid in NGN');
  await see('buy covers NGN receivables (books in USD)');
  expect(readAsText(await terminal.drawn())).toContain(
    'buy covers NGN receivables (books in USD): buy gains as NGN weakens (more NGN per USDT)',
  );
  terminal.write(DOWN);
  await see('sell covers NGN payables (books in USD)');
  expect(readAsText(await terminal.drawn())).toContain(
    'sell covers NGN payables (books in USD): sell gains as NGN strengthens (fewer NGN per USDT)',
  );
  terminal.write(ENTER);
  await see('? Notional in USD');
  terminal.write(`2000${ENTER}`);
  await see('? Tenor');
  terminal.write(ENTER);
  await see('? Client reference');
  terminal.write(ENTER);
  await see('Quote USDTNGN sell 2,000.00 USD, 1 day', 'Sell covers NGN payables (books in USD).', '(y/N)');
  const screen = stripAnsi(terminal.screen());
  expect(screen).not.toContain('? Market');
  expect(screen).not.toContain('? Side');
  terminal.write(`n${ENTER}`);
  expect(await terminal.exitCode).toBe(8);
  expect(trading.writes().map((entry) => entry.path)).toEqual(['/quotes']);
});

it("which way a side gains: from the pair the markets list names (base and quote, under either name), else from the market's id; none for an id that names no pair", () => {
  expect(pairOf('USDTNGN')).toEqual({ base: 'USDT', quote: 'NGN' });
  expect(pairOf('XAUEUR', { base: 'xau', quote: 'eur' })).toEqual({ base: 'XAU', quote: 'EUR' });
  expect(pairOf('USDTNGN', { base_currency: 'USDC', quote_currency: 'NGN' })).toEqual({ base: 'USDC', quote: 'NGN' });
  // Not a currency code: the id decides.
  expect(pairOf('USDTGHS', { base: '\u001b[31m', quote: 'GHS' })).toEqual({ base: 'USDT', quote: 'GHS' });
  expect(pairOf('BTCPERP')).toBeUndefined();
  expect(SIDES.map((side) => sideGains(side, { base: 'USDC', quote: 'EUR' }))).toEqual([
    'buy gains as EUR weakens (more EUR per USDC)',
    'sell gains as EUR strengthens (fewer EUR per USDC)',
  ]);
});
