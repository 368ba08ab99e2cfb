// A server that never answers, and answers that are not the envelope: each ends in one clear
// error that names the host or the endpoint and the bound that ran out, with the exit code for a
// network or server failure (5) — or, for an answer that came but cannot be read, the unreadable
// class (14) naming what came — and no stack trace; a write whose answer was unreadable says its
// outcome is unknown and how to resume, and resuming leaves exactly one hedge.
import { exits } from '../support/cli-runs.js';
import { DEFAULT_RETRY_POLICY } from '../../src/platform/api/transport.js';
import { lostThenResumed, ResultRecorder } from './recorder.js';
import { STACK_FRAME, errorLine } from '../support/output/text.js';

const results = new ResultRecorder(import.meta.url);

describe('a server that never answers', () => {
  it.concurrent('headers never come on a read: exit 5 within --timeout, naming the host and the timeout', () =>
    results.onSimulator(
      {
        order: 60,
        kind: 'network',
        name: 'Read never answered (headers stall)',
        injected: 'GET /account accepted, no status line ever sent; `hedge account --timeout 2`',
        expected:
          'exit 5 once the 2 s ran out, its one attempt cut short by the deadline (never retried past it); the message names the host and the 2 s; no stack trace',
      },
      async (sim, observation) => {
        sim.sandbox.setFaults({ stall: 'headers', match: { method: 'GET', path: '/account' } });
        const result = await sim.hedge('account --timeout 2');
        const attempts = sim.requests('GET', '/account');
        observation.attempts = attempts.length;
        observation.timings = `process ran ${result.durationMs} ms`;
        observation.observed = `exit ${result.code}: "${errorLine(result.stderr)}"`;
        exits(result, 5, new URL(sim.sandbox.baseUrl).host);
        expect(result.stderr).toMatch(/\b2 s\b|--timeout 2\b/);
        expect(result.stderr).not.toMatch(STACK_FRAME);
        expect(result.stdout).toBe('');
        // The deadline ended the one attempt (no retry after it); how much longer the process took
        // to start and stop is the machine's business, so only the lower bound is asserted.
        expect(attempts).toHaveLength(1);
        expect(result.durationMs).toBeGreaterThanOrEqual(2000);
      },
    ),
  );

  it.concurrent(
    'half a body then silence on a read: each attempt ends at --request-timeout, exit 5 after the retries, naming host and timeout',
    () =>
      results.onSimulator(
        {
          order: 61,
          kind: 'network',
          name: 'Read body never finished (body stall)',
          injected:
            'GET /positions sends status, headers and half the body, then hangs; `hedge positions --request-timeout 0.5`',
          expected: `exit 5 after ${DEFAULT_RETRY_POLICY.maxAttempts} attempts of 0.5 s each (retried: a read is safe); the message names the host, the 0.5 s and the attempts; no stack trace`,
        },
        async (sim, observation) => {
          sim.sandbox.setFaults({ stall: 'body', match: { method: 'GET', path: '/positions' } });
          const result = await sim.hedge('positions --request-timeout 0.5');
          const attempts = sim.requests('GET', '/positions');
          observation.attempts = attempts.length;
          observation.timings = `process ran ${result.durationMs} ms`;
          observation.observed = `exit ${result.code} after ${attempts.length} attempts: "${errorLine(result.stderr)}"`;
          exits(
            result,
            5,
            new URL(sim.sandbox.baseUrl).host,
            '0.5 s',
            `after ${DEFAULT_RETRY_POLICY.maxAttempts} attempts`,
          );
          expect(attempts).toHaveLength(DEFAULT_RETRY_POLICY.maxAttempts);
          expect(attempts.every((entry) => entry.status === 'stalled')).toBe(true);
          expect(result.stderr).not.toMatch(STACK_FRAME);
          // 5 attempts of 0.5 s plus the policy's backoffs, all within its total bound.
          expect(attempts.at(-1)!.realTimeMs - attempts[0].realTimeMs).toBeLessThanOrEqual(
            DEFAULT_RETRY_POLICY.maxTotalMs,
          );
        },
      ),
  );
});

