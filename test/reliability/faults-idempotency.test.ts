// Nothing is done twice: a request the server is still working on (idempotency_in_flight), and a
// write whose answer never comes (then resumed by hand with the key the CLI printed) each leave
// exactly one effect on the server. (A connection dropped after the server committed, for every
// entry point that writes: test/write/conformance-matrix.test.ts, "one key on every retry".)
// Every count below is the server's own (engine state and request log), not the CLI's output.
// Each case has its own simulator: they run side by side, their real-time holds and timeouts overlapping.
import { ok } from '../support/cli-runs.js';
import { DEFAULT_RETRY_POLICY } from '../../src/platform/api/transport.js';
import { lostThenResumed, ResultRecorder } from './recorder.js';
import { FILL_DELAY_MS } from '../support/simulator.js';

const results = new ResultRecorder(import.meta.url);

function sameKey(entries: { idempotencyKey: string | null }[]) {
  return (
    entries.length > 0 &&
    entries[0].idempotencyKey !== null &&
    entries.every((entry) => entry.idempotencyKey === entries[0].idempotencyKey)
  );
}

it.concurrent(
  'idempotency_in_flight: the first attempt is held past --request-timeout: the retries meet 409 in flight, wait it out, one hedge',
  () =>
    results.onSimulator(
      {
        order: 20,
        name: '`idempotency_in_flight`, then success',
        injected: 'the first POST /hedges held 4 s by the server (key in flight); `--request-timeout 1`',
        expected:
          'the CLI times out the attempt, retries with the same key, waits out 409 `idempotency_in_flight`, exit 0, one hedge',
      },
      async (sim, observation) => {
        // Held well past the 1 s attempt timeout (the first retry comes about 1.2 s in), so the
        // retries meet the key in flight however slow the machine is to send them.
        sim.sandbox.setFaults({ nextLatency: { count: 1, ms: 4000 }, match: { method: 'POST', path: '/hedges' } });
        const result = await sim.hedge('open USDTNGN sell 2000 --tenor 1 --request-timeout 1 --json');
        const posts = sim.requests('POST', '/hedges');
        const inFlight = posts.filter((entry) => entry.errorCode === 'idempotency_in_flight');
        observation.attempts = posts.length;
        observation.timings = `last attempt ${posts.at(-1)!.realTimeMs - posts[0].realTimeMs} ms after the first`;
        observation.observed =
          `exit ${result.code}; ${posts.length} × POST /hedges (${posts.map((entry) => entry.errorCode ?? entry.status).join(' → ')}), ` +
          `${sameKey(posts) ? 'one key' : 'DIFFERENT keys'}; server: ${sim.hedges().length} hedge`;
        ok(result);
        expect(inFlight.length).toBeGreaterThanOrEqual(1);
        expect([sameKey(posts), posts.at(-1)!.status]).toEqual([true, 200]);
        expect(sim.hedges()).toHaveLength(1);
        expect(sim.hedges()[0]).toMatchObject({ side: 'sell', notionalUsd: 2000, status: 'filled' });
        expect(JSON.parse(result.stdout)).toMatchObject({ status: 'filled', notional_usd: 2000 });
      },
    ),
);

describe.concurrent('a write whose answer never comes, then resumed with --idempotency-key', () => {
  it('open --skip-checks, server never sends headers: exit 5 within --timeout, outcome unknown, the key; resuming opens exactly one', () =>
    results.onSimulator(
      {
        order: 30,
        name: 'Write never answered (headers stall), then resumed',
        injected:
          'POST /hedges never answered; `hedge open … --skip-checks --timeout 4`; then the same command with `--idempotency-key`',
        expected:
          'exit 5 naming the host and the timeout, "outcome is unknown" with the key; the resumed run exits 0 and the server holds one hedge',
      },
      async (sim, observation) => {
        sim.sandbox.setFaults({ stall: 'headers', match: { method: 'POST', path: '/hedges' } });
        const args = 'open USDTNGN buy 4000 --tenor 7 --skip-checks';
        // A write is sent only with a second of --timeout left: 4 s leaves the start-up seconds to
        // spare on a loaded machine, so the one attempt is always sent, then cut by the deadline.
        const first = async () => {
          const stalled = await sim.hedge(`${args} --timeout 4`);
          expect(stalled.stderr).toContain(new URL(sim.sandbox.baseUrl).host);
          expect(stalled.stderr).toMatch(/within 4(\.0)?s|--timeout 4|4 ?s/);
          return stalled;
        };
        await lostThenResumed(sim, observation, '/hedges', { first, code: 5, resume: `${args} --json` });
        expect(sim.hedges()[0]).toMatchObject({ notionalUsd: 4000, status: 'filled' });
      },
      { stepped: true },
    ));

  it('add, server commits but the body never finishes: exit 5, outcome unknown; resuming adds exactly once', () =>
    results.onSimulator(
      {
        order: 31,
        name: 'Write committed, body never finished (body stall), then resumed',
        injected:
          'POST /hedges/add committed, half the body sent, then silence, on every attempt; `hedge add … --request-timeout 0.5`; then resumed with `--idempotency-key`',
        expected: `exit 5 after ${DEFAULT_RETRY_POLICY.maxAttempts} attempts of 0.5 s with one key, naming the host and the timeout, "outcome is unknown" with the key; after resuming the hedge grew by the amount once`,
      },
      async (sim, observation) => {
        sim.seedOpen('buy', 1000);
        sim.sandbox.setFaults({ stall: 'body', match: { method: 'POST', path: '/hedges/add' } });
        const args = 'add USDTNGN buy 250';
        // Only --request-timeout bounds the run: every attempt ends the same way, so the one message
        // is "no answer within 0.5 s … after 5 attempts". (With a --timeout as well, the budget could
        // run out before a retry instead, a second legitimate message, depending on the machine.)
        const first = async () => {
          const stalled = await sim.hedge(`${args} --request-timeout 0.5`);
          expect(sim.requests('POST', '/hedges/add')).toHaveLength(DEFAULT_RETRY_POLICY.maxAttempts);
          expect(stalled.stderr).toContain(new URL(sim.sandbox.baseUrl).host);
          expect(stalled.stderr).toMatch(/within 0\.5 s/);
          expect(stalled.stderr).toMatch(new RegExp(`after ${DEFAULT_RETRY_POLICY.maxAttempts} attempts`));
          return stalled;
        };
        const { posts } = await lostThenResumed(sim, observation, '/hedges/add', { first, code: 5, resume: args });
        sim.advance(FILL_DELAY_MS + 1);
        expect(posts.filter((entry) => entry.errorCode !== null)).toEqual([]);
        expect(sim.active('buy').reduce((sum, hedge) => sum + hedge.notionalUsd, 0)).toBe(1250);
      },
      { stepped: true },
    ));
});
