// Every exit code of `hedge help exit-codes` (EXIT_CODES in src/platform/terminal/exit-codes.ts) and every row of the
// spec's error table, driven through the real binary against the simulator, faults from its own
// fault injection. Each case asserts the exit code, the JSON error code on stderr (--json), its
// class, and what the server itself saw. The table below is keyed by exit code: a code added to
// EXIT_CODES without a scenario here fails the first test, so the one who adds it adds one.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT_CODES } from '../../src/platform/terminal/exit-codes.js';
import type { HedgeArgs, RunResult } from '../support/hedge-cli.js';
import { until } from '../support/polling.js';
import { KEYS, spawnInTerminal } from '../support/servers/pseudo-terminal.js';
import {
  MARKET,
  apiData,
  gaps,
  closedAfter,
  pinnedClockEnv,
  startSimulator,
  type Simulator,
  type SimulatorOptions,
} from '../support/simulator.js';
import { killWhen, lastJson, ok } from '../support/cli-runs.js';
import { startKeeper, writeTarget } from '../support/keeper.js';

/** A real-time source that never moves (nothing fills or lands unless a test steps the clock): a scenario that waits. */
const STOPPED = { options: { realNow: () => Date.parse('2026-03-02T09:00:00.000Z'), skipping: true, untimed: true } };

/** What a scenario ran, for the table's checks: the exit code, and the error object `--json` wrote on stderr, when the command failed. */
type Outcome = { code: number | null; error?: any };

/**
 * One case on a fresh simulator (started with `options`): `run` gives the run the table reads (its
 * stderr's last line under --json is the error object), once it has checked what the server saw.
 * A case whose time is hedge waiting (out its retries, its --timeout, for a fill) is started `skipping`: run side by side
 * with the others that wait, on a skipping clock.
 */
interface Scenario {
  name: string;
  /** The JSON error code expected on stderr; absent for a code that is not an error (0, 9, 10, 15). */
  errorCode?: string;
  options?: SimulatorOptions;
  run(simulator: Simulator): Promise<RunResult | Outcome>;
}

function outcomeOf(result: RunResult | Outcome) {
  if (!('stderr' in result)) return result;
  try {
    return { code: result.code, error: lastJson(result.stderr).error };
  } catch {
    return { code: result.code };
  }
}

/** A scenario of one command (`before` sets the simulator up), once `check` has looked at what the server saw. */
function oneRun(
  name: string,
  errorCode: string | undefined,
  args: HedgeArgs,
  check: (simulator: Simulator, result: RunResult) => void,
  options?: SimulatorOptions,
  before?: (simulator: Simulator) => unknown,
): Scenario {
  return {
    name,
    errorCode,
    options,
    run: async (simulator) => {
      await before?.(simulator);
      const result = await simulator.hedge(args);
      check(simulator, result);
      return result;
    },
  };
}

/** What the server answered to each request (of that method and path), as [status, error code]. */
const answers = (simulator: Simulator, ...which: Parameters<Simulator['requests']>) =>
  simulator.requests(...which).map((entry) => [entry.status, entry.errorCode]);

const nothingSent = (simulator: Simulator) => expect(simulator.requests()).toEqual([]);

/** The request was sent more than once, and every answer was that error. */
const retriedAll = (simulator: Simulator, status: number, code: string) => {
  expect(simulator.requests().length).toBeGreaterThan(1);
  expect(simulator.requests().every((entry) => entry.status === status && entry.errorCode === code)).toBe(true);
};

/** A write that waits for a fill that never comes (a stopped clock), stopped by a signal once it waits. */
const stoppedBy = (signal: NodeJS.Signals, name: string, errorCode: string): Scenario => ({
  name: `${signal}${name} while a write waits for its fill (the order stands)`,
  errorCode,
  ...STOPPED,
  run: async (simulator) => {
    const result = await killWhen(
      simulator,
      `open ${MARKET} buy 5000 --tenor 1 --json`.split(' '),
      () => simulator.requests('GET').some((entry) => entry.path.startsWith('/hedges/hdg_')),
      'the server to see the open waiting',
      { signal },
    );
    // The order stands: the signal stopped the wait, not the action.
    expect(simulator.hedges().map((hedge) => hedge.status)).toEqual(['submitted']);
    return result;
  },
});

/** A target file of one buy row of `notional` in the simulator's config folder. */
const targetFile = (simulator: Simulator, notional: number) =>
  writeTarget(simulator, [`${MARKET},buy,${notional},3,,`]);

