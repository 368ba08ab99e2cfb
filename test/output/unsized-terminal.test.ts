// A terminal of 0 columns — what cron, CI and `script` without a terminal give a command — is never
// redrawn in place: a spinner divides by the width, and on 0 it cleared lines without end, starving
// the process of its signals and timers while the write it waited for had landed. The real binary
// on a real pseudo-terminal sized 0 × 0 (or shrunk to it while a spinner runs), against the
// simulator: each run ends, writes a few KiB, and leaves the journal saying what happened.
import { exits, journalEntries, waitingAfter } from '../support/cli-runs.js';
import { until } from '../support/polling.js';
import { spawnInTerminal, type Terminal } from '../support/servers/pseudo-terminal.js';
import { MARKET, startSimulator as start, type Simulator, type SimulatorOptions } from '../support/simulator.js';

// The cases run side by side (their time is real: processes starting, a --timeout): each simulator is closed when the file ends.
const started: Simulator[] = [];
afterAll(() => Promise.all(started.map((t) => t.close())));
/** A simulator whose buy side holds 10,000 USD. */
const startSimulator = async (options?: SimulatorOptions) => {
  const t = await start(options);
  started.push(t);
  t.seedOpen('buy', 10_000);
  return t;
};

/** Sandbox time for an add to land: a test that needs it landed moves the clock, nothing lands by itself. */
const LAND_MS = 3_600_000;

/** The backstop for a run's end: a hang fails the test here, within its own bound, naming what it waited for. */
const EXIT_BOUND_MS = 40_000;
/** A process on a real terminal keeps its own clock: --timeout bounds its start-up and reads too, so it leaves them
 * ample room on a loaded machine before the wait it ends. */
const TIMEOUT = ['--timeout', '10'];

/** More than the quote, the add's lines and its result card take, far less than any redraw loop writes. */
const MOST_BYTES = 16 * 1024;

/** A cursor moved up or a line erased: something redrawn in place. */
const REDRAW = /\u001b\[\d*[AK]/;

const ADD = ['add', MARKET, 'buy', '500'];

/** The journal's one add row, checked to be `outcome` under the one key the server answered the add with. */
async function addRow(t: Simulator, outcome: 'done' | 'submitted') {
  const answered = t.requests('POST', '/hedges/add').filter((entry) => entry.status === 200);
  const keys = [...new Set(answered.map((entry) => entry.idempotencyKey))];
  const rows = (await journalEntries(t)).filter((entry) => entry.command === 'add');
  expect(rows.map((row) => [row.outcome, row.idempotency_key])).toEqual([[outcome, keys[0]]]);
  expect(keys).toHaveLength(1);
  return rows[0];
}

/** The seeded side shows the add once. */
const landedOnce = (t: Simulator) => expect(t.active('buy').map((hedge) => hedge.notionalUsd)).toEqual([10_500]);

/** Runs `body` with the add spawned on a terminal (`cols` 0: one nobody sized), killed after whatever happens. */
async function onTerminal(t: Simulator, args: string[], cols: number, body: (terminal: Terminal) => Promise<void>) {
  const terminal = spawnInTerminal({ configDir: t.configDir, env: t.env, args, cols, rows: 30 });
  try {
    await body(terminal);
  } finally {
    terminal.kill();
  }
}

/** The add has been answered and its wait has polled the positions since: it is waiting. */
const waitingOn = (t: Simulator, terminal: Terminal) =>
  until(waitingAfter(t, '/hedges/add'), 'the add waiting for its landing', {
    timeoutMs: EXIT_BOUND_MS,
    process: terminal.exitCode.then((code) => ({ code, stderr: terminal.screen() })),
  });

describe.concurrent('a terminal of 0 columns', () => {
  it('an add ends once it lands: its waiting line said once, nothing redrawn, a few KiB written, the journal row done; then --watch writes NDJSON, one line a refresh, instead of a live view it cannot size', async () => {
    const t = await startSimulator();
    await onTerminal(t, ADD, 0, async (terminal) => {
      expect(await terminal.exitWithin(EXIT_BOUND_MS, 'the add on a 0-column terminal')).toBe(0);
      expect(terminal.bytes()).toBeLessThan(MOST_BYTES);
      expect(terminal.raw()).not.toMatch(REDRAW);
      expect(terminal.screen().match(/waiting for it to land…/g)).toHaveLength(1);
    });
    landedOnce(t);
    await addRow(t, 'done');
    // --watch writes NDJSON, one line a refresh, instead of a live view it cannot size.
    await onTerminal(t, 'positions --watch 1 --count 2'.split(' '), 0, async (terminal) => {
      expect(await terminal.exitWithin(EXIT_BOUND_MS, 'the watch on a 0-column terminal')).toBe(0);
      expect(terminal.raw()).not.toMatch(REDRAW);
      const records = terminal
        .screen()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line));
      expect(records.map((record) => record.data.map((position: any) => position.notional_usd))).toEqual([
        [10_500],
        [10_500],
      ]);
    });
  });

  it('SIGTERM while the add waits ends it with 143; its row stays submitted with its key, and `hedge resume` finishes it once', async () => {
    const t = await startSimulator({ fillDelayMs: LAND_MS });
    let id = '';
    await onTerminal(t, ADD, 0, async (terminal) => {
      await waitingOn(t, terminal);
      terminal.signal('SIGTERM');
      expect(await terminal.exitWithin(EXIT_BOUND_MS, 'the add after SIGTERM')).toBe(143);
      id = (await addRow(t, 'submitted')).id as string;
      expect(terminal.screen().replace(/\s+/g, ' ')).toContain(`resume ${id}`);
      expect(terminal.bytes()).toBeLessThan(MOST_BYTES);
    });
    t.sandbox.clock.advance(LAND_MS);
    exits(await t.hedge(['resume', id, '--json']), 0);
    landedOnce(t);
    await addRow(t, 'done');
  });

  it('--timeout ends the wait with 7; the row stays submitted with its key and says it has not landed', async () => {
    const t = await startSimulator({ fillDelayMs: LAND_MS });
    await onTerminal(t, [...ADD, ...TIMEOUT], 0, async (terminal) => {
      expect(await terminal.exitWithin(EXIT_BOUND_MS, 'the add under --timeout 10')).toBe(7);
      expect(terminal.bytes()).toBeLessThan(MOST_BYTES);
      expect(terminal.raw()).not.toMatch(REDRAW);
    });
    expect((await addRow(t, 'submitted')).message).toContain('has not shown in the positions list');
    expect(waitingAfter(t, '/hedges/add')()).toBe(true);
  });

  it('a terminal shrunk to 0 columns while the spinner runs: the spinner gives way to a plain line, and the add ends once it lands', async () => {
    const t = await startSimulator({ fillDelayMs: LAND_MS });
    await onTerminal(t, ADD, 100, async (terminal) => {
      await waitingOn(t, terminal);
      terminal.setSize(0, 0);
      await terminal.waitFor('land…', EXIT_BOUND_MS);
      t.sandbox.clock.advance(LAND_MS);
      expect(await terminal.exitWithin(EXIT_BOUND_MS, 'the add after its terminal shrank')).toBe(0);
      expect(terminal.bytes()).toBeLessThan(MOST_BYTES);
    });
    landedOnce(t);
    await addRow(t, 'done');
  });
});

