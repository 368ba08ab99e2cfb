// The exit code of a command stopped by a signal is the signal's (143 SIGTERM, 129 SIGHUP, 130 Ctrl-C) wherever
// the command was when it came: a wait (exit-codes.test.ts), a request still out, a question on a terminal. A
// supervisor stopping hedge, or a terminal closed under a wizard, is told apart from a Ctrl-C by the code alone.
import { killWhen, lastJson, exits } from '../support/cli-runs.js';
import { spawnInTerminal } from '../support/servers/pseudo-terminal.js';
import { MARKET, startSimulator, type Simulator } from '../support/simulator.js';
import { until } from '../support/polling.js';

let simulator: Simulator;

beforeAll(async () => {
  simulator = await startSimulator({ preset: 'frozen' });
});

afterAll(async () => {
  await simulator?.close();
});

it.each([
  ['SIGTERM', 143, 'terminated'],
  ['SIGHUP', 129, 'hangup'],
] as const)(
  "a signal ends a command with its own code: %s while a read's request is out (the server never answers): exit %i, the --json error's class %s",
  async (signal, code, name) => {
    simulator.sandbox.setFaults({ stall: 'headers', match: { method: 'GET', path: '/positions' } });
    const stalled = () => simulator.requests('GET', '/positions').filter((entry) => entry.status === 'stalled');
    const before = stalled().length;
    try {
      const result = await killWhen(
        simulator,
        ['positions', '--json'],
        () => stalled().length > before,
        'the read to be out',
        { signal },
      );
      exits(result, code);
      expect(lastJson(result.stderr).error).toMatchObject({ code: name, class: name });
      expect(result.stdout).toBe('');
    } finally {
      simulator.sandbox.setFaults({ stall: null, match: null });
    }
  },
);

it("a signal ends a command with its own code: SIGTERM at the open wizard's first question on a terminal: exit 143, nothing sent", async () => {
  const terminal = spawnInTerminal({ configDir: simulator.configDir, env: simulator.env, args: ['open'] });
  try {
    await terminal.waitFor('? What do you have?');
    terminal.signal('SIGTERM');
    expect(await terminal.exitCode).toBe(143);
    expect(terminal.screen()).toContain('nothing was sent');
    expect([simulator.writes(), simulator.hedges().filter((hedge) => hedge.market === MARKET)]).toEqual([[], []]);
  } finally {
    terminal.kill();
  }
});

it('twelve commands at once in one process (an embedding, a test worker): one listener a stop signal while any runs, none of theirs left once all ended (MaxListenersExceededWarning never shows)', async () => {
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  const counts = () => signals.map((signal) => process.listenerCount(signal));
  const before = counts();
  const reads = () => simulator.requests('GET', '/account');
  const already = reads().length;
  // Each read held by the server until released: the twelve commands run at once.
  simulator.sandbox.setFaults({ nextLatency: { count: 12, ms: 600_000 }, match: { method: 'GET', path: '/account' } });
  try {
    const runs = Array.from({ length: 12 }, () => simulator.hedge('account --json'));
    await until(() => reads().length === already + 12, 'the twelve reads to be out');
    expect(counts()).toEqual(before.map((count) => count + 1));
    simulator.sandbox.releaseHeld();
    for (const result of await Promise.all(runs)) expect(result.code).toBe(0);
  } finally {
    simulator.sandbox.setFaults({ nextLatency: null, match: null });
  }
  const [sigint, ...others] = counts();
  // SIGINT keeps the one listener that ends a command's clean-up at once (added once a process).
  expect([sigint - before[0] <= 1, others]).toEqual([true, before.slice(1)]);
});
