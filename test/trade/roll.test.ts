// hedge roll against the simulator: one close, then one open of the same notional for the new
// tenor; a side that already settled is opened anew; nothing to roll; --dry-run;
// and a roll killed (SIGKILL) between its legs, finished by `hedge resume` or the same command
// again — exactly one close and one open on the server overall. Each kill is timed by the
// simulator's own request log, never by a sleep; what is asserted is the server's state and log.
import type { TestContext } from 'vitest';
import {
  startSimulator as startOwn,
  colleagueAdds,
  useSimulators,
  type Simulator,
  type SimulatorOptions,
} from '../support/simulator.js';
import { journalEntries, killWhen, ok, okJson, exits, waitingAfter } from '../support/cli-runs.js';
import { openBody } from '../support/engine.js';
import { hedgeOf } from '../support/keeper.js';
import { until } from '../support/polling.js';

const startSimulator = useSimulators({ stepped: true });
/** For tests side by side: a simulator closed when its own test ends. */
async function ownSimulator({ onTestFinished }: TestContext, options?: SimulatorOptions) {
  const simulator = await startOwn({ stepped: true, ...options });
  onTestFinished(() => simulator.close());
  return simulator;
}

/** A run's stdout, a line each. */
const lines = (result: { stdout: string }) => result.stdout.trim().split('\n');
/** Sandbox time for a fill or a close to land when a test holds them: nothing lands by itself. */
const LAND_MS = 3_600_000;

const posts = (simulator: Simulator, path: string) => simulator.requests('POST', path);

/** How many closes and opens the server was sent. */
const legsSent = (simulator: Simulator) => [
  posts(simulator, '/hedges/close').length,
  posts(simulator, '/hedges').length,
];
/** Asserts that the side holds one filled hedge of that notional and tenor. */
const holdsOne = (simulator: Simulator, side: 'buy' | 'sell', notionalUsd: number, tenorDays: number) =>
  expect(simulator.active(side)).toMatchObject([{ notionalUsd, tenorDays, status: 'filled' }]);

/**
 * A simulator of the test's own whose `side` holds a hedge of `usd`, and `hedge roll MARKET SIDE --tenor D` run on it
 * and killed (SIGKILL) after the close landed, right before the open: the roll reads GET /hedges only to see the side
 * flat before it opens, and that read is held. The hedge rolled, and the open leg the journal holds planned.
 */
async function killedBeforeTheOpen(test: TestContext, side: 'buy' | 'sell', usd: number, tenor: string) {
  const simulator = await ownSimulator(test);
  const old = simulator.seedOpen(side, usd);
  // The roll reads the side's records (GET /hedges, twice: every filled hedge, and the newest page)
  // to plan; after its close is answered, the close's wait reads them (twice) to see the close in
  // every view (journaled done then), and the roll reads them again right before the open: that
  // read is held, and the roll killed there.
  let held = false;
  const reads = () => simulator.requests('GET', '/hedges');
  await killWhen(
    simulator,
    ['roll', 'USDTNGN', side, '--tenor', tenor],
    () => {
      const close = posts(simulator, '/hedges/close').find((entry) => entry.status === 200);
      if (
        !held &&
        close &&
        reads().filter((entry) => entry.realTimeMs > close.realTimeMs && entry.status === 200).length >= 2
      ) {
        simulator.sandbox.setFaults({
          nextLatency: { count: 1, ms: 60_000 },
          match: { method: 'GET', path: '/hedges' },
        });
        held = true;
      }
      return held && reads().some((entry) => entry.status === 'pending');
    },
    'the roll was about to open',
  );
  simulator.sandbox.setFaults({ nextLatency: null, match: null });
  const [planned] = await journalEntries(simulator, '--pending');
  return { simulator, old, planned };
}