/** Each case: its name, its order in the report, the fault on its GET (kind, count, path), the command, what was done and expected, the exit and the one error line (none for 0) it must end with. */
const MALFORMED = [
  [
    'HTML error page from a proxy, once',
    70,
    'html',
    1,
    '/markets',
    'markets --json',
    'the next GET /markets answered 502 with an HTML page',
    'a 5xx: retried; exit 0 on the next attempt',
    0,
    undefined,
  ],
  [
    'HTML error page, every attempt',
    71,
    'html',
    100,
    '/markets',
    'markets',
    'every GET /markets answered 502 with an HTML page',
    'exit 5 after the retries; the message names GET /markets and says the body is not JSON; no stack trace',
    5,
    /GET \/markets answered HTTP 502 with a body that is not JSON/,
  ],
  [
    'Truncated JSON',
    72,
    'truncated',
    1,
    '/account',
    'account',
    'GET /account answered 200 with the first half of its JSON',
    'exit 14 (unreadable, not a network failure); the message names GET /account; no stack trace',
    14,
    /GET \/account answered HTTP 200 with a body that is not JSON/,
  ],
  [
    'Well-formed JSON, wrong types',
    73,
    'wrong-types',
    1,
    '/markets',
    'markets --json',
    'GET /markets answered 200 with every number a string and every string a number, `meta` an array',
    'exit 14 (unreadable); the message names GET /markets, the field and what came; no stack trace; nothing on stdout',
    14,
    /GET \/markets answered HTTP 200 with data hedge cannot read: data\[0\]\.market is 7 \(a number\), where text is expected/,
  ],
] as const;

describe('answers that are not the envelope', () => {
  it.concurrent.each(MALFORMED)(
    "'%s'",
    async (name, order, kind, count, path, args, injected, expected, exit, mentions) => {
      await results.onSimulator({ order, name, injected, expected }, async (sim, observation) => {
        sim.sandbox.setFaults({ nextMalformed: { count, kind }, match: { method: 'GET', path } });
        const result = await sim.hedge(args);
        const attempts = sim.requests('GET', path);
        observation.attempts = attempts.length;
        observation.observed = `exit ${result.code} after ${attempts.length} attempt${attempts.length === 1 ? '' : 's'}${result.stderr ? `: "${errorLine(result.stderr)}"` : ''}`;
        exits(result, exit);
        expect(result.stderr).not.toMatch(STACK_FRAME);
        if (!mentions) {
          expect(attempts).toHaveLength(2);
          expect(Array.isArray(JSON.parse(result.stdout))).toBe(true);
        } else {
          expect(result.stderr.split('\n')[0]).toMatch(mentions);
          expect(result.stdout).toBe('');
        }
      });
    },
  );

  it.concurrent(
    'a write answered with wrong types: exit 5, outcome unknown with the key; resuming with it leaves one hedge',
    () =>
      results.onSimulator(
        {
          order: 75,
          name: 'Write answered with wrong types, then resumed',
          injected:
            'POST /hedges committed, answered with every type swapped; then the same command with `--idempotency-key`',
          expected:
            'exit 5 naming POST /hedges, "outcome is unknown" with the key, no stack trace; the resumed run exits 0 and the server holds one hedge',
        },
        async (sim, observation) => {
          sim.sandbox.setFaults({
            nextMalformed: { count: 1, kind: 'wrong-types' },
            match: { method: 'POST', path: '/hedges' },
          });
          const args = 'open USDTNGN buy 2500 --tenor 3';
          const first = async () => {
            const answered = await sim.hedge(args);
            expect(answered.stderr).toMatch(/POST \/hedges/);
            return answered;
          };
          const unknown = /outcome (of this request )?is unknown/i;
          const { resumed } = await lostThenResumed(sim, observation, '/hedges', {
            first,
            code: 5,
            unknown,
            resume: `${args} --json`,
          });
          expect(JSON.parse(resumed.stdout)).toMatchObject({ notional_usd: 2500, status: 'filled' });
        },
      ),
  );
});
