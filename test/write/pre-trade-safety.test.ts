// The guards that run before a write is sent, with fake streams and a scripted prompter: the live
// key guard (--no-input, a test key), a person's "yes" holding only for the side the question showed
// (against the simulator), the idempotency key (made once, or taken from --idempotency-key and
// checked). The confirmation at a terminal (y/N, a No is exit 8) and a hedge swapped meanwhile: the
// conformance matrix's "confirmation bound" cells; the dry-run rendering: test/trade/trading.test.ts.
import { run as runClose } from '../../src/cli/cmd/trade/close.js';
import { runRoll } from '../../src/features/trade/roll.js';
import { applyTarget } from '../../src/features/plan/apply.js';
import { journalAhead } from '../../src/features/write/write-flow.js';
import { makeIdempotencyKey, parseIdempotencyKey, writeOptionsFrom } from '../../src/features/write/write-run.js';
import { tradeAction, tradeRecord } from '../../src/features/trade/trade-actions.js';
import { journal } from '../agent/answers.js';
import { clientFor, closeClients, confirmOnly, realClock, testContext } from '../support/client.js';
import { LIVE_KEY } from '../support/keys.js';
import { activeNotional, writeTarget } from '../support/keeper.js';
import { colleagueAdds, MARKET, useSimulators, type Simulator } from '../support/simulator.js';
import { guardLiveAction, NotConfirmedError } from '../../src/features/write/confirm.js';
import { describeError } from '../../src/platform/terminal/exit-codes.js';

/** A terminal with `key`, --no-input unless `input`; the person, asked, says no. */
function context(key: string, input = true) {
  const questions: unknown[] = [];
  const { ctx, stderr } = testContext({
    tty: true,
    env: { HEDGE_API_KEY: key, HEDGE_BASE_URL: 'https://127.0.0.1:9/partners/sandbox/v2' },
    globals: { input },
    output: { now: () => 0 },
    prompter: confirmOnly(async (question) => (questions.push(question), false)),
  });
  return { ctx, questions, stderr };
}

it('live key guard: --no-input on a terminal also needs --yes; a test key needs no confirmation and shows no banner', async () => {
  await expect(guardLiveAction(context(LIVE_KEY, false).ctx, { action: 'close a position' })).rejects.toThrow(
    /--no-input forbids asking/,
  );
  const { ctx, questions, stderr } = context('hpk_test_AbCdEfGhIjKlMnOpQrStUvWx');
  const guard = await guardLiveAction(ctx, { action: 'open a hedge' });
  expect([guard.live, guard.needsConfirmation, questions]).toEqual([false, false, []]);
  await new Promise((resolve) => setImmediate(resolve));
  expect(stderr()).toBe('');
});

it("live key guard: a write approved by its plan or its command's run is asked nothing, --yes not needed; a retry's approval still asks", async () => {
  for (const approved of [{ by: 'plan' }, { by: 'run' }] as const) {
    const { ctx, questions } = context(LIVE_KEY, false);
    const guard = await guardLiveAction(ctx, { action: 'close a position', approved });
    expect([guard.live, guard.needsConfirmation, questions]).toEqual([true, false, []]);
  }
  const { ctx } = context(LIVE_KEY);
  const guard = await guardLiveAction(ctx, { action: 'add to a hedge', approved: { by: 'retry' } });
  expect([guard.live, guard.needsConfirmation]).toEqual([true, true]);
});

const startSimulator = useSimulators();
afterAll(closeClients);

/**
 * A person at a terminal with a LIVE key whose requests reach the simulator (its client holds the
 * simulator's test key); `answer` is the person, told which question this is (1, 2, …).
 */
function liveTerminal(simulator: Simulator, answer: (asked: number) => Promise<boolean>) {
  const questions: string[] = [];
  const { ctx, stderr } = testContext({
    tty: true,
    env: { HEDGE_CONFIG_DIR: simulator.configDir },
    clock: realClock,
    prompter: confirmOnly(async ({ message }) => answer(questions.push(message))),
    credentials: {
      apiKey: LIVE_KEY,
      baseUrl: simulator.baseUrl,
      environment: 'live',
      sources: { apiKey: 'environment', baseUrl: 'environment' },
    },
    client: clientFor(simulator.sandbox).client,
  });
  return { ctx, questions, stderr: () => stderr().replace(/\s+/g, ' ') };
}

type Ctx = ReturnType<typeof liveTerminal>['ctx'];

/**
 * A buy side of 100 and a person at a LIVE terminal who says yes while a colleague adds `added`, then no; with
 * `path`, yes again, `atSecond()` the POSTs to `path` when asked the second time.
 */