it.each([
  // Positions that carry only a hedge id: side and notional come from the hedge.
  ['beta', 'per_page', 'sell', [4_000], 1],
  // Several hedges on one side: the side is closed whole and its summed notional opened once.
  ['alpha', 'page_size', 'buy', [3_000, 2_000], 3],
] as const)(
  'hedge roll: dialect %s: one close, one open of what the side held',
  async (dialect, param, side, seeded, tenor) => {
    const simulator = await startSimulator({ dialect });
    const old = seeded.map((usd) => simulator.seedOpen(side, usd));
    const total = seeded.reduce((sum, usd) => sum + usd, 0);
    const rolled = okJson(
      await simulator.hedge(`roll USDTNGN ${side} --tenor ${tenor} --json`, {
        env: { HEDGE_WIRE_PAGE_SIZE_PARAM: param },
      }),
    );
    expect([legsSent(simulator), old.map((hedge) => hedgeOf(simulator, hedge.id).status)]).toEqual([
      [1, 1],
      old.map(() => 'closed'),
    ]);
    holdsOne(simulator, side, total, tenor);
    expect(rolled).toMatchObject({ market: 'USDTNGN', side, notional_usd: total, tenor_days: tenor });
    expect(old.map((hedge) => hedge.id)).toContain(rolled.rolled_hedge_id);
  },
);

it("hedge roll: the deal lives through the roll: the new hedge carries the rolled one's reference, `hedges --ref` finds it; --ref gives another", async () => {
  const simulator = await startSimulator();
  ok(await simulator.hedge('open USDTNGN buy 1000 --tenor 1 --ref DEAL-7'));
  ok(await simulator.hedge('roll USDTNGN buy --tenor 1 --yes'));
  expect(simulator.active('buy')).toMatchObject([{ notionalUsd: 1000, clientReference: 'DEAL-7', status: 'filled' }]);
  const found = okJson(await simulator.hedge('hedges --ref DEAL-7 --json'));
  expect(found.map((hedge: any) => hedge.status).sort()).toEqual(['closed', 'filled']);

  ok(await simulator.hedge('roll USDTNGN buy --tenor 3 --ref DEAL-8 --yes'));
  expect(simulator.active('buy')).toMatchObject([{ notionalUsd: 1000, clientReference: 'DEAL-8', tenorDays: 3 }]);
  // The journal carries the deal on each leg of a roll: a close's, the reference of the hedge it closed.
  expect(lines(await simulator.hedge('journal --fields command,client_reference --no-header'))).toEqual([
    'close\tDEAL-7',
    'open\tDEAL-8',
    'close\tDEAL-7',
    'open\tDEAL-7',
    'open\tDEAL-7',
  ]);
  expect(lines(await simulator.hedge('journal --ref DEAL-7 --fields command --no-header'))).toEqual([
    'close',
    'close',
    'open',
    'open',
  ]);
  // Each leg records the roll's command line with the deal it renews under: run again, it rolls the same deal.
  expect(
    okJson(await simulator.hedge('journal --json'))
      .slice(0, 4)
      .map((entry: any) => entry.argv),
  ).toEqual([
    ['roll', 'USDTNGN', 'buy', '--tenor', '3', '--ref', 'DEAL-8'],
    ['roll', 'USDTNGN', 'buy', '--tenor', '3', '--ref', 'DEAL-8'],
    ['roll', 'USDTNGN', 'buy', '--tenor', '1', '--ref', 'DEAL-7'],
    ['roll', 'USDTNGN', 'buy', '--tenor', '1', '--ref', 'DEAL-7'],
  ]);
});

