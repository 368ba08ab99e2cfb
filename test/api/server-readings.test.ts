// What a server that follows the spec but throttles and pages its own way said, kept: a Retry-After of 0 or a date
// already past (by the server's own clock, its Date header) is the client's own backoff, never an instant retry; a 429
// on a write is "not done" (the server refused before acting), retried under its one key; a list page that comes back
// empty with a next cursor is not the end. The server's request log (its times hedge's, skippingClock) is the evidence.
import { DEFAULT_RETRY_POLICY, backoffDelayMs, rateLimitResetMs } from '../../src/platform/api/transport.js';
import { exits, ok, okJson } from '../support/cli-runs.js';
import { apiData, gaps, MARKET, skippingClock, useSimulators, type Simulator } from '../support/simulator.js';
import { STACK_FRAME } from '../support/output/text.js';

const start = useSimulators();

/** The shortest backoff before each retry (jitter at 0). */
const shortest = (retries: number) =>
  Array.from({ length: retries }, (_, index) => backoffDelayMs(DEFAULT_RETRY_POLICY, index + 1, () => 0));

/** An HTTP-date `ms` from the server's time now (its Date header's clock), on a whole second at least that far. */
const serverDate = (simulator: Simulator, skewMs: number, ms: number) =>
  new Date(Math.ceil((simulator.sandbox.clock.now() + skewMs + ms) / 1000) * 1000).toUTCString();

it("Retry-After: 0 on a 429, three times: each retry waits the client's own backoff (150, 300, 600 ms at the least), never at once, and the read succeeds", async () => {
  const clock = skippingClock();
  const simulator = await start({ skipping: true, realNow: clock.now });
  simulator.sandbox.setFaults({ next429RetryAfter: { count: 3, retryAfter: '0' } });
  ok(await simulator.hedge('account --json', { clock }));
  const reads = simulator.requests('GET', '/account');
  expect(reads.map((entry) => entry.status)).toEqual([429, 429, 429, 200]);
  gaps(reads).forEach((gap, index) => expect(gap, `retry ${index + 1}`).toBeGreaterThanOrEqual(shortest(3)[index]));
});

it('a rate-limit reset is read where no Retry-After says how long: the IETF draft’s RateLimit (reset=, or per policy t= of one used up), RateLimit-Reset and X-RateLimit-Reset (seconds, or a time in epoch seconds)', () => {
  const now = Date.UTC(2026, 2, 2);
  expect(
    [
      { ratelimit: 'limit=8, remaining=0, reset=2' },
      { ratelimit: '"burst";r=0;t=3, "daily";r=900;t=86000' },
      { ratelimit: '"burst";r=4;t=1, "hourly";r=0;t=20' },
      { 'ratelimit-reset': '4' },
      { 'x-ratelimit-reset': String(now / 1000 + 7) },
      { ratelimit: 'limit=8, remaining=0, reset=soon' },
      {},
    ].map((headers) => rateLimitResetMs(headers, now)),
  ).toEqual([2_000, 3_000, 20_000, 4_000, 7_000, undefined, undefined]);
});

it('rate-limit headers in the IETF draft’s form (RateLimit: limit=2, remaining=0, reset=1 with RateLimit-Policy, no Retry-After): twelve reads in a row, each exit 0, and no retry comes back inside the reset a 429 announced', async () => {
  const clock = skippingClock();
  const simulator = await start({ skipping: true, realNow: clock.now, rateLimit: 2, rateLimitHeaders: 'draft' });
  for (let run = 0; run < 12; run++) ok(await simulator.hedge('account --json', { clock }));
  const reads = simulator.requests('GET', '/account');
  const limited = reads.filter((entry) => entry.status === 429);
  expect([reads.filter((entry) => entry.status === 200).length, limited.length > 0]).toEqual([12, true]);
  // Each 429's announced reset (whole seconds) against the time to the retry that followed it, on the server's log.
  const answers = await simulator.api('GET', '/account');
  expect([answers.headers.get('ratelimit-policy'), answers.headers.has('retry-after')]).toEqual(['2;w=1', false]);
  reads.forEach((entry, index) => {
    if (entry.status === 429 && reads[index + 1])
      expect(reads[index + 1].realTimeMs - entry.realTimeMs, `retry ${index + 1}`).toBeGreaterThanOrEqual(1_000);
  });
});