// ---- The spec's error table (section 7), row by row: its status, its code and (in the comment) its condition, then the
// exit code and the scenario that drive it ------------------------------------------------------------------------------

const REUSED_KEY = 'a2f1c7d0-5b8e-4e51-9c3a-000000000001';

const SPEC_ERROR_TABLE: Array<[number, string, number, Scenario]> = [
  [
    400,
    'exposure_exceeded', // an open (or add) would exceed the aggregate exposure cap
    3,
    oneRun(
      'an open over the exposure cap (checks skipped: the server refuses it)',
      'exposure_exceeded',
      `open ${MARKET} buy 60000 --tenor 1 --skip-checks --json`,
      (simulator) => {
        expect([answers(simulator, 'POST', '/hedges'), simulator.hedges()]).toEqual([[[400, 'exposure_exceeded']], []]);
      },
      { exposureCapUsd: 50_000 },
    ),
  ],
  [
    404,
    'no_open_hedge', // add (or reduce) on a market and side with no open hedge
    3,
    oneRun(
      'an add to a side with no open hedge',
      'no_open_hedge',
      `add ${MARKET} sell 100 --skip-checks --json`,
      (simulator) => expect(answers(simulator, 'POST', '/hedges/add')).toEqual([[404, 'no_open_hedge']]),
    ),
  ],
  [
    404,
    'hedge_not_found', // hedge id is not one of the caller's
    3,
    oneRun('a hedge id that is not one of ours', 'hedge_not_found', 'hedges hdg_doesnotexist --json', (simulator) =>
      expect(answers(simulator, 'GET', '/hedges/hdg_doesnotexist')).toEqual([[404, 'hedge_not_found']]),
    ),
  ],
  [
    409,
    'idempotency_key_reuse', // an Idempotency-Key reused with a different body
    3,
    oneRun(
      'a key another request already used (from another machine: not in this journal)',
      'idempotency_key_reuse',
      `open ${MARKET} buy 2000 --tenor 1 --idempotency-key ${REUSED_KEY} --yes --json`,
      (simulator) => {
        expect(simulator.requests('POST', '/hedges').map((entry) => [entry.idempotencyKey, entry.errorCode])).toEqual([
          [REUSED_KEY, null],
          [REUSED_KEY, 'idempotency_key_reuse'],
        ]);
        expect(simulator.hedges()).toHaveLength(1);
      },
      undefined,
      (simulator) =>
        simulator.api('POST', '/hedges', {
          body: { market: MARKET, side: 'sell', notional_usd: 1_000, tenor_days: 1 },
          idempotencyKey: REUSED_KEY,
        }),
    ),
  ],
  [
    409,
    'idempotency_in_flight', // a request with the same key is still in progress
    5,
    {
      // A write whose key is still in flight when the retries run out may yet act: the CLI says
      // "outcome unknown" (exit 5) with the key, never "refused".
      name: 'the same key still in progress on the server, past --timeout (outcome unknown, key printed)',
      errorCode: 'outcome_unknown',
      options: { skipping: true, untimed: true },
      run: async (simulator) => {
        simulator.seedOpen('buy', 5_000);
        const key = 'a2f1c7d0-5b8e-4e51-9c3a-000000000002';
        // Another process's close with that key is held by the server (10 min; released when the
        // simulator closes): this run's close with the same key meets it in flight until --timeout.
        simulator.sandbox.setFaults({ nextLatency: { count: 1, ms: 600_000 } });
        void simulator
          .api('POST', '/hedges/close', { body: { market: MARKET, side: 'buy' }, idempotencyKey: key })
          .catch(() => undefined);
        await until(
          () => simulator.requests('POST', '/hedges/close').some((entry) => entry.status === 'pending'),
          'the held close',
        );
        // --timeout is the retry budget being tested; it counts from the start of the command, on a clock
        // the run's pauses alone move (untimed): the start-up and the reads before the send take none of it.
        const outcome = outcomeOf(
          await simulator.hedge(`close ${MARKET} buy --idempotency-key ${key} --yes --timeout 8 --json`),
        );
        const answered = simulator.requests('POST', '/hedges/close').filter((entry) => entry.status !== 'pending');
        expect(answered.length).toBeGreaterThan(0);
        expect(answered.every((entry) => entry.errorCode === 'idempotency_in_flight')).toBe(true);
        expect(outcome.error).toMatchObject({ idempotency_key: key });
        return outcome;
      },
    },
  ],
  [
    429,
    'rate_limited', // per-key rate limit exceeded
    5,
    oneRun(
      'a 429 that never clears',
      'rate_limited',
      'markets --json',
      // Retried (with Retry-After), and every answer was the 429.
      (simulator) => retriedAll(simulator, 429, 'rate_limited'),
      { fault429: 1, skipping: true },
    ),
  ],
];