it('hedge roll: --dry-run prints both requests and sends nothing; then it closes the open hedge and opens the same notional for the new tenor: one close, one open, one journal group', async () => {
  const simulator = await startSimulator();
  const old = simulator.seedOpen('buy', 10_000);
  // --dry-run first: both requests, in order, and nothing sent or journaled.
  const shown = JSON.parse(
    exits(
      await simulator.hedge('roll USDTNGN buy --tenor 3 --dry-run --json'),
      0,
      'Dry run: these requests were NOT sent.',
    ).stdout,
  );
  expect([shown.dry_run, ...shown.legs.map((leg: any) => [leg.leg, leg.method, leg.path, leg.body])]).toEqual([
    true,
    ['close', 'POST', '/hedges/close', { market: 'USDTNGN', side: 'buy' }],
    ['open', 'POST', '/hedges', openBody('buy', 10_000, 3)],
  ]);
  expect([simulator.writes(), await journalEntries(simulator)]).toEqual([[], []]);

  const rolled = okJson(await simulator.hedge('roll USDTNGN buy --tenor 3 --json'));

  // The server: the old hedge closed, exactly one new hedge on the side, same notional, new tenor.
  expect(hedgeOf(simulator, old.id).status).toBe('closed');
  holdsOne(simulator, 'buy', 10_000, 3);
  const [fresh] = simulator.active('buy');

  // The log: the close first, then (once the side left the positions list) the open; each its own key.
  const legs = simulator.requests('POST', /^\/hedges(\/close)?$/);
  expect(legs.map((entry) => [entry.path, entry.status, entry.body])).toEqual([
    ['/hedges/close', 200, { market: 'USDTNGN', side: 'buy' }],
    ['/hedges', 200, openBody('buy', 10_000, 3)],
  ]);
  expect(legs[0].idempotencyKey).not.toBe(legs[1].idempotencyKey);
  const log = simulator.sandbox.requestLog;
  expect(
    log
      .slice(log.indexOf(legs[0]) + 1, log.indexOf(legs[1]))
      .some((entry) => entry.method === 'GET' && entry.path === '/positions'),
  ).toBe(true);

  // --json: both legs, each with its journal entry.
  expect(rolled).toMatchObject({
    ...openBody('buy', 10_000, 3),
    rolled_hedge_id: old.id,
    close: {
      outcome: 'done',
      hedge_id: old.id,
      order_tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      realized: { hedge_id: old.id },
    },
    open: {
      outcome: 'filled',
      hedge_id: fresh.id,
      hedge: { id: fresh.id, status: 'filled', tenor_days: 3 },
      quote: { notional_usd: 10_000, tenor_days: 3 },
    },
  });

  const entries = await journalEntries(simulator);
  expect(entries.map((entry) => [entry.command, entry.leg, entry.outcome, entry.group, entry.idempotency_key])).toEqual(
    [
      ['close', 'close', 'done', rolled.journal_group, legs[0].idempotencyKey],
      ['open', 'open', 'filled', rolled.journal_group, legs[1].idempotencyKey],
    ],
  );
  expect([rolled.close.journal_id, rolled.open.journal_id]).toEqual(entries.map((entry) => entry.id));
});

it('hedge roll: a side that has already settled is opened anew with the notional of the hedge that matured, nothing closed; a side with nothing to roll is exit 3', async () => {
  const simulator = await startSimulator();
  const old = simulator.seedOpen('sell', 4_000);
  simulator.advance(7 * 86_400_000 + 1);
  expect(hedgeOf(simulator, old.id).status).toBe('closed');
  // The other side: nothing open and nothing matured lately; nothing sent or journaled.
  exits(
    await simulator.hedge('roll USDTNGN buy --tenor 7'),
    3,
    'Nothing to roll: no buy hedge is open on USDTNGN, and none matured in the last 7 days.',
  );
  expect([simulator.writes(), await journalEntries(simulator)]).toEqual([[], []]);

  const result = okJson(await simulator.hedge('roll USDTNGN sell --tenor 1 --json'));
  expect([legsSent(simulator)[0], posts(simulator, '/hedges').map((entry) => entry.body)]).toEqual([
    0,
    [openBody('sell', 4_000, 1)],
  ]);
  holdsOne(simulator, 'sell', 4_000, 1);
  expect(result).toMatchObject({
    rolled_hedge_id: old.id,
    close: null,
    open: { outcome: 'filled' },
  });
});