async function grownWhileAsked(added = 49_900, path?: string) {
  const simulator = await startSimulator();
  const held = simulator.seedOpen('buy', 100);
  let atSecond: number | undefined;
  const terminal = liveTerminal(simulator, async (asked) => {
    if (asked === 1) await colleagueAdds(simulator, 'buy', added);
    else if (path) atSecond = simulator.requests('POST', path).length;
    return asked === 1 || !!path;
  });
  /** Asked again once it grew, and refused (exit 8): the server sent only `writes`, the side at 50,000. */
  const refusedWhenAskedAgain = (error: unknown, writes: string[]) => {
    expect([describeError(error).exitCode, terminal.questions.length]).toEqual([8, 2]);
    expect(terminal.stderr()).toContain('it holds 50,000.00 USD now, not the 100.00 USD shown. Nothing was sent.');
    expect([
      simulator.writes().map((entry) => entry.path),
      simulator.active('buy').map((hedge) => hedge.notionalUsd),
    ]).toEqual([writes, [50_000]]);
  };
  return { simulator, held, atSecond: () => atSecond, refusedWhenAskedAgain, ...terminal };
}

/** `hedge roll USDTNGN buy --tenor 7`. */
const rollBuy = (ctx: Ctx) =>
  runRoll(ctx, { market: MARKET, side: 'buy', tenorDays: 7, skipChecks: false, write: writeOptionsFrom({}) });

/** A roll of USDTNGN buy 100 to 7 days begun earlier: its open leg journaled, planned; its legs' fields returned. */
async function plannedRoll(ctx: Ctx, rolledHedgeId: string, group: string) {
  const legs = { argv: ['roll', MARKET, 'buy', '--tenor', '7'], group };
  const request = { market: MARKET, side: 'buy' as const, notional_usd: 100, tenor_days: 7 };
  const record = tradeRecord('open', request, { ...legs, leg: 'open' });
  await journalAhead(ctx, tradeAction(ctx, await ctx.client(), record), {
    roll_closes: true,
    rolled_hedge_id: rolledHedgeId,
  });
  return legs;
}

/** What `run` threw (each caller asserts exit 8: a run that resolves fails it), the context disposed after it. */
const refused = (ctx: Ctx, run: () => Promise<unknown>) =>
  run()
    .catch((error: unknown) => error)
    .finally(() => ctx.dispose());