it("Retry-After as an HTTP-date is read by the server's clock (its Date header): a server a minute behind ours asking for 3 s from its now is waited out, not retried at once; a minute ahead, its 3 s are not taken for 63 (past the 30 s that are waited); a date past by its clock is the usual backoff", async () => {
  for (const skewMs of [-60_000, 60_000]) {
    const clock = skippingClock();
    const simulator = await start({ skipping: true, realNow: clock.now, dateSkewMs: skewMs });
    const retryAfter = serverDate(simulator, skewMs, 2_500);
    simulator.sandbox.setFaults({ next429RetryAfter: { count: 1, retryAfter } });
    ok(await simulator.hedge('account --json', { clock }));
    const reads = simulator.requests('GET', '/account');
    expect(reads.map((entry) => entry.status)).toEqual([429, 200]);
    // The Date header is to the second: the wait is at least the 2.5 s asked, at most a second more.
    expect(gaps(reads)[0], `skew ${skewMs}`).toBeGreaterThanOrEqual(2_500);
    expect(gaps(reads)[0], `skew ${skewMs}`).toBeLessThan(5_000);
  }
  const clock = skippingClock();
  const simulator = await start({ skipping: true, realNow: clock.now, dateSkewMs: 60_000 });
  // Past by the server's clock, though a minute ahead by ours.
  simulator.sandbox.setFaults({ next429RetryAfter: { count: 1, retryAfter: serverDate(simulator, 0, 10_000) } });
  ok(await simulator.hedge('account --json', { clock }));
  const reads = simulator.requests('GET', '/account');
  expect(reads.map((entry) => entry.status)).toEqual([429, 200]);
  expect(gaps(reads)[0]).toBeGreaterThanOrEqual(shortest(1)[0]);
  expect(gaps(reads)[0]).toBeLessThan(10_000);
});

it('a 429 on every attempt of a write: retried under the one Idempotency-Key within the policy, then said as not done (not "outcome unknown"), exit 5, the journal\'s entry rejected, nothing opened; a 429 then an answer: one hedge', async () => {
  const clock = skippingClock();
  const simulator = await start({ skipping: true, realNow: clock.now });
  simulator.sandbox.setFaults({ next429: 100, match: { method: 'POST', path: '/hedges' } });
  const refused = exits(
    await simulator.hedge('open USDTNGN buy 3000 --tenor 3 --skip-checks', { clock }),
    5,
    'not done: the server refused it before acting',
  );
  expect(refused.stderr).not.toMatch(/outcome is unknown|may have acted/i);
  expect(refused.stderr).not.toMatch(STACK_FRAME);
  const attempts = simulator.requests('POST', '/hedges');
  expect(attempts).toHaveLength(DEFAULT_RETRY_POLICY.maxAttempts);
  expect(new Set(attempts.map((entry) => entry.idempotencyKey)).size).toBe(1);
  expect(simulator.hedges()).toEqual([]);
  const [entry] = okJson(await simulator.hedge('journal --json'));
  expect(entry).toMatchObject({ idempotency_key: attempts[0].idempotencyKey, outcome: 'rejected' });

  simulator.sandbox.setFaults({ next429: 2, match: { method: 'POST', path: '/hedges' } });
  ok(await simulator.hedge('open USDTNGN sell 2000 --tenor 3 --skip-checks', { clock }));
  const sells = simulator.requests('POST', '/hedges').slice(attempts.length);
  expect(sells.map((one) => one.status)).toEqual([429, 429, 200]);
  expect(new Set(sells.map((one) => one.idempotencyKey)).size).toBe(1);
  expect(simulator.hedges()).toHaveLength(1);
});

/** A reference simulator whose history gives `empty` empty pages (each naming the next) before each page of records,
 * holding `closed` closed hedges. */
async function closedBehindEmptyPages(empty: number, closed: number) {
  const simulator = await start({ severalPerSide: true, emptyHistoryPages: empty });
  for (let index = 0; index < closed; index++) simulator.seedOpen('buy', 10_000 + index * 100);
  await apiData(simulator, 'POST', '/hedges/close', { market: MARKET, side: 'buy' });
  simulator.advance(1_000);
  return simulator;
}

it('a history page that comes back empty naming a next one is not the end: report reads past two such pages to all 27 closed hedges, complete; a run of empty pages that never ends is cut after 10, said on stderr and `"complete": false`', async () => {
  const followed = await closedBehindEmptyPages(2, 27);
  const report = ok(await followed.hedge('report --since 2000-01-01 --json'));
  expect([JSON.parse(report.stdout), report.stderr]).toEqual([
    expect.objectContaining({ totals: expect.objectContaining({ count: 27 }), complete: true }),
    '',
  ]);
  expect(followed.requests('GET', '/hedges/history').map((entry) => entry.query.cursor === undefined)).toEqual([
    true,
    false,
    false,
  ]);

  const endless = await closedBehindEmptyPages(1_000, 27);
  const cut = ok(await endless.hedge('report --since 2000-01-01 --json'));
  expect(JSON.parse(cut.stdout)).toMatchObject({ totals: { count: 0 }, complete: false });
  expect(cut.stderr).toContain(
    'GET /hedges/history returned 0 closed hedges, then 10 empty pages in a row, each naming another: the pages were not followed further, so the figures may be incomplete.',
  );
  expect(endless.requests('GET', '/hedges/history')).toHaveLength(10);
});