it('hedge roll: a settled side is planned from the one read its book was judged on: one GET /hedges fewer, the same plan', async () => {
  const simulator = await startSimulator();
  const old = simulator.seedOpen('sell', 4_000);
  simulator.advance(7 * 86_400_000 + 1);
  const planned = okJson(await simulator.hedge('roll USDTNGN sell --tenor 1 --dry-run --json'));
  expect(planned.legs.map((leg: any) => [leg.leg, leg.method, leg.path, leg.body])).toEqual([
    ['open', 'POST', '/hedges', openBody('sell', 4_000, 1)],
  ]);
  // The side's read alone: every filled hedge and the newest page, once each; no list of its own for the ended hedge.
  expect(simulator.requests('GET', '/hedges').map((entry) => entry.query.status ?? null)).toEqual(['filled', null]);
  // Carried out, it sends what it planned, and renews the hedge the side's read showed ended.
  const rolled = okJson(await simulator.hedge('roll USDTNGN sell --tenor 1 --json'));
  expect([posts(simulator, '/hedges').map((entry) => entry.body), rolled.rolled_hedge_id]).toEqual([
    [openBody('sell', 4_000, 1)],
    old.id,
  ]);
});

it('hedge roll: a side with a hedge still being opened beside a filled one is not rolled: a close would take it whole while it is opened (exit 3)', async () => {
  const simulator = await startSimulator({ severalPerSide: true, fillDelayMs: LAND_MS });
  const filled = simulator.seedOpen('buy', 3_000);
  // Opened by another client, its fill held: the side holds 3,000 filled and 2,000 still submitted.
  const opening = await simulator.api('POST', '/hedges', {
    body: openBody('buy', 2_000, 7),
    idempotencyKey: 'opened-by-another',
  });
  exits(
    await simulator.hedge('roll USDTNGN buy --tenor 3 --yes'),
    3,
    `The buy hedge ${opening.body.data.hedge_id} on USDTNGN is still submitted: a roll closes the whole side`,
    'Nothing was sent.',
  );
  expect([
    simulator.requests('POST').map((entry) => entry.idempotencyKey),
    hedgeOf(simulator, filled.id).status,
    await journalEntries(simulator),
  ]).toEqual([['opened-by-another'], 'filled', []]);
});

it("hedge roll: a hedge that matured more than 7 days ago on the server's clock is not renewed, though this machine's clock is a week behind it (exit 3)", async () => {
  const simulator = await startSimulator();
  simulator.seedOpen('sell', 4_000);
  // The server's clock 15 days on: the 7-day hedge matured 8 days ago by it; hedge's own clock has not moved.
  simulator.advance(15 * 86_400_000);
  exits(
    await simulator.hedge('roll USDTNGN sell --tenor 7'),
    3,
    'Nothing to roll: no sell hedge is open on USDTNGN, and none matured in the last 7 days.',
  );
  expect([simulator.writes(), await journalEntries(simulator)]).toEqual([[], []]);
});

