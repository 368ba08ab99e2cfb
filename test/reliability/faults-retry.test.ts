// Transient failures are retried within the configured bounds (src/platform/api/transport.ts): bursts of
// 5xx on reads and writes, 429 with Retry-After, and a script of 50 back-to-back reads under a
// tight per-key rate limit. Attempts are counted and delays measured on the server's request log, whose
// time is hedge's: this machine's plus every pause hedge took, each ended at once (skippingClock).
import { exits, ok } from '../support/cli-runs.js';
import { DEFAULT_RETRY_POLICY, backoffDelayMs } from '../../src/platform/api/transport.js';
import { ResultRecorder } from './recorder.js';
import { gaps, skippingClock } from '../support/simulator.js';
import { STACK_FRAME, errorLine, resumeKeyFrom } from '../support/output/text.js';

const results = new ResultRecorder(import.meta.url);

const POLICY = DEFAULT_RETRY_POLICY;

function describeGaps(values: number[]) {
  return values.length === 0
    ? 'no retries'
    : `gaps ${values.join(', ')} ms (total ${values.reduce((a, b) => a + b, 0)} ms)`;
}

/** Each gap is at least the policy's shortest backoff for that attempt (jitter at 0); the whole stays within maxTotalMs. */
function expectWithinPolicy(values: number[]) {
  values.forEach((gap, index) =>
    expect(gap, `gap before attempt ${index + 2}`).toBeGreaterThanOrEqual(backoffDelayMs(POLICY, index + 1, () => 0)),
  );
  expect(values.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(POLICY.maxTotalMs);
}

describe('5xx bursts', () => {
  // Each: what, its label, its method and path, the command.
  it.concurrent.each([
    ['read', '`hedge account`', 'GET', '/account', 'account --json'],
    ['write', '`hedge open`', 'POST', '/hedges', 'open USDTNGN buy 3000 --tenor 3 --json'],
  ])(
    "3 in a row on a '%s': retried with backoff, succeeds, attempts and delay within the policy",
    async (what, label, method, path, args) => {
      const clock = skippingClock();
      await results.onSimulator(
        {
          order: what === 'read' ? 40 : 41,
          name: `5xx burst on a ${what} (${label})`,
          injected: `the next 3 ${method} ${path} answered 500/503`,
          expected: `exit 0 after 4 attempts (at most ${POLICY.maxAttempts}); each wait at least the policy's backoff, all within ${POLICY.maxTotalMs / 1000} s; one hedge for the write`,
        },
        async (sim, observation) => {
          sim.sandbox.setFaults({ next5xx: 3, match: { method, path } });
          const result = await sim.hedge(args, { clock });
          const attempts = sim.requests(method, path);
          const between = gaps(attempts);
          const keys = new Set(attempts.map((entry) => entry.idempotencyKey)).size;
          observation.attempts = attempts.length;
          observation.timings = describeGaps(between);
          observation.observed = `exit ${result.code}; ${attempts.length} attempts (${attempts.map((entry) => entry.status).join(' → ')})`;
          if (what === 'write') observation.observed += `; server: ${sim.hedges().length} hedge, ${keys} key`;
          ok(result);
          expect(attempts).toHaveLength(4);
          expect([
            attempts.slice(0, 3).every((entry) => entry.status === 500 || entry.status === 503),
            attempts[3].status,
          ]).toEqual([true, 200]);
          expectWithinPolicy(between);
          if (what === 'write') expect([keys, sim.hedges().length]).toEqual([1, 1]);
        },
        { realNow: clock.now },
      );
    },
  );

  it.concurrent(
    '5xx that never ends on a write: gives up after the policy maximum, exit 5, outcome unknown with the key, nothing opened',
    async () => {
      const clock = skippingClock();
      await results.onSimulator(
        {
          order: 42,
          name: 'Endless 5xx on a write (`hedge open --skip-checks`)',
          injected: 'every POST /hedges answered 500/503',
          expected: `exit 5 after exactly ${POLICY.maxAttempts} attempts, within ${POLICY.maxTotalMs / 1000} s; the message gives the idempotency key; no hedge`,
        },
        async (sim, observation) => {
          sim.sandbox.setFaults({ next5xx: 100, match: { method: 'POST', path: '/hedges' } });
          const result = await sim.hedge('open USDTNGN buy 3000 --tenor 3 --skip-checks', { clock });
          const attempts = sim.requests('POST', '/hedges');
          const between = gaps(attempts);
          observation.attempts = attempts.length;
          observation.timings = describeGaps(between);
          observation.observed = `exit ${result.code}; ${attempts.length} attempts; "${errorLine(result.stderr)}"; server: ${sim.hedges().length} hedges`;
          exits(result, 5, `after ${POLICY.maxAttempts} attempts`);
          expect(attempts).toHaveLength(POLICY.maxAttempts);
          expectWithinPolicy(between);
          expect(resumeKeyFrom(result.stderr)).toBe(attempts[0].idempotencyKey);
          expect(result.stderr).not.toMatch(STACK_FRAME);
          expect(sim.hedges()).toEqual([]);
        },
        { realNow: clock.now },
      );
    },
  );
});

describe('429 with Retry-After', () => {
  // Each: what, its label, its method and path, the command.
  it.concurrent.each([
    ['read', '`hedge positions`', 'GET', '/positions', 'positions --json'],
    ['write', '`hedge open`', 'POST', '/hedges', 'open USDTNGN sell 1500 --tenor 1 --json'],
  ])("on a '%s': the retry comes no sooner than Retry-After", async (what, label, method, path, args) => {
    const clock = skippingClock();
    await results.onSimulator(
      {
        order: what === 'read' ? 50 : 51,
        name: `429 with Retry-After on a ${what} (${label})`,
        injected: `the next ${method} ${path} answered 429 \`rate_limited\`, Retry-After: 1`,
        expected: 'exit 0; the retry at least 1 000 ms after the 429',
      },
      async (sim, observation) => {
        sim.sandbox.setFaults({ next429: 1, match: { method, path } });
        const result = await sim.hedge(args, { clock });
        const attempts = sim.requests(method, path);
        const between = gaps(attempts);
        observation.attempts = attempts.length;
        observation.timings = `retry ${between[0]} ms after the 429`;
        observation.observed = `exit ${result.code}; ${attempts.map((entry) => entry.status).join(' → ')}`;
        ok(result);
        expect(attempts.map((entry) => entry.status)).toEqual([429, 200]);
        expect(between[0]).toBeGreaterThanOrEqual(1000);
        if (what === 'write') expect(sim.hedges()).toHaveLength(1);
      },
      { realNow: clock.now },
    );
  });

  it('a script of 50 back-to-back `hedge account --json` under a 5 requests/s limit: no failure, every 429 waited out', async () => {
    // The server's time (its rate limit's refill) moves by the runs' pauses alone: an emptied budget stays empty until
    // a run waits out its Retry-After, whatever the real time between two requests on a loaded machine.
    const clock = skippingClock(true);
    await results.onSimulator(
      {
        order: 52,
        name: '50 back-to-back reads under a tight rate limit',
        injected:
          'sandbox rate limit of 5 requests/s per key (429 + Retry-After beyond it); `hedge account --json` run 50 times in a row; another client of the same key empties its budget while the first 3 start',
        expected:
          '50 × exit 0 with the account on stdout; every 429 followed by a retry at least Retry-After (1 s) later',
      },
      async (sim, observation) => {
        // Another user of the same key empties its budget (GET /markets, told apart in the log); no time passes
        // before this run's own GET /account arrives, so that run meets a 429 for sure.
        const markets = async () => (await sim.api('GET', '/markets')).status;
        const failures = [];
        for (let run = 1; run <= 50; run++) {
          if (run <= 3) while ((await markets()) !== 429);
          const result = await sim.hedge('account --json', { clock });
          if (result.code !== 0 || typeof JSON.parse(result.stdout || 'null')?.balance_usdc !== 'number') {
            failures.push(`run ${run}: exit ${result.code} ${errorLine(result.stderr)}`);
          }
        }
        const reads = sim.requests('GET', '/account');
        const limited = reads.filter((entry) => entry.status === 429);
        const waits = reads.flatMap((entry, index) =>
          entry.status === 429 && reads[index + 1] ? [reads[index + 1].realTimeMs - entry.realTimeMs] : [],
        );
        observation.attempts = reads.length;
        observation.timings = waits.length
          ? `retries ${Math.min(...waits)}–${Math.max(...waits)} ms after a 429`
          : 'no 429 met';
        observation.observed = `${50 - failures.length}/50 exit 0; ${reads.length} GET /account: ${reads.length - limited.length} × 200, ${limited.length} × 429`;
        expect(failures).toEqual([]);
        expect(reads.filter((entry) => entry.status === 200)).toHaveLength(50);
        expect(limited.length).toBeGreaterThanOrEqual(1);
        for (const wait of waits) expect(wait).toBeGreaterThanOrEqual(1000);
      },
      { rateLimit: 5, realNow: clock.now },
    );
  });
});
