// An action's age against its key's lifetime is judged on both clocks, and a server time that looks
// wrong never makes it younger:
// - actionAge (unit): the larger of the server's and this machine's age wins; a send the server's
//   clock now puts in the future, or a server clock told at the send and untold now, is an age that
//   cannot be told;
// - end to end, on a frozen simulator whose `Date` header runs 30 h fast at an add's first send
//   (killed after the server acted on it), then tells the truth: the simulator forgets the key
//   after 24 h, a colleague's add lands, and `resume --yes` exits 12 without sending the key again,
//   whether this machine's clock moved 27 s (a fast server clock) or 33 h.
import { actionAge, createServerClock } from '../../src/core/server-clock.js';
import { exits, journalEntries, killWhen } from '../support/cli-runs.js';
import { FROZEN_CLOCK_PRELOAD } from '../support/hedge-cli.js';
import { activeNotional } from '../support/keeper.js';
import { colleagueAdds, pinnedClockEnv, useSimulators } from '../support/simulator.js';

const HOUR_MS = 3_600_000;
const T = Date.parse('2026-03-02T09:00:00.000Z');

/** The server's time as a clock that learned one Date header `offsetMs` ahead of ours, answered at once, asked at `localMs`. */
function serverAt(offsetMs: number, localMs: number) {
  const clock = createServerClock();
  clock.learnDate(new Date(localMs + offsetMs).toUTCString(), localMs, localMs);
  return clock.at(localMs);
}

describe('actionAge: both clocks, and a reading that contradicts itself', () => {
  // This machine's 33 h against the server's 3 h, and a send in the server's future: the resume table below.
  it('the larger of the two ages wins: the server 30 h against this machine 27 s', () => {
    // A server clock that runs fast: 30 h on it, 27 s here.
    const server = actionAge(
      { serverMs: T, localMs: T },
      { server: serverAt(30 * HOUR_MS - 27_000, T + 27_000), localMs: T + 27_000 },
    );
    expect(server.clock).toBe('server');
    expect(server.ms).toBeGreaterThanOrEqual(30 * HOUR_MS);
    // Within one process the monotonic time counts too: this machine's wall clock went back an hour.
    expect(actionAge({ localMs: T }, { localMs: T - HOUR_MS, elapsedMs: 2 * HOUR_MS })).toEqual({
      ms: 2 * HOUR_MS,
      clock: 'local',
    });
  });

  it('a server clock untold now is an age that cannot be told, never 0; an honest server read at once after the send is age 0 or more', () => {
    const later = T + 27_000;
    expect(actionAge({ serverMs: T, localMs: T }, { localMs: later })).toEqual({ clock: 'server' });
    // No server time at the send: this machine's clock alone, which must not run backwards either.
    expect(actionAge({ localMs: T }, { server: serverAt(0, later), localMs: later })).toEqual({
      ms: 27_000,
      clock: 'local',
    });
    expect(actionAge({ localMs: T }, { localMs: T - 1 })).toEqual({ clock: 'local' });
    // An honest server read at once after the send is never in its future: age from 0.
    const at = serverAt(0, T);
    const age = actionAge({ serverMs: at.earliestMs, localMs: T }, { server: at, localMs: T });
    expect(age.ms).toBeGreaterThanOrEqual(0);
  });
});

const start = useSimulators();

describe('resume on a server whose Date header was 30 h fast at the first send', () => {
  it.each([
    [
      "27 s later here, 27 h on the server (a fast clock): the send is in the server's future, the age cannot be told: exit 12, the key not sent again",
      27 * HOUR_MS,
      27_000,
      [
        "its age cannot be told: the server's clock now puts its first send in the future",
        'may be past the key lifetime of 12 h',
      ],
    ],
    [
      "33 h later on both clocks: 3 h by the misread server clock, 33 h by this machine's: the larger wins, exit 12, the key not sent again",
      33 * HOUR_MS,
      33 * HOUR_MS,
      ['33 h ago by the local clock', 'is past the key lifetime of 12 h'],
    ],
  ])('%s', async (_name, serverMs, localMs, said) => {
    // A frozen simulator with a buy side of 10,000; `add USDTNGN buy 1000` sent while its Date header runs 30 h fast
    // and killed once the server acted on it; then the header tells the truth, the server's clock moves `serverMs`
    // (past the 24 h it keeps a key), a colleague adds 500, and `resume --yes` runs with this machine's clock
    // `localMs` after the first run's.
    const t = await start({ preset: 'frozen' });
    t.seedOpen('buy', 10_000);
    const sentAt = t.sandbox.clock.now();
    const first = pinnedClockEnv(t);
    t.sandbox.setFaults({ dateSkewMs: 30 * HOUR_MS, stall: 'body', match: { method: 'POST', path: '/hedges/add' } });
    await killWhen(
      { hedge: (args, options = {}) => t.hedge(args, { ...options, env: first }) },
      'add USDTNGN buy 1000'.split(' '),
      () => t.requests('POST', '/hedges/add').some((entry) => entry.status === 'stalled'),
      'the add held at its body',
    );
    t.sandbox.setFaults({ dateSkewMs: 0, stall: null, match: null });
    const [row] = await journalEntries(t, '--pending');
    // The lie is in the row: the server's time at its send, 30 h ahead of the server's own.
    expect(row.context.server_time_ms).toBeGreaterThan(sentAt + 30 * HOUR_MS - 2000);

    t.advance(serverMs);
    expect(activeNotional(t, 'buy')).toBe(11_000);
    expect(Object.keys(t.sandbox.engine.state.idempotency).some((scope) => scope.endsWith(row.idempotency_key))).toBe(
      false,
    );
    await colleagueAdds(t, 'buy', 500);
    expect(activeNotional(t, 'buy')).toBe(11_500);

    // --no-wait: a resend on this frozen clock would otherwise wait for a landing until the test's bound.
    exits(
      await t.hedge('resume --yes --no-wait', {
        env: { NODE_OPTIONS: `--import=${FROZEN_CLOCK_PRELOAD}`, READ_E2E_NOW_MS: String(sentAt + localMs) },
      }),
      12,
      ...said,
      'Nothing was sent',
    );
    const sent = t.requests('POST', '/hedges/add').filter((entry) => entry.idempotencyKey === row.idempotency_key);
    expect([activeNotional(t, 'buy'), sent.length]).toEqual([11_500, 1]);
  });
});