// Side by side: each mostly waits for the roll it runs as a process of its own.
describe.concurrent('hedge roll killed between its legs', () => {
  it('killed while the close waits: `hedge resume` finishes the close with its key, then opens once', async (test) => {
    const simulator = await ownSimulator(test, { fillDelayMs: LAND_MS });
    const old = simulator.seedOpen('buy', 10_000);
    await killWhen(
      simulator,
      ['roll', 'USDTNGN', 'buy', '--tenor', '3'],
      waitingAfter(simulator, '/hedges/close'),
      'the close was sent and waited for',
    );
    const pending = await journalEntries(simulator, '--pending');
    // Nothing opened yet.
    expect([pending.map((entry) => [entry.leg, entry.outcome]), posts(simulator, '/hedges')]).toEqual([
      [
        ['close', 'submitted'],
        ['open', 'planned'],
      ],
      [],
    ]);

    simulator.advance(LAND_MS);
    const resumed = exits(
      await simulator.hedge('resume --no-wait --json'),
      0,
      'Resuming the roll of USDTNGN buy to 3 days',
    );
    simulator.advance(LAND_MS);

    // One close (its one key, replayed), one open (the key journaled before anything was sent).
    const closesAnswered = posts(simulator, '/hedges/close').filter((entry) => entry.status === 200);
    expect(new Set(closesAnswered.map((entry) => entry.idempotencyKey))).toEqual(new Set([pending[0].idempotency_key]));
    expect(posts(simulator, '/hedges').map((entry) => entry.idempotencyKey)).toEqual([pending[1].idempotency_key]);
    expect(hedgeOf(simulator, old.id).status).toBe('closed');
    holdsOne(simulator, 'buy', 10_000, 3);
    expect(JSON.parse(resumed.stdout)).toMatchObject({
      close: { journal_id: pending[0].id, outcome: 'done' },
      open: { journal_id: pending[1].id },
    });
    expect(await journalEntries(simulator, '--pending')).toEqual([]);
  });

  it('killed after the close landed, before the open was sent: the same roll again opens once', async (test) => {
    const { simulator, old, planned } = await killedBeforeTheOpen(test, 'buy', 10_000, '7');
    expect(hedgeOf(simulator, old.id).status).toBe('closed');
    expect(planned).toMatchObject({ command: 'open', leg: 'open', outcome: 'planned' });

    const again = exits(
      await simulator.hedge('roll USDTNGN buy --tenor 7 --json'),
      0,
      'Resuming the roll of USDTNGN buy to 7 days',
    );
    expect([legsSent(simulator), posts(simulator, '/hedges')[0].idempotencyKey]).toEqual([
      [1, 1],
      planned.idempotency_key,
    ]);
    holdsOne(simulator, 'buy', 10_000, 7);
    expect(JSON.parse(again.stdout)).toMatchObject({
      rolled_hedge_id: old.id,
      close: { outcome: 'done' },
      open: { journal_id: planned.id, outcome: 'filled' },
    });
    expect(await journalEntries(simulator, '--pending')).toEqual([]);
  });

  it('an unfinished roll comes first: another tenor is refused, --dry-run shows what is left, --new sets it aside', async (test) => {
    const { simulator, old, planned } = await killedBeforeTheOpen(test, 'buy', 8_000, '7');
    const writes = simulator.writes().length;

    exits(
      await simulator.hedge('roll USDTNGN buy --tenor 1'),
      2,
      'An unfinished roll of USDTNGN buy to 7 days is in the journal',
      `hedge resume ${planned.id}`,
    );

    expect(okJson(await simulator.hedge('roll USDTNGN buy --tenor 7 --dry-run --json')).legs).toMatchObject([
      {
        leg: 'open',
        path: '/hedges',
        idempotency_key: planned.idempotency_key,
        body: openBody('buy', 8_000, 7),
      },
    ]);

    exits(
      await simulator.hedge('roll USDTNGN buy --tenor 7 --idempotency-key not-a-roll-key'),
      2,
      '--idempotency-key: not-a-roll-key is not the key of a roll leg',
    );
    expect(simulator.writes()).toHaveLength(writes);

    // Set aside, the old roll is abandoned; the new one finds the side flat (its hedge just closed) and opens it anew.
    const fresh = exits(
      await simulator.hedge('roll USDTNGN buy --tenor 1 --new --json'),
      0,
      '--new: the unfinished roll of USDTNGN buy to 7 days',
    );
    // One open: under a key of its own.
    expect(
      posts(simulator, '/hedges').map((entry) => [entry.idempotencyKey === planned.idempotency_key, entry.body]),
    ).toEqual([[false, openBody('buy', 8_000, 1)]]);
    expect(JSON.parse(fresh.stdout)).toMatchObject({ rolled_hedge_id: old.id, close: null });
    expect((await journalEntries(simulator)).find((entry) => entry.id === planned.id)).toMatchObject({
      outcome: 'abandoned',
    });
    expect(simulator.active('buy')).toMatchObject([{ notionalUsd: 8_000, tenorDays: 1 }]);
  });

  it('a side opened by someone else in between is never opened twice: the open leg is abandoned (exit 3)', async (test) => {
    const { simulator } = await killedBeforeTheOpen(test, 'sell', 6_000, '3');
    const other = simulator.seedOpen('sell', 2_000);

    exits(await simulator.hedge('resume'), 3, `The sell side of USDTNGN is already covered by ${other.id}`);
    expect(posts(simulator, '/hedges')).toEqual([]);
    expect(simulator.active('sell').map((hedge) => hedge.id)).toEqual([other.id]);
    expect((await journalEntries(simulator)).find((entry) => entry.leg === 'open')).toMatchObject({
      outcome: 'abandoned',
    });
    expect(await journalEntries(simulator, '--pending')).toEqual([]);
  });
});