// ---- Every exit code: add a scenario here when you add a code to EXIT_CODES ------------------

const EXIT_CODE_SCENARIOS: Record<number, Scenario[] | { file: string; test: string }> = {
  0: [
    oneRun('a read that works', undefined, ['markets', '--json'], (_simulator, result) =>
      expect(JSON.parse(result.stdout).map((market: { market: string }) => market.market)).toContain(MARKET),
    ),
  ],
  1: [
    oneRun('a config store that is not JSON', 'config', 'profile list --json', nothingSent, undefined, (simulator) =>
      writeFileSync(join(simulator.configDir, 'config.json'), '{"profiles": ', { mode: 0o600 }),
    ),
  ],
  2: [
    oneRun(
      'a side that is neither buy nor sell: one JSON line naming it, stdout empty, nothing sent',
      'usage',
      `quote ${MARKET} hold 100 --tenor 3 --json`,
      (simulator, result) => {
        nothingSent(simulator);
        expect([result.stdout, result.stderr.trimEnd().split('\n'), result.stderr]).toEqual([
          '',
          [expect.any(String)],
          expect.stringContaining('side: \\"hold\\"'),
        ]);
      },
    ),
  ],
  // The server's refusals (exit 3 and 5 too) are each driven by the spec rows below; these are the others.
  3: [
    oneRun(
      "a pre-trade check: an open over the account's exposure headroom (nothing sent)",
      'exposure_exceeded',
      `open ${MARKET} buy 60000 --tenor 1 --json`,
      (simulator) => expect(simulator.requests('POST', '/hedges')).toEqual([]),
      { exposureCapUsd: 50_000 },
    ),
  ],
  4: [
    {
      name: '401: a key the server does not know',
      errorCode: 'unauthorized',
      run: async (simulator) => {
        const outcome = await simulator.hedge('account --json', {
          env: { HEDGE_API_KEY: 'hpk_test_NotAKeyThisServerKnows000001' },
        });
        expect(answers(simulator)).toEqual([[401, 'unauthorized']]);
        return outcome;
      },
    },
    oneRun(
      '403: a key the server refuses for this (injected: the simulator has no permissions)',
      'forbidden',
      'account --json',
      // Refused, not retried.
      (simulator) => expect(answers(simulator)).toEqual([[403, 'forbidden']]),
      undefined,
      (simulator) =>
        simulator.sandbox.setFaults({
          nextError: { count: 1, status: 403, code: 'forbidden', message: 'this key may not read the account' },
        }),
    ),
  ],
  5: [
    oneRun(
      'a 502 that never clears',
      'bad_gateway',
      'markets --json',
      // Retried with backoff; every answer was the 502.
      (simulator) => retriedAll(simulator, 502, 'bad_gateway'),
      { skipping: true },
      (simulator) => simulator.sandbox.setFaults({ nextError: { count: 1_000, status: 502, code: 'bad_gateway' } }),
    ),
  ],
  6: [
    oneRun(
      'an open that fails on-chain',
      'order_failed',
      `open ${MARKET} buy 5000 --tenor 1 --json`,
      (simulator) => expect(simulator.hedges().map((hedge) => hedge.status)).toEqual(['failed']),
      { failRate: 1, stepped: true },
    ),
  ],
  7: [
    {
      name: 'a hedge still submitted when --timeout runs out (the clock stopped: it never fills)',
      errorCode: 'still_pending',
      ...STOPPED,
      run: async (simulator) => {
        const hedge = await apiData(simulator, 'POST', '/hedges', {
          market: MARKET,
          side: 'buy',
          notional_usd: 5_000,
          tenor_days: 1,
        });
        // The bound is what is tested (the hedge never fills), on a clock the run's pauses alone move
        // (untimed): the start-up and the first read take none of it, so the run always reaches the wait.
        const outcome = await simulator.hedge(`hedges ${hedge.id} --wait --timeout 5 --json`);
        expect(simulator.requests('GET', `/hedges/${hedge.id}`).length).toBeGreaterThan(0);
        return outcome;
      },
    },
  ],
  8: [
    {
      // The wizard confirms on a terminal (a person is there): the refusal is a sentence on the
      // screen, checked here, and no JSON.
      name: "No at the open wizard's confirmation on a terminal (nothing sent)",
      run: async (simulator) => {
        const terminal = spawnInTerminal({
          configDir: simulator.configDir,
          env: simulator.env,
          args: `open ${MARKET} buy 5000 --ref DECLINED-1`.split(' '),
        });
        try {
          await terminal.waitFor('? Tenor');
          terminal.write(KEYS.ENTER);
          await terminal.waitFor('(y/N)');
          terminal.write(KEYS.ENTER);
          const code = await terminal.exitCode;
          expect(terminal.screen()).toContain('Not confirmed; nothing was sent.');
          expect([simulator.writes().map((entry) => entry.path), simulator.hedges()]).toEqual([['/quotes'], []]);
          return { code };
        } finally {
          terminal.kill();
        }
      },
    },
  ],
  9: [
    {
      name: 'plan: the book is not at the target',
      run: async (simulator) => {
        const result = await simulator.hedge(['plan', targetFile(simulator, 5000), '--json']);
        expect(JSON.parse(result.stdout)).toMatchObject({
          at_target: false,
          steps: [{ action: 'open', side: 'buy', target_usd: 5000 }],
        });
        expect(simulator.writes().filter((entry) => entry.path !== '/quotes')).toEqual([]);
        return result;
      },
    },
  ],
  10: [
    {
      name: '--watch --exit-on-alert: a hedge matures within --alert-maturity',
      run: async (simulator) => {
        simulator.seedOpen('buy', 10_000);
        const result = await simulator.hedge('positions --watch 1 --alert-maturity 8d --exit-on-alert --json');
        expect(
          result.stdout
            .trim()
            .split('\n')
            .map((line) => Object.keys(JSON.parse(line)).sort().join(',')),
        ).toEqual(['data,time', 'alert,time']);
        return result;
      },
    },
  ],
  11: [
    {
      name: 'a second keeper while another holds the account (the holder named, nothing done)',
      errorCode: 'held',
      run: async (simulator) => {
        const file = targetFile(simulator, 1000);
        const first = startKeeper(simulator, file);
        // Its open landed (a cycle may report before a slow step ends: rows do not wait for each other).
        await until(() => first.events.some((event) => event.event === 'reopen'), "the first keeper's open");
        const writes = simulator.writes().length;
        const second = await simulator.hedge(`keep ${file} --once --json`);
        expect(second.stderr).toContain(`pid ${first.child().pid}`);
        expect(simulator.writes()).toHaveLength(writes);
        first.child().kill('SIGTERM');
        ok(await first.done);
        return second;
      },
    },
  ],
  12: [
    {
      name: 'an open killed with its answer lost, run again past the key lifetime: the book cannot tell, nothing resent',
      errorCode: 'unresolved',
      options: { preset: 'frozen' },
      run: async (simulator) => {
        simulator.sandbox.setFaults({ stall: 'body', match: { method: 'POST', path: '/hedges' } });
        const args = `open ${MARKET} buy 2000 --tenor 1`.split(' ');
        await killWhen(
          simulator,
          args,
          () => simulator.writes().some((entry) => entry.path === '/hedges' && entry.status === 'stalled'),
          'the open committed and held',
          { env: pinnedClockEnv(simulator) },
        );
        simulator.sandbox.setFaults({ stall: null, match: null });
        simulator.advance(30 * 3_600_000);
        const opens = simulator.requests('POST', '/hedges').length;
        const outcome = await simulator.hedge([...args, '--json'], { env: pinnedClockEnv(simulator) });
        expect(simulator.requests('POST', '/hedges')).toHaveLength(opens);
        return outcome;
      },
    },
  ],
  // Shown once, with its --json code and class and nothing sent, where the journal's state is tested.
  13: { file: 'test/journal/journal-state.test.ts', test: 'a journal.jsonl that is a symbolic link is refused' },
  14: [
    oneRun(
      'an account answer cut off half-way (HTTP 200, half the JSON): an answer came, but not one hedge can read',
      'unreadable',
      'account --json',
      () => undefined,
      undefined,
      (simulator) =>
        simulator.sandbox.setFaults({
          nextMalformed: { count: 1, kind: 'truncated' },
          match: { method: 'GET', path: '/account' },
        }),
    ),
  ],
  15: [
    oneRun(
      '`hedge keep status` once the keeper stopped (a --once run): no keeper runs for the account',
      undefined,
      'keep status --json',
      (_simulator, result) =>
        expect(JSON.parse(result.stdout)).toMatchObject({ state: 'stopped', heartbeat: { cycles: 1 } }),
      { stepped: true },
      async (simulator) => ok(await simulator.hedge(`keep ${targetFile(simulator, 1000)} --once`)),
    ),
  ],
  16: [
    oneRun(
      'the same add run again at once: the side still shows what the first left (nothing sent)',
      'repeated_action',
      `add ${MARKET} buy 100 --json`,
      (simulator) => expect(simulator.sends('/hedges/add')).toHaveLength(1),
      { stepped: true },
      async (simulator) => {
        simulator.seedOpen('buy', 1_000);
        ok(await simulator.hedge(`add ${MARKET} buy 100`));
      },
    ),
  ],
  17: {
    file: 'test/scripting/scripting-until-fields.test.ts',
    test: '--until on a hedge that can no longer change: closed and the condition false, it stops after one read with exit 17',
  },
  124: [
    oneRun(
      '--until over positions that never holds within --timeout: the last data on stdout, reads a second apart',
      'until_not_met',
      ['positions', '--json', '--until', 'length(@) > `0`', '--timeout', '10'],
      (simulator, result) => {
        expect(JSON.parse(result.stdout)).toEqual([]);
        expect(JSON.parse(result.stderr).error.details).toMatchObject({ until: 'length(@) > `0`' });
        for (const gap of gaps(simulator.requests('GET', '/positions'))) expect(gap).toBeGreaterThanOrEqual(1000);
      },
      // The bound on the run's pauses alone (each read still has it in real time): a loaded machine's reads take none.
      { skipping: true, untimed: true },
    ),
  ],
  129: [stoppedBy('SIGHUP', '', 'hangup')],
  130: [stoppedBy('SIGINT', ' (Ctrl-C)', 'interrupted')],
  143: [stoppedBy('SIGTERM', '', 'terminated')],
};