// Ctrl-S (XOFF): the terminal stops taking output, and Node writes to a terminal synchronously, so a spinner's next
// frame would stop the event loop and every signal, timer and wait with it. Writes to a terminal queue instead.
describe.concurrent('a terminal that stops reading (Ctrl-S)', () => {
  const CTRL_S = '\x13';

  it('SIGTERM while the add waits behind Ctrl-S ends it with 143, its row submitted with its key', async () => {
    const t = await startSimulator({ fillDelayMs: LAND_MS });
    await onTerminal(t, ADD, 80, async (terminal) => {
      await waitingOn(t, terminal);
      terminal.write(CTRL_S);
      terminal.signal('SIGTERM');
      expect(await terminal.exitWithin(EXIT_BOUND_MS, 'the add after Ctrl-S and SIGTERM')).toBe(143);
    });
    await addRow(t, 'submitted');
  });

  it('--timeout 10 ends the wait behind Ctrl-S with 7', async () => {
    const t = await startSimulator({ fillDelayMs: LAND_MS });
    await onTerminal(t, [...ADD, ...TIMEOUT], 80, async (terminal) => {
      await waitingOn(t, terminal);
      terminal.write(CTRL_S);
      expect(await terminal.exitWithin(EXIT_BOUND_MS, 'the add under --timeout 10 after Ctrl-S')).toBe(7);
    });
    await addRow(t, 'submitted');
  });

  it('the add lands while the terminal is stopped: it ends with 0 and its row is done', async () => {
    const t = await startSimulator({ fillDelayMs: LAND_MS });
    await onTerminal(t, ADD, 80, async (terminal) => {
      await waitingOn(t, terminal);
      terminal.write(CTRL_S);
      t.sandbox.clock.advance(LAND_MS);
      expect(await terminal.exitWithin(EXIT_BOUND_MS, 'the add landing after Ctrl-S')).toBe(0);
    });
    landedOnce(t);
    await addRow(t, 'done');
  });
});