it('hedge roll: of several hedges, one that matures before the close lands may have settled on its own: the new hedge is not sent, and the roll says what it cannot tell (exit 12)', async () => {
  const simulator = await startSimulator({ severalPerSide: true });
  const soonest = simulator.seedOpen('buy', 3_000);
  simulator.advance(86_400_000);
  const later = simulator.seedOpen('buy', 2_000);
  // An hour before the first hedge matures, the roll plans both; its close is held on its way to the server while
  // the hour passes (the first hedge settles), and then taken: it closes the second alone.
  simulator.advance(soonest.maturityAtMs - simulator.sandbox.clock.now() - 3_600_000);
  simulator.sandbox.setFaults({
    nextLatency: { count: 1, ms: 600_000 },
    match: { method: 'POST', path: '/hedges/close' },
  });
  const run = simulator.hedge('roll USDTNGN buy --tenor 3 --yes');
  await until(() => posts(simulator, '/hedges/close').some((entry) => entry.status === 'pending'), 'the held close', {
    process: run,
  });
  simulator.advance(2 * 3_600_000);
  simulator.sandbox.releaseHeld();
  exits(await run, 12, `hedge ${soonest.id} matured at`, 'possibly before the close landed', 'the new hedge was not');
  expect([hedgeOf(simulator, soonest.id).status, hedgeOf(simulator, later.id).status]).toEqual(['closed', 'closed']);
  expect(legsSent(simulator)).toEqual([1, 0]);
  expect(simulator.active('buy')).toEqual([]);
  expect((await journalEntries(simulator)).find((entry) => entry.leg === 'open')).toMatchObject({
    outcome: 'abandoned',
  });
});

// The keeper soak's failure: a roll planned before a lone hedge's maturity whose close reached the server after it (here
// its quote is held while the clock moves). A close lands up to a request's bound (15 s) after it is sent, so one sent
// within that of the maturity may take the hedge while it settles, or find it settled: none is sent.
it.each([
  ['five seconds before its maturity (within the 15 s a request may take)', -5_000],
  ['a second after its maturity, while it settles', 1_000],
])(
  'hedge roll: a lone hedge that matures before the close could land, reached %s: nothing sent, left to settle (exit 3)',
  async (_when, fromMaturityMs) => {
    const simulator = await startSimulator({ settlementDelayMs: 60_000 });
    const hedge = simulator.seedOpen('buy', 3_000);
    simulator.advance(hedge.maturityAtMs - simulator.sandbox.clock.now() - 3_600_000);
    simulator.sandbox.setFaults({ nextLatency: { count: 1, ms: 600_000 }, match: { method: 'POST', path: '/quotes' } });
    const run = simulator.hedge('roll USDTNGN buy --tenor 3 --yes');
    await until(() => posts(simulator, '/quotes').some((entry) => entry.status === 'pending'), 'the held quote', {
      process: run,
    });
    simulator.advance(hedge.maturityAtMs + fromMaturityMs - simulator.sandbox.clock.now());
    simulator.sandbox.releaseHeld();
    exits(
      await run,
      3,
      `The buy hedge ${hedge.id} on USDTNGN matures at`,
      'before a close sent now could be known to land (a request may take up to 15 s)',
      'Nothing was sent.',
      'Once it has settled, `hedge roll USDTNGN buy --tenor 3` opens the side anew.',
    );
    expect(legsSent(simulator)).toEqual([0, 0]);
    expect(hedgeOf(simulator, hedge.id).closeReason ?? 'held').not.toBe('closed');
    expect(await journalEntries(simulator)).toMatchObject([{ leg: 'open', outcome: 'abandoned' }]);
  },
);