describe("a person's yes holds for the side the question showed", () => {
  it('close: the side grown while the question was open, nothing is sent; told what changed and asked again', async () => {
    // Yes to the close of 100; meanwhile a colleague adds 49,900.
    const { simulator, ctx, questions, stderr, atSecond } = await grownWhileAsked(49_900, '/hedges/close');
    // `hedge close USDTNGN buy`.
    await runClose(ctx, {
      args: { market: MARKET, side: 'buy' },
      options: { wait: true, idempotencyKey: undefined, new: undefined, dryRun: undefined, again: undefined },
    }).finally(() => ctx.dispose());
    expect(questions).toEqual([
      expect.stringMatching(/^LIVE Close the buy position on USDTNGN of 100\.00 USD \(returns about .*\)\?$/),
      expect.stringMatching(/^LIVE Close the buy position on USDTNGN of 50,000\.00 USD \(returns about .*\)\?$/),
    ]);
    expect(stderr()).toContain(
      'The buy side of USDTNGN moved while you were asked: it holds 50,000.00 USD now, not the 100.00 USD shown. Nothing was sent.',
    );
    // The first yes sent nothing; the second, given with the side as it is, closed it once.
    expect([atSecond(), simulator.requests('POST', '/hedges/close').length, simulator.active('buy')]).toEqual([
      0,
      1,
      [],
    ]);
    expect(await journal(simulator)).toMatchObject([{ command: 'close', outcome: 'done', traded_usd: 50_000 }]);
  });

  it('close --no-wait: the question says what the close returns about, as a waited one does; a No sends nothing', async () => {
    const simulator = await startSimulator();
    simulator.seedOpen('buy', 100);
    const { ctx, questions } = liveTerminal(simulator, async () => false);
    const error = await refused(ctx, () =>
      runClose(ctx, {
        args: { market: MARKET, side: 'buy' },
        options: { wait: false, idempotencyKey: undefined, new: undefined, dryRun: undefined, again: undefined },
      }),
    );
    expect(describeError(error).exitCode).toBe(8);
    expect(questions).toEqual([
      expect.stringMatching(
        /^LIVE Close the buy position on USDTNGN of 100\.00 USD \(returns about [\d,.]+ USD; hedge /,
      ),
    ]);
    expect([simulator.requests('POST', '/hedges/close'), simulator.active('buy').length]).toEqual([[], 1]);
  });

  it('roll: the side grown while the card was open, nothing is sent; asked again, a No ends it (exit 8)', async () => {
    const { simulator, ctx, questions, refusedWhenAskedAgain } = await grownWhileAsked();
    const error = await refused(ctx, () => rollBuy(ctx));
    expect(error).toBeInstanceOf(NotConfirmedError);
    refusedWhenAskedAgain(error, ['/quotes', '/hedges/add', '/quotes']);
    expect(questions[0]).toMatch(/^LIVE Roll buy USDTNGN: close the position.*, then open 100\.00 USD for 7 days/);
    expect(questions[1]).toMatch(/^LIVE Roll buy USDTNGN: close the position.*, then open 50,000\.00 USD for 7 days/);
    expect(await journal(simulator)).toEqual([]);
  });

  it('roll resumed: the side grown while the question to finish it was open, nothing is sent; asked again, a No ends it (exit 8)', async () => {
    const { simulator, held, ctx, questions, refusedWhenAskedAgain } = await grownWhileAsked();
    const error = await refused(ctx, async () => {
      // A roll stopped before its close was journaled: its open leg alone, planned.
      await plannedRoll(ctx, held.id, 'roll-resumed-1');
      await rollBuy(ctx);
    });
    // Only the colleague's add reached the server; the roll's open leg is still planned.
    refusedWhenAskedAgain(error, ['/hedges/add']);
    for (const question of questions)
      expect(question).toMatch(
        /^LIVE Resuming the roll of USDTNGN buy to 7 days .*\nFinish the roll of buy USDTNGN: close the position, then open 100\.00 USD for 7 days\?$/s,
      );
    const entries = await journal(simulator);
    expect(entries.map((entry) => [entry.leg, entry.outcome])).toEqual([['open', 'planned']]);
  });

  it('roll resumed with its close sent and its answer lost: the question names the close too, and a No sends nothing (exit 8)', async () => {
    const simulator = await startSimulator();
    const held = simulator.seedOpen('buy', 100);
    const { ctx, questions } = liveTerminal(simulator, async () => false);
    const error = await refused(ctx, async () => {
      // The open leg planned; the close journaled, sent, and its outcome unknown (the run died waiting for its answer).
      const legs = await plannedRoll(ctx, held.id, 'roll-resumed-2');
      const closeRecord = tradeRecord('close', { market: MARKET, side: 'buy' }, { ...legs, leg: 'close' });
      const close = await journalAhead(ctx, tradeAction(ctx, await ctx.client(), closeRecord));
      await (await ctx.journal()).update(close.id, { outcome: 'unknown' });
      await rollBuy(ctx);
    });
    expect([describeError(error).exitCode, questions]).toEqual([
      8,
      [
        expect.stringMatching(
          /\nFinish the roll of buy USDTNGN: close the position, then open 100\.00 USD for 7 days\?$/,
        ),
      ],
    ]);
    expect([simulator.writes(), simulator.active('buy').map((hedge) => hedge.notionalUsd)]).toEqual([[], [100]]);
  });

  it('apply: a side moved while the plan was asked about, nothing is sent; the plan as the book is now is asked again, and carried out once', async () => {
    // Yes to "add 900"; meanwhile a colleague adds 400, so the plan becomes "add 500".
    const { simulator, ctx, questions, stderr, atSecond } = await grownWhileAsked(400, '/hedges/add');
    const file = writeTarget(simulator, ['USDTNGN,buy,1000,7,,']);
    await applyTarget(ctx, { file, toleranceUsd: 0 }).finally(() => ctx.dispose());
    expect(questions).toEqual(['LIVE Apply 1 action?', 'LIVE Apply 1 action?']);
    expect(stderr()).toContain(
      'The book moved while you were asked: the plan is no longer the one shown. Nothing was sent',
    );
    // Only the colleague's add before the second question; then this run's one add of 500.
    const adds = simulator.requests('POST', '/hedges/add').map((entry) => (entry.body as any).notional_usd);
    expect([atSecond(), adds, activeNotional(simulator, 'buy')]).toEqual([1, [400, 500], 1_000]);
  });
});

it('idempotency key: is a fresh UUID v4 per command unless --idempotency-key resumes one; refuses what cannot be a header value, naming the option', () => {
  const first = makeIdempotencyKey();
  const second = makeIdempotencyKey();
  expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(first).not.toBe(second);
  expect(parseIdempotencyKey('  run-42 ')).toBe('run-42');

  for (const bad of ['', 'with space', 'tab\there', 'é', 'x'.repeat(256)]) {
    expect(() => parseIdempotencyKey(bad), JSON.stringify(bad)).toThrow(/^--idempotency-key: /);
  }
});
