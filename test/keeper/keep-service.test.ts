// The keeper run as a treasury's operator runs it: rows that never wait for each other, a
// colleague's close that stands, a dry run that validates, a roll that checks before it closes, a
// re-open sized to what is left of the exposure. Real processes against the simulator; every
// verdict is on the server's own state and request log.
import { utimesSync } from 'node:fs';
import {
  activeNotional,
  describeKeepers,
  eventAfter,
  filledActive,
  hedgeOf,
  HOUR,
  keepOnce,
  lines,
  writeTarget,
  type KeeperRun,
} from '../support/keeper.js';
import { until } from '../support/polling.js';
import { colleagueCloses, MARKET, type Simulator } from '../support/simulator.js';
import { oneFilled, eventIs, holds, nearMaturity, keeperCase } from './filled.js';
import { exits } from '../support/cli-runs.js';

/** A 7-day sell of 2,000 half an hour from maturity, kept as a 1-day row rolled 6 h ahead: its roll is due. */
function rollDue(simulator: Simulator) {
  const seeded = simulator.seedOpen('sell', 2000);
  nearMaturity(simulator);
  return { seeded, file: writeTarget(simulator, ['USDTNGN,sell,2000,1,,6h']) };
}

/** The server's next open refused (capacity_exceeded): a roll's, after its check before the close passed. */
const refuseNextOpen = (simulator: Simulator) =>
  simulator.sandbox.setFaults({
    nextError: { count: 1, status: 400, code: 'capacity_exceeded' },
    match: { method: 'POST', path: '/hedges' },
  });

/** After the keeper's roll of `hedgeId` was refused (`code`), a colleague closes it (`close`): the keeper reports the
 * drift, and re-opens nothing in the cycle after it. */
async function colleagueCloseStands(
  simulator: Simulator,
  keeper: KeeperRun,
  hedgeId: string,
  code: string,
  close: () => Promise<void>,
) {
  await eventAfter(keeper, 0, eventIs('error', { action: 'roll', code }), 'the refused roll');
  const refusedAt = keeper.events.length;
  await close();
  expect(
    (await eventAfter(keeper, refusedAt, eventIs('drift', { change: 'open' }), "the colleague's close")).hedge_ids,
  ).toEqual([hedgeId]);
  await eventAfter(keeper, keeper.events.length, eventIs('cycle'), 'a cycle after the drift');
  expect(simulator.requests('POST', '/hedges')).toEqual([]);
  expect(simulator.active('sell')).toHaveLength(0);
}

