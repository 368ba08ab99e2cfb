// The exit code of a command stopped by a signal is the signal's (143 SIGTERM, 129 SIGHUP, 130 Ctrl-C) wherever
// the command was when it came: a wait (exit-codes.test.ts), a request still out, a question on a terminal. A
// supervisor stopping hedge, or a terminal closed under a wizard, is told apart from a Ctrl-C by the code alone.
import { killWhen, lastJson, exits } from '../support/cli-runs.js';
import { spawnInTerminal } from '../support/servers/pseudo-terminal.js';
import { MARKET, startSimulator, type Simulator } from '../support/simulator.js';

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