/**
 * A side of two hedges (3,000 maturing first, then 2,000), views trailing, and `hedge roll` on it an hour before the
 * first matures: its quote (after the plan read both, before the close) is held while `meanwhile` changes the side;
 * the run's end.
 */
async function rollHeldAtItsQuote(
  meanwhile: (simulator: Simulator, soonest: { maturityAtMs: number }) => Promise<void>,
) {
  const simulator = await startSimulator({ severalPerSide: true, viewLagMs: 3_200 });
  const soonest = simulator.seedOpen('buy', 3_000);
  simulator.advance(86_400_000);
  const later = simulator.seedOpen('buy', 2_000);
  simulator.advance(soonest.maturityAtMs - simulator.sandbox.clock.now() - 3_600_000);
  simulator.sandbox.setFaults({ nextLatency: { count: 1, ms: 600_000 }, match: { method: 'POST', path: '/quotes' } });
  const run = simulator.hedge('roll USDTNGN buy --tenor 3 --yes');
  await until(() => posts(simulator, '/quotes').some((entry) => entry.status === 'pending'), 'the held quote', {
    process: run,
  });
  await meanwhile(simulator, soonest);
  simulator.sandbox.releaseHeld();
  return { simulator, soonest, later, ran: await run };
}

it('hedge roll: of several hedges (views trailing), one that matures after the plan read both and before the close is sent: the roll stops before its close (the side changed since the plan, exit 12), nothing sent, the other hedge still held', async () => {
  const { simulator, soonest, later, ran } = await rollHeldAtItsQuote(async (simulator) =>
    simulator.advance(2 * 3_600_000),
  );
  exits(
    ran,
    12,
    'the side changed since the plan',
    `hedge ${soonest.id} matured at`,
    'possibly before the close could be sent',
    'Nothing was sent',
  );
  expect(ran.stderr).not.toContain('if this close landed');
  expect(legsSent(simulator)).toEqual([0, 0]);
  expect([hedgeOf(simulator, soonest.id).status, simulator.active('buy').map((hedge) => hedge.id)]).toEqual([
    'closed',
    [later.id],
  ]);
  expect(await journalEntries(simulator)).toMatchObject([{ leg: 'open', outcome: 'abandoned' }]);
});

it('hedge roll: of several hedges (views trailing), the first five seconds from its maturity when the close is to be sent (within the 15 s a request may take): the roll stops before its close (exit 12), nothing sent', async () => {
  const { simulator, soonest, later, ran } = await rollHeldAtItsQuote(async (simulator, soonest) =>
    simulator.advance(soonest.maturityAtMs - 5_000 - simulator.sandbox.clock.now()),
  );
  exits(ran, 12, 'the side changed since the plan', `hedge ${soonest.id} matured at`, 'Nothing was sent');
  expect(legsSent(simulator)).toEqual([0, 0]);
  expect(
    simulator
      .active('buy')
      .map((hedge) => hedge.id)
      .sort(),
  ).toEqual([soonest.id, later.id].sort());
});

it('hedge roll: of several hedges, an add lands on one after the plan read them, before the close is sent: the roll stops before its close (the side changed since the plan, exit 12), nothing sent', async () => {
  const { simulator, soonest, later, ran } = await rollHeldAtItsQuote((simulator) =>
    colleagueAdds(simulator, 'buy', 500),
  );
  const ids = [soonest.id, later.id].sort().join(', ');
  exits(
    ran,
    12,
    `the side changed since the plan: it holds 5,500.00 USD in ${ids} now, not the 5,000.00 USD in ${ids} planned on`,
    'Nothing was sent',
  );
  expect(legsSent(simulator)).toEqual([0, 0]);
  expect(simulator.active('buy').map((hedge) => hedge.notionalUsd)).toEqual([3_000, 2_500]);
});