it('the exit-code table is covered: every code of EXIT_CODES (hedge help exit-codes) has a scenario here, and no scenario names a code it lacks', () => {
  // An object's integer keys come in ascending order.
  expect(Object.keys(EXIT_CODE_SCENARIOS).map(Number)).toEqual(
    EXIT_CODES.map((entry) => entry.code).sort((a, b) => a - b),
  );
  for (const scenarios of Object.values(EXIT_CODE_SCENARIOS)) {
    if (Array.isArray(scenarios)) expect(scenarios.length).toBeGreaterThan(0);
    // A code shown by another file: that file holds the test named.
    else expect(readFileSync(new URL(`../../${scenarios.file}`, import.meta.url), 'utf8')).toContain(scenarios.test);
  }
});

const nameOf = (code: number) => EXIT_CODES.find((entry) => entry.code === code)!.name;

const CASES = [
  ...Object.entries(EXIT_CODE_SCENARIOS).flatMap(([code, scenarios]) =>
    (Array.isArray(scenarios) ? scenarios : []).map((scenario) => ({
      group: `exit ${code}`,
      name: nameOf(Number(code)),
      code: Number(code),
      scenario,
      said: {},
    })),
  ),
  // Where the JSON code is the server's, so is the status; a refusal (exit 3) carries its details and request id too.
  ...SPEC_ERROR_TABLE.map(([status, code, exit, scenario]) => {
    const refused = exit === 3 ? { details: expect.any(Object), request_id: expect.stringMatching(/^req_/) } : {};
    const said = scenario.errorCode === code ? { status, ...refused } : {};
    return { group: `spec error ${status} ${code}`, name: `exit ${exit}`, code: exit, scenario, said };
  }),
];

// Each case on a fresh simulator: the exit code, and the --json error's code and class (the server's
// code, except where the CLI knows more: an in-flight write is outcome unknown). The cases that
// wait out a bound run side by side, their in-process runs on a skipping clock the server's log shares
// (a stopped server clock stays stopped), the others one at a time.
for (const waits of [true, false])
  (waits ? describe.concurrent : describe).each(CASES.filter(({ scenario }) => !!scenario.options?.skipping === waits))(
    '$group',
    ({ name, code, scenario, said }) => {
      it(`${name}: ${scenario.name}`, async () => {
        const outcome = outcomeOf(await closedAfter(startSimulator(scenario.options), scenario.run));
        expect(outcome.code, JSON.stringify(outcome)).toBe(code);
        if (scenario.errorCode === undefined) {
          expect(outcome.error).toBeUndefined();
        } else {
          expect(outcome.error).toMatchObject({ code: scenario.errorCode, class: nameOf(code), ...said });
          expect(outcome.error!.message).not.toBe('');
        }
      });
    },
  );
