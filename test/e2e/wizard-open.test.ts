// The `hedge open` wizard driven through a real pseudo-terminal (@lydell/node-pty), the built
// binary on the other end and a sandbox server behind it: typed answers, the notional refused as
// typed when over the headroom, the quote card, the confirmation, the spinner and the fill; and
// Ctrl-C at a prompt (exit 130) or "No" at the confirmation (exit 8, declined), with nothing sent.
import { afterEach, describe, expect, it } from 'vitest';
import { KEYS, spawnInTerminal as spawnTerminal, stripAnsi, type Terminal } from '../support/pseudo-terminal.js';
import { displayWidth } from '../../src/ui/width.js';
import { useSimulators, type Simulator } from '../support/simulator.js';

const { DOWN, ENTER, CTRL_C, BACKSPACE } = KEYS;

const spawnInTerminal = (trading: Simulator, args: string[]): Terminal =>
  spawnTerminal({ configDir: trading.configDir, env: trading.env, args });

// Registered before the afterEach below, so it runs after it: the terminal is gone before its simulator.
const startTrading = useSimulators();
let terminal: Terminal | undefined;

afterEach(() => {
  terminal?.kill();
  terminal = undefined;
});

describe('hedge open wizard (pseudo-terminal)', () => {
  it('fits an 80-column terminal: the market choice is its name and price, both sides as its description; no line wider', async () => {
    const trading = await startTrading({ exposureCapUsd: 100_000 });
    terminal = spawnTerminal({ configDir: trading.configDir, env: trading.env, args: ['open'], cols: 80 });
    await terminal.waitFor('? Market');
    await terminal.waitFor(/buy: capacity 100,000\.00 USD, carry [+-]/);
    await terminal.waitFor(/sell: capacity 100,000\.00 USD, carry [+-]/);
    terminal.write(ENTER);
    await terminal.waitFor('? Side');
    await terminal.waitFor('sell  capacity 100,000.00 USD');
    const lines = stripAnsi(terminal.screen()).split('\n');
    expect(lines.filter((line) => displayWidth(line) > 80)).toEqual([]);
    terminal.write(CTRL_C);
    expect(await terminal.exitCode).toBe(130);
    expect(trading.writes()).toHaveLength(0);
  });

  it('walks market, side, notional (checked as typed), tenor, reference, quote card, confirm, then waits for the fill', async () => {
    const trading = await startTrading({ exposureCapUsd: 100_000, fillDelayMs: 1_500 });
    terminal = spawnInTerminal(trading, ['open']);

    await terminal.waitFor('? Market');
    await terminal.waitFor(/USDTNGN\s+[\d,.]+\s+│ buy: capacity 100,000\.00 USD, carry [+-]/);
    terminal.write(ENTER);
    await terminal.waitFor('? Side');
    await terminal.waitFor('sell  capacity 100,000.00 USD');
    terminal.write(ENTER);
    await terminal.waitFor('? Notional in USD (at most 100,000.00)');
    terminal.write(`150000${ENTER}`);
    await terminal.waitFor('would push the account over its exposure cap: 100,000.00 USD of headroom left');
    terminal.write(`${BACKSPACE.repeat(6)}25k${ENTER}`);
    await terminal.waitFor('? Tenor');
    await terminal.waitFor(/7 days\s+matures about \d{4}-\d\d-\d\d/);
    terminal.write(`${DOWN}${ENTER}`);
    await terminal.waitFor('? Client reference (optional, Enter to skip)');
    terminal.write(`WIZ-7${ENTER}`);
    await terminal.waitFor('Quote USDTNGN buy 25,000.00 USD, 3 days');
    await terminal.waitFor('Execution price');
    await terminal.waitFor('Total upfront');
    await terminal.waitFor('? Open buy 25,000.00 USD on USDTNGN for 3 days (ref WIZ-7)');
    await terminal.waitFor('(y/N)');
    // Nothing is sent before the confirmation: only reads and the quote so far.
    expect(trading.writes().map((entry) => entry.path)).toEqual(['/quotes']);
    terminal.write(`y${ENTER}`);
    await terminal.waitFor(/waiting for the fill \d+s/);
    await terminal.waitFor('Hedge filled');
    expect(await terminal.exitCode).toBe(0);

    const [hedge] = trading.hedges();
    expect(trading.hedges()).toHaveLength(1);
    expect(hedge).toMatchObject({ status: 'filled', side: 'buy', notionalUsd: 25_000, tenorDays: 3, clientReference: 'WIZ-7' });
    expect(terminal.screen()).toContain(hedge!.id);
    // On screen the hash is shortened in the middle (whole in --json, TSV and CSV).
    const fill = hedge!.fillTxHash!;
    expect(terminal.screen()).toContain(`${fill.slice(0, 6)}…${fill.slice(-4)}`);
    expect(terminal.screen()).not.toContain(fill);
  });

  it('Ctrl-C at the first prompt exits 130 and nothing is sent', async () => {
    const trading = await startTrading();
    terminal = spawnInTerminal(trading, ['open']);
    await terminal.waitFor('? Market');
    terminal.write(CTRL_C);
    expect(await terminal.exitCode).toBe(130);
    expect(terminal.screen()).toContain('nothing was sent');
    expect(trading.writes()).toEqual([]);
    expect(trading.hedges()).toEqual([]);
  });

  it('Ctrl-C at the notional prompt, with market and side given on the command line, exits 130 with nothing sent', async () => {
    const trading = await startTrading();
    terminal = spawnInTerminal(trading, ['open', 'USDTNGN', 'sell']);
    await terminal.waitFor('? Notional in USD');
    expect(terminal.screen()).not.toContain('? Market');
    terminal.write(`12${CTRL_C}`);
    expect(await terminal.exitCode).toBe(130);
    expect(trading.writes()).toEqual([]);
  });

  it('answering No (the default) at the confirmation exits 8 (declined) and opens nothing', async () => {
    const trading = await startTrading();
    terminal = spawnInTerminal(trading, ['open', 'USDTNGN', 'buy', '5000', '--ref', 'NOPE']);
    await terminal.waitFor('? Tenor');
    terminal.write(ENTER);
    await terminal.waitFor('Execution price');
    await terminal.waitFor('(y/N)');
    terminal.write(ENTER);
    expect(await terminal.exitCode).toBe(8);
    expect(terminal.screen()).toContain('Not confirmed; nothing was sent.');
    expect(trading.writes().map((entry) => entry.path)).toEqual(['/quotes']);
    expect(trading.hedges()).toEqual([]);
  });

  it('Ctrl-C while waiting for the fill stops the wait only: exit 130, the order stands and the way to check it is shown', async () => {
    const trading = await startTrading({ fillDelayMs: 60_000 });
    terminal = spawnInTerminal(trading, ['open', 'USDTNGN', 'buy', '5000', '--tenor', '1']);
    await terminal.waitFor('Execution price');
    await terminal.waitFor(/waiting for the fill \d+s/);
    terminal.write(CTRL_C);
    expect(await terminal.exitCode).toBe(130);
    const [hedge] = trading.hedges();
    expect(hedge!.status).toBe('submitted');
    expect(terminal.screen()).toContain('Stopped waiting. The order stands');
    expect(terminal.screen()).toContain(`hedge hedges ${hedge!.id} --wait`);
  });
});