describeKeepers('hedge keep as a service', () => {
  keeperCase(
    "a colleague's close wins: it completes with exit 0, the keeper reports drift and does not re-open until the target says so again",
    { stepped: true },
    async (simulator, rig) => {
      const file = writeTarget(simulator, ['USDTNGN,sell,2000,7,,']);
      // Written well before the close: the target has not spoken since.
      utimesSync(file, new Date(Date.now() - HOUR), new Date(Date.now() - HOUR));
      const keeper = rig.keep(simulator, file);
      await eventAfter(keeper, 0, 'reopen', 'the first open');
      await oneFilled(simulator, 'sell', 'the fill');
      const first = filledActive(simulator, 'sell')[0];

      exits(await simulator.hedge(['close', MARKET, 'sell', '--yes']), 0);
      expect(hedgeOf(simulator, first.id).status).toBe('closed');
      expect(await eventAfter(keeper, 0, eventIs('drift', 'sell'), 'the drift event')).toMatchObject({
        change: 'open',
        notional_usd: 0,
        target_usd: 2000,
        hedge_ids: [first.id],
        message: expect.stringMatching(/not re-opened until the target/),
      });
      // Two more cycles: nothing re-opened, nothing sent.
      const opens = simulator.requests('POST', '/hedges').length;
      await eventAfter(keeper, keeper.events.length, 'cycle', 'a cycle');
      await eventAfter(keeper, keeper.events.length, 'cycle', 'another cycle');
      expect(simulator.requests('POST', '/hedges')).toHaveLength(opens);
      expect(simulator.active('sell')).toHaveLength(0);

      // The target says so again: the file rewritten, SIGHUP — the side is re-opened.
      writeTarget(simulator, ['USDTNGN,sell,2000,7,,']);
      const before = keeper.events.length;
      keeper.child().kill('SIGHUP');
      await eventAfter(keeper, before, eventIs('reopen', 'sell'), 'the re-open after the target changed');
      await oneFilled(simulator, 'sell', 'the re-opened fill');
      holds(simulator);
    },
  );

  keeperCase(
    "a target file that cannot be re-read (SIGHUP): the error event keeps the step's sentence as `message` and the file's problem under `error`, and the previous target stays",
    { stepped: true },
    async (simulator, rig) => {
      const file = writeTarget(simulator, ['USDTNGN,sell,2000,7,,']);
      const keeper = rig.keep(simulator, file);
      await eventAfter(keeper, 0, 'reopen', 'the first open');
      await oneFilled(simulator, 'sell', 'the fill');
      writeTarget(simulator, ['USDTNGN,sideways,2000,7,,']);
      const before = keeper.events.length;
      keeper.child().kill('SIGHUP');
      const error = await eventAfter(keeper, before, eventIs('error', { phase: 'reload' }), 'the reload error');
      expect(error).toMatchObject({
        message: 'the target file could not be re-read; the previous target stays',
        code: 'usage',
        error: { code: 'usage', message: expect.stringMatching(/:2: side: the value is not allowed/) },
      });
      // The previous target stays: a cycle after it, the side still held as it was, nothing more sent.
      const opens = simulator.requests('POST', '/hedges').length;
      await eventAfter(keeper, keeper.events.length, 'cycle', 'a cycle after the reload');
      expect(simulator.requests('POST', '/hedges')).toHaveLength(opens);
      holds(simulator);
    },
  );

  keeperCase(
    "one row's close that never answers does not hold another row's roll: it lands before that hedge matures",
    {},
    async (simulator, rig) => {
      const sell = simulator.seedOpen('sell', 2000);
      const buy = simulator.seedOpen('buy', 1000);
      // Both 7-day hedges 30 min from maturity, within roll_before (6 h): both rolls are due at once.
      nearMaturity(simulator);
      // The sell side's close is never answered (the server holds it without acting).
      const onSell = ({ body }: { body?: unknown }) => (body as { side?: string } | undefined)?.side === 'sell';
      simulator.sandbox.setFaults({
        stall: 'headers',
        match: (target) => target.method === 'POST' && target.path === '/hedges/close' && onSell(target),
      });
      // A long request bound, so the hung close stays in flight for the whole test.
      const keeper = rig.keep(
        simulator,
        writeTarget(simulator, ['USDTNGN,sell,2000,1,,6h', 'USDTNGN,buy,1000,1,,6h']),
        ['--request-timeout', '300'],
      );
      const sellCloses = () => simulator.requests('POST', '/hedges/close').filter(onSell);
      await until(() => sellCloses().length > 0, 'the sell close sent');
      // While the sell close is still unanswered, the buy row is rolled: closed and opened anew.
      await until(() => filledActive(simulator, 'buy').some((hedge) => hedge.id !== buy.id), 'the buy side rolled');
      expect(sellCloses()[0].status).toBe('stalled');
      expect(filledActive(simulator, 'buy').find((hedge) => hedge.id !== buy.id)!.openedAtMs).toBeLessThan(
        buy.maturityAtMs,
      );
      expect(hedgeOf(simulator, buy.id).closeReason).not.toBe('settled');
      holds(simulator, 1000, 'buy');
      // The hung row: still the old hedge, untouched by the server.
      expect(hedgeOf(simulator, sell.id).status).toBe('filled');
      await eventAfter(
        keeper,
        0,
        (event) =>
          event.event === 'cycle' && event.rows.some((row: any) => row.side === 'sell' && /in flight/.test(row.state)),
        'a cycle showing the sell step in flight',
      );
      // Still in flight, the sell step was not started again.
      expect(sellCloses()).toHaveLength(1);
    },
  );

  keeperCase(
    "a roll whose open the server refuses after its close is the keeper's to cover again, never taken for a colleague's drift: re-opened after a restart (the journal shows the roll closed it), and by a running keeper",
    { stepped: true },
    async (simulator, rig) => {
      const { seeded, file } = rollDue(simulator);
      refuseNextOpen(simulator);
      await keepOnce(simulator, file, 3);
      expect(hedgeOf(simulator, seeded.id).status).toBe('closed');
      expect(simulator.active('sell')).toHaveLength(0);
      const events = await keepOnce(simulator, file);
      expect([events.some(eventIs('reopen', 'sell')), events.some(eventIs('drift'))]).toEqual([true, false]);
      await oneFilled(simulator, 'sell', 'the re-opened fill');
      holds(simulator);

      // Half an hour before the re-opened 1-day hedge matures, its roll's open is refused the same way.
      const [reopened] = simulator.active('sell');
      simulator.advance(24 * HOUR - HOUR / 2);
      refuseNextOpen(simulator);
      const keeper = rig.keep(simulator, file);
      expect([
        (await eventAfter(keeper, 0, eventIs('error', { action: 'roll' }), 'the refused roll')).code,
        hedgeOf(simulator, reopened.id).status,
      ]).toEqual(['capacity_exceeded', 'closed']);
      await eventAfter(keeper, 0, eventIs('reopen', 'sell'), 'the re-open');
      await oneFilled(simulator, 'sell', "the running keeper's re-opened fill");
      expect([activeNotional(simulator, 'sell'), keeper.events.some(eventIs('drift'))]).toEqual([2000, false]);
    },
  );

  keeperCase(
    "a roll whose open would be refused (the market disabled) sends no close, and leaves the hedge the colleagues': their early close of it then stands as drift, nothing re-opened once the market takes hedges again",
    {},
    async (simulator, rig) => {
      const { seeded, file } = rollDue(simulator);
      // The simulator's own definition of the market: it stops taking new hedges.
      const market = (simulator.sandbox.engine as any).book.markets.find(
        (one: { market: string }) => one.market === MARKET,
      );
      market.status = 'disabled';
      // Then a colleague closes it, and the market takes hedges again.
      await colleagueCloseStands(simulator, rig.keep(simulator, file), seeded.id, 'market_disabled', async () => {
        // Refused before its close: the side is still covered by the hedge the roll would have closed.
        expect(simulator.requests('POST', '/hedges/close')).toHaveLength(0);
        expect(hedgeOf(simulator, seeded.id).status).toBe('filled');
        await colleagueCloses(simulator, 'sell');
        market.status = 'open';
      });
    },
  );

  keeperCase(
    "…and so is a roll whose close the server refused: the journal's roll of that hedge closed nothing",
    {},
    async (simulator, rig) => {
      const { seeded, file } = rollDue(simulator);
      // Every close is refused but the colleague's.
      let colleagues = false;
      simulator.sandbox.setFaults({
        nextError: { count: 1000, status: 409, code: 'hedge_locked' },
        match: ({ method, path }) => method === 'POST' && path === '/hedges/close' && !colleagues,
      });
      await colleagueCloseStands(simulator, rig.keep(simulator, file), seeded.id, 'hedge_locked', async () => {
        colleagues = true;
        await colleagueCloses(simulator, 'sell');
        colleagues = false;
      });
    },
  );

  keeperCase(
    'a dry run says what a cycle would do (the due roll of a drifted side too), refuses what a real run would (an unlisted market, a notional over the cap), marks every event dry_run and sends nothing; a roll_before as long as the tenor, or too short for a roll to land within --request-timeout, is exit 2 naming the line',
    {},
    async (simulator) => {
      /** `keep --dry-run` of the one target row, which must exit `exit`: its events. */
      const dryRun = async (row: string, exit: number, ...flags: string[]) =>
        lines(
          exits(await simulator.hedge(['keep', writeTarget(simulator, [row]), '--dry-run', ...flags]), exit).stdout,
        );
      expect((await dryRun('USDTNGN,sell,2000,1,,', 0)).find(eventIs('reopen'))).toMatchObject({
        dry_run: true,
        notional_usd: 2000,
      });
      for (const [row, code, exit, message] of [
        ['USDTXYZ,sell,2000,1,,', 'usage', 2, /not listed/],
        ['USDTNGN,sell,999999999,1,,', 'exposure_exceeded', 3, /exposure cap/],
      ] as const) {
        const events = await dryRun(row, exit);
        expect(events.find(eventIs('error'))).toMatchObject({
          code,
          dry_run: true,
          action: 'reopen',
          message: expect.stringMatching(message),
        });
        expect([events.find(eventIs('cycle'))!.rows[0].state, events.some(eventIs('reopen'))]).toEqual([
          'reopen would be refused',
          false,
        ]);
        for (const event of events) expect(event.dry_run, JSON.stringify(event)).toBe(true);
      }
      // --dry-run --converge: what converge would do, not "run with --converge".
      simulator.seedOpen('sell', 1500);
      const events = await dryRun('USDTNGN,sell,2000,7,,', 0, '--converge');
      expect(events.find(eventIs('converge'))).toMatchObject({
        action: 'add',
        notional_usd: 500,
        dry_run: true,
        message: expect.stringMatching(/^would add 500\.00 USD/),
      });
      expect(JSON.stringify(events)).not.toContain('run with --converge');
      expect(simulator.writes()).toHaveLength(0);
      // Drifted with its roll due as well: the roll a real run makes (of what the side holds, without --converge).
      nearMaturity(simulator);
      const [seeded] = simulator.hedges();
      expect((await dryRun('USDTNGN,sell,2000,7,,', 0)).find(eventIs('roll'))).toMatchObject({
        dry_run: true,
        notional_usd: 1500,
        hedge_ids: [seeded.id],
        message: `would roll: close ${seeded.id}, then open 1,500.00 USD for 7 days`,
      });
      expect(simulator.writes()).toHaveLength(0);
      exits(
        await simulator.hedge(['keep', writeTarget(simulator, ['USDTNGN,sell,2000,1,,1d'], 'long.csv'), '--once']),
        2,
        'long.csv:2: roll_before must be shorter than the tenor',
      );
      // One no roll could land within (--request-timeout, 15 s by default, after a cycle's reads): refused before any
      // request, never announced as a roll then left to settle; a shorter --request-timeout makes room for it.
      const sent = simulator.requests().length;
      const short = writeTarget(simulator, ['USDTNGN,buy,1000,1,,15s'], 'short.csv');
      for (const dry of [[], ['--dry-run']])
        expect(exits(await simulator.hedge(['keep', short, '--once', ...dry]), 2).stderr).toBe(
          `hedge: ${short}:2: roll_before 15 s leaves no time to roll: a roll's close must land before the maturity, and may take --request-timeout (15 s) after the cycle's reads (2 s); allowed: more than 17 s (or a shorter --request-timeout), or 0 to let each hedge settle.\n`,
        );
      expect(simulator.requests()).toHaveLength(sent);
      const room = await simulator.hedge(['keep', short, '--once', '--request-timeout', '5']);
      expect(room.code).toBe(0);
      expect(simulator.actions('/hedges').map((entry) => (entry.body as { side: string }).side)).toEqual(['buy']);
    },
  );
});
