// hedge keep against the simulator, as real processes: the keeper's clock is the server's (its Date
// header), and the test moves the server's clock with advance() instead of waiting for maturities.
// Every assertion is on the server's own state (its hedges, its request log) or on the events the
// keeper printed, each of which must be valid JSON.
import {
  activeNotional,
  describeKeepers,
  eventAfter,
  filledActive,
  hedgeOf,
  HOUR,
  keeperTest,
  keepOnce,
  lines,
  stopKeeper,
  writeTarget,
  type KeeperRig,
} from '../support/keeper.js';
import { until } from '../support/polling.js';
import { colleagueOpens, FROZEN_START_MS, MARKET, type Simulator } from '../support/simulator.js';
import { oneFilled, eventIs, holds, keeperCase } from './filled.js';
import { exits, journalEntries } from '../support/cli-runs.js';

/**
 * A sell side of 1,500 kept at 2,000 on a server whose adds land only when the test moves its clock
 * (until then the book still shows 1,500), and whose answers to them are lost.
 */
async function addAnswerLost(rig: KeeperRig) {
  // untimed: an in-process run's --timeout counts its pauses alone, none of a loaded machine's start-up and reads.
  const simulator = await rig.start({ stepped: true, untimed: true, fillDelayMs: HOUR });
  simulator.seedOpen('sell', 1500);
  const file = writeTarget(simulator, ['USDTNGN,sell,2000,7,,']);
  simulator.sandbox.setFaults({ dropAfterCommit: 1, match: { method: 'POST', path: '/hedges/add' } });
  return { simulator, file };
}

/** Every key the server has seen on POST `path` (adds unless told). */
const keysOf = (simulator: Simulator, path = '/hedges/add') =>
  new Set(simulator.requests('POST', path).map((entry) => entry.idempotencyKey));

describeKeepers('hedge keep', 3, () => {
  keeperCase(
    "with no Date header, the server's clock comes from the stamps on its answers: 45 s ahead on a short day, a colleague's hedge 20 s from its maturity is rolled before it with no open of the keeper's own answered yet (never taken as settling), and so is the hedge that roll opened: none settles",
    // The keeper is a process of its own on the server's real-time clock: a day long enough that its rolls (within
    // roll_before, 15 s) and this test's stop (before the next roll, 5 s) hold on a loaded machine, short of the skew.
    { noDateHeader: true, dayMs: 20_000 },
    async (simulator, rig) => {
      // A tenor day lasts 20 s; the server's clock runs 45 s ahead of this machine's; roll_before 15 s,
      // over seven cycles of the keeper. Nothing this keeper sent dates the server's clock before its first
      // roll: it knows it from below only (the stamps it reads).
      simulator.advance(45_000);
      await colleagueOpens(simulator, 'sell', 2000, 1);
      const [held] = simulator.active('sell');
      const file = writeTarget(simulator, ['USDTNGN,sell,2000,1,,15s']);
      const sells = () =>
        simulator.hedges().filter((hedge) => hedge.side === 'sell' && ['filled', 'closed'].includes(hedge.status));
      // Held to its maturity: settled there, or still filled past it.
      const matured = () =>
        sells()
          .filter((hedge) => hedge.maturityAtMs <= (hedge.closedAtMs ?? simulator.sandbox.clock.now()))
          .map((hedge) => hedge.id);
      // A roll is sent only while its close lands (within a request's bound) before the maturity: 5 s, short of roll_before.
      const keeper = rig.keep(simulator, file, ['--request-timeout', '5']);
      await until(() => keeper.events.filter(eventIs('roll')).length >= 2 || matured().length > 0, 'two rolls', {
        process: keeper.done,
      });
      expect(matured()).toEqual([]);
      expect(hedgeOf(simulator, held.id).closedAtMs).toBeLessThan(held.maturityAtMs);
      await oneFilled(simulator, 'sell', 'the second roll filled');
      await stopKeeper(keeper);
      expect(matured()).toEqual([]);
      expect(sells().filter((hedge) => hedge.status === 'closed')).toHaveLength(2);
      expect(simulator.sends('/hedges/close')).toHaveLength(2);
      expect(JSON.stringify(keeper.events)).not.toContain('past its maturity');
      expect(keeper.events.find((event) => event.code === 'server_time_from_stamps')?.message).toMatch(
        /its clock is 45 s ahead of this machine's, give or take \d+ ms \(from the stamps on its answers\)/,
      );
    },
  );

  keeperCase(
    'a short day (24 s) with 15% of the requests answered 429, an interval of 60 s: the keeper wakes when each roll falls due (roll_before 16 s, --request-timeout 5) and after each step, rolls every hedge before its maturity, and the server acts open, close, open…: no hedge settles, the side is never uncovered between them',
    // The keeper is a process of its own on the server's real-time clock: a tenor day long enough that a roll (due 16 s
    // before the maturity, its close sent while 5 s remain, after reads each 429 puts a second later) holds on a loaded
    // machine; at an interval's pace, none would come before a maturity.
    { dayMs: 24_000 },
    async (simulator, rig) => {
      simulator.sandbox.setFaults({ fault429: 0.15 });
      const file = writeTarget(simulator, ['USDTNGN,sell,2000,1,,16s']);
      const sells = () => simulator.hedges().filter((hedge) => hedge.side === 'sell');
      // Held to its maturity: settled there, or still filled past it.
      const matured = () =>
        sells()
          .filter((hedge) => hedge.maturityAtMs <= (hedge.closedAtMs ?? simulator.sandbox.clock.now()))
          .map((hedge) => hedge.id);
      const keeper = rig.keep(simulator, file, ['--interval', '60', '--request-timeout', '5']);
      await until(() => keeper.events.filter(eventIs('roll')).length >= 2 || matured().length > 0, 'two rolls', {
        process: keeper.done,
      });
      await oneFilled(simulator, 'sell', 'the second roll filled');
      await stopKeeper(keeper);
      expect(matured()).toEqual([]);
      // What the server carried out, in order: each close a roll's, each open after it; never two opens in a row.
      expect(simulator.actions(/^\/hedges(\/close)?$/).map((entry) => entry.path)).toEqual([
        '/hedges',
        '/hedges/close',
        '/hedges',
        '/hedges/close',
        '/hedges',
      ]);
      expect(simulator.requests().filter((entry) => entry.status === 429).length).toBeGreaterThan(0);
      // Within a minute's interval, the cycles came at each roll's time and after each step.
      expect(keeper.events.filter(eventIs('cycle')).length).toBeGreaterThanOrEqual(4);
      expect(JSON.stringify(keeper.events)).not.toContain('left to settle');
    },
  );

  keeperCase(
    "a covered side 3 s from its maturity, its roll due (roll_before 20s) but its close unable to land within --request-timeout 5: nothing is sent; the hedge left to settle is a skip event saying why, and the row's state in the cycle and in keep status",
    // Both clocks moved by the run's pauses alone: a loaded machine's slow reads never bring the maturity nearer.
    { stepped: true, untimed: true, realNow: () => FROZEN_START_MS },
    async (simulator) => {
      const held = simulator.seedOpen('sell', 2000);
      simulator.advance(held.maturityAtMs - simulator.sandbox.clock.now() - 3_000);
      const file = writeTarget(simulator, ['USDTNGN,sell,2000,7,,20s']);
      const events = await keepOnce(simulator, file, 0, '--request-timeout', '5');
      const why =
        /^covered; matures .* UTC, before a roll's close could land \(within --request-timeout\): left to settle, and re-opened once it has$/;
      expect(events.find(eventIs('skip', 'sell'))).toMatchObject({
        notional_usd: 2000,
        reason: expect.stringMatching(why),
      });
      expect(events.find(eventIs('cycle'))!.rows[0]).toMatchObject({
        state: expect.stringMatching(why),
        next_action: null,
      });
      const status = JSON.parse(exits(await simulator.hedge('keep status --json'), 15).stdout);
      expect(status.heartbeat.rows[0].state).toMatch(why);
      expect(simulator.writes()).toEqual([]);
    },
  );

  keeperCase(
    'on a server with its own name for the add/reduce amount (beta), --once --converge brings a side back: its add refused once for the name, then sent under it and landed',
    { stepped: true, dialect: 'beta', fillDelayMs: 20 },
    async (simulator) => {
      simulator.seedOpen('sell', 1500);
      const events = await keepOnce(simulator, writeTarget(simulator, ['USDTNGN,sell,2000,7,,']), 0, '--converge');
      holds(simulator);
      expect(simulator.requests('POST', '/hedges/add').map((entry) => [entry.status, entry.body])).toEqual([
        [400, { market: MARKET, side: 'sell', notional_usd: 500 }],
        [200, { market: MARKET, side: 'sell', delta_usd: 500 }],
      ]);
      expect(events.filter(eventIs('error'))).toEqual([]);
    },
  );

  keeperTest(
    'an add whose answer was lost is finished by its own key on the next cycles, never sent again with a new one',
    async ({ rig }) => {
      const { simulator, file } = await addAnswerLost(rig);
      expect((await keepOnce(simulator, file, 5, '--converge', '--timeout', '5')).find(eventIs('error'))).toMatchObject(
        {
          action: 'drift',
          code: 'outcome_unknown',
        },
      );
      simulator.sandbox.setFaults({ dropAfterCommit: 0, match: null });

      // Still 1,500 on the book: the keeper finishes the add by its key (still pending) and adds nothing new.
      const held = (await keepOnce(simulator, file, 7, '--converge', '--timeout', '4')).find(eventIs('skip', 'sell'));
      expect(held?.reason).toMatch(/unresolved|left alone/);
      expect(keysOf(simulator).size).toBe(1);

      simulator.advance(HOUR + 1);
      const done = await keepOnce(simulator, file, 0, '--converge');
      expect([
        keysOf(simulator).size,
        activeNotional(simulator, 'sell'),
        done.some(eventIs('converge', { resumed: true })),
      ]).toEqual([1, 2000, true]);
    },
  );

  keeperTest(
    'a running keeper finishes its own lost add by its key on a later cycle, without a restart',
    async ({ rig }) => {
      // A keeper lives for weeks: an action of its own whose answer was lost must not stay held by its
      // own process (every later cycle would then see it "in progress" and leave the side alone).
      const { simulator, file } = await addAnswerLost(rig);
      const keeper = rig.keep(simulator, file, ['--converge', '--timeout', '5']);
      expect(await eventAfter(keeper, 0, eventIs('error', { code: 'outcome_unknown' }), 'the lost add')).toMatchObject({
        action: 'drift',
        side: 'sell',
      });
      simulator.sandbox.setFaults({ dropAfterCommit: 0, match: null });

      const afterLoss = keeper.events.length;
      simulator.advance(HOUR + 1);
      expect(
        (await eventAfter(keeper, afterLoss, eventIs('converge', { resumed: true }), 'the add finished by its key'))
          .side,
      ).toBe('sell');
      await until(
        () => filledActive(simulator, 'sell').length > 0 && activeNotional(simulator, 'sell') === 2000,
        'the side at 2,000',
      );
      expect(keysOf(simulator).size).toBe(1);
      expect(
        keeper.events
          .slice(afterLoss)
          .some((event) => event.event === 'skip' && /another process/.test(String(event.reason))),
      ).toBe(false);

      await stopKeeper(keeper);
      holds(simulator);
    },
  );

  keeperCase(
    'holds a 1-day sell of 2,000 through a roll and a settlement; SIGTERM during its next roll lets the roll finish: exit 0, nothing unresolved, the side covered',
    { stepped: true },
    async (simulator, rig) => {
      const file = writeTarget(simulator, ['USDTNGN,sell,2000,1,,6h']);
      const keeper = rig.keep(simulator, file);

      const opened = await eventAfter(keeper, 0, 'reopen', 'the first open');
      await oneFilled(simulator, 'sell', 'the fill');
      holds(simulator);
      const first = filledActive(simulator, 'sell')[0];
      expect(opened.hedge_ids).toEqual([first.id]);
      expect(opened.journal_id).toMatch(/^[0-9a-z]/);
      // NDJSON keeps its fields in one order, as docs/keep.md lists them.
      expect(Object.keys(opened).slice(-6)).toEqual([
        'notional_usd',
        'tenor_days',
        'hedge_ids',
        'journal_id',
        'journal_group',
        'idempotency_key',
      ]);

      // 19 h on, the 1-day hedge matures within roll_before (6 h): the next cycle rolls it.
      const beforeRoll = keeper.events.length;
      simulator.advance(19 * HOUR);
      const rolled = await eventAfter(keeper, beforeRoll, 'roll', 'the roll');
      /** Waits until the side holds one filled hedge, not the one `id` names. */
      const filledAfter = (id: string, what: string) =>
        until(() => filledActive(simulator, 'sell').length === 1 && filledActive(simulator, 'sell')[0].id !== id, what);
      await filledAfter(first.id, 'the rolled hedge filled');
      const second = filledActive(simulator, 'sell')[0];
      expect(rolled.hedge_ids).toEqual([first.id, second.id]);
      expect(rolled.journal_group).toMatch(/^roll-/);
      expect(rolled.journal_id).not.toBe(rolled.journal_group);
      holds(simulator);
      expect(hedgeOf(simulator, first.id).status).not.toBe('filled');

      // Past the second maturity at once: it settles on the server; the keeper re-opens the side.
      const beforeSettle = keeper.events.length;
      simulator.advance(30 * HOUR);
      await eventAfter(keeper, beforeSettle, 'reopen', 'the re-open after the settlement');
      await filledAfter(second.id, 'the re-opened hedge filled');
      holds(simulator);
      expect(simulator.historyCount()).toBeGreaterThanOrEqual(2);

      // 19 h on again, the re-opened hedge's roll is due: SIGTERM once its close is sent.
      const [third] = filledActive(simulator, 'sell');
      const [beforeLast, closes] = [keeper.events.length, simulator.requests('POST', '/hedges/close').length];
      simulator.advance(19 * HOUR);
      await until(() => simulator.requests('POST', '/hedges/close').length > closes, "the last roll's close");
      const events = await stopKeeper(keeper);
      expect([events.slice(beforeLast).some(eventIs('roll')), events.at(-1)!.event]).toEqual([true, 'stop']);
      await oneFilled(simulator, 'sell', 'the last roll filled');
      expect(filledActive(simulator, 'sell')[0].id).not.toBe(third.id);
      holds(simulator);
      expect(events.filter(eventIs('cycle')).length).toBeGreaterThanOrEqual(3);
      for (const event of events) expect(typeof event.at).toBe('string');
      // Nothing is left half-done in the journal.
      expect(await journalEntries(simulator, '--pending')).toEqual([]);
      // At target and far from maturity: a --once cycle sends nothing.
      const writes = simulator.writes().length;
      await keepOnce(simulator, file);
      expect(simulator.writes()).toHaveLength(writes);
    },
  );

  for (const moment of ['after the close was sent', 'after the new open was sent'] as const) {
    keeperCase(
      `a keeper killed with -9 mid-roll (${moment}) and started again keeps 2,000, never 4,000`,
      {},
      async (simulator, rig) => {
        const file = writeTarget(simulator, ['USDTNGN,sell,2000,1,,6h']);
        const seeded = simulator.seedOpen('sell', 2000);
        const path = moment === 'after the close was sent' ? '/hedges/close' : '/hedges';
        const before = simulator.requests('POST', path).length;
        // The seeded hedge is a 7-day one: 5 h before its maturity, within roll_before.
        simulator.advance(7 * 24 * HOUR - 5 * HOUR);
        const keeper = rig.keep(simulator, file);
        await until(() => simulator.requests('POST', path).length > before, moment, { process: keeper.done });
        keeper.child().kill('SIGKILL');
        await keeper.done;

        const events = await keepOnce(simulator, file);
        await until(
          () => simulator.active('sell').every((hedge) => hedge.status === 'filled'),
          'every sell hedge resolved',
        );
        holds(simulator);
        expect(simulator.active('sell')).toHaveLength(1);
        expect(simulator.active('sell')[0].id).not.toBe(seeded.id);
        expect(events.some(eventIs('roll', { resumed: true }))).toBe(true);
      },
    );
  }

  keeperCase(
    'a second SIGTERM stops the step in progress: exit 143, its open left unresolved and finished by the next start',
    { stepped: true, fillDelayMs: HOUR },
    async (simulator, rig) => {
      const file = writeTarget(simulator, ['USDTNGN,buy,1000,3,,']);
      const keeper = rig.keep(simulator, file);
      await until(() => simulator.requests('POST', '/hedges').length === 1, 'the open');
      keeper.child().kill('SIGTERM');
      // Two signals sent at once may reach the process as one: the second goes once the first was taken.
      await eventAfter(keeper, 0, eventIs('stop', { phase: 'requested' }), 'the first signal taken');
      expect(keeper.ended()).toBeUndefined();
      keeper.child().kill('SIGTERM');
      expect(lines(exits(await keeper.done, 143).stdout).at(-1)).toMatchObject({ event: 'stop' });
      expect(await journalEntries(simulator, '--pending')).toHaveLength(1);

      simulator.advance(HOUR + 1);
      await keepOnce(simulator, file);
      expect([keysOf(simulator, '/hedges').size, activeNotional(simulator, 'buy')]).toEqual([1, 1000]);
    },
  );

  keeperCase(
    'SIGTERM at each moment of start-up and the first cycle (its open sent, its first request, at once) never leaves a hang or a doubled side',
    {},
    async (simulator, rig) => {
      const file = writeTarget(simulator, ['USDTNGN,sell,2000,1,,6h']);
      // Each moment is seen on the server's request log, whatever this machine's speed; the side is flat for the first.
      const moments: Array<[string, (before: number) => boolean]> = [
        ['its open sent', (before) => simulator.requests('POST', '/hedges').length > before],
        ['its first request', (before) => simulator.requests().length > before],
        ['at once', () => true],
      ];
      for (const [moment, reached] of moments) {
        const before =
          moment === 'its open sent' ? simulator.requests('POST', '/hedges').length : simulator.requests().length;
        const keeper = rig.keep(simulator, file);
        await until(() => keeper.child() !== undefined && reached(before), moment, { process: keeper.done });
        keeper.child().kill('SIGTERM');
        const result = await keeper.done;
        // Killed by the signal before Node set up its handlers, or stopped cleanly by the keeper.
        expect(
          [result.code === 0, result.code === null && result.signal === 'SIGTERM'],
          `${moment}: ${result.stderr}`,
        ).toContain(true);
      }
      await keepOnce(simulator, file);
      await until(() => simulator.active('sell').every((hedge) => hedge.status === 'filled'), 'the fill');
      expect(activeNotional(simulator, 'sell')).toBe(2000);
    },
  );

  keeperCase(
    'a row past `until` is left to mature and not renewed; near `until`, a flat side is re-opened for what is left of the exposure, not the full tenor; a target of 0 closes what is left (--converge) and never renews it, even at maturity',
    { stepped: true },
    async (simulator) => {
      const untilIn = (hours: number) =>
        new Date(simulator.sandbox.clock.now() + hours * HOUR).toISOString().replace(/\.\d+Z$/, 'Z');
      const file = writeTarget(simulator, [
        `USDTNGN,sell,2000,1,${untilIn(10)},6h`,
        `USDTNGN,buy,1000,7,${untilIn(48)},`,
      ]);
      const events = await keepOnce(simulator, file);
      await oneFilled(simulator, 'sell', 'the fill');
      await oneFilled(simulator, 'buy', 'the buy fill');
      expect(filledActive(simulator, 'buy')[0].tenorDays).toBe(3);
      expect(events.find(eventIs('reopen', 'buy'))).toMatchObject({ tenor_days: 3 });
      simulator.advance(19 * HOUR);
      expect((await keepOnce(simulator, file)).find(eventIs('skip', 'sell'))?.reason).toMatch(/until/);
      expect(simulator.requests('POST', '/hedges/close')).toHaveLength(0);
      simulator.advance(10 * HOUR);
      await keepOnce(simulator, file);
      expect(simulator.active('sell')).toHaveLength(0);
      // One open of each side: the sell never renewed.
      expect(
        simulator
          .requests('POST', '/hedges')
          .map((entry) => (entry.body as any).side)
          .sort(),
      ).toEqual(['buy', 'sell']);

      // Half an hour before the 3-day buy matures, a target of 0 closes what is left (--converge) and never renews it.
      simulator.advance(42 * HOUR + HOUR / 2);
      expect(
        (await keepOnce(simulator, writeTarget(simulator, ['USDTNGN,buy,0,,,']), 0, '--converge')).find(
          eventIs('converge'),
        ),
      ).toMatchObject({ action: 'close' });
      await until(() => simulator.active('buy').length === 0, 'the side closed');
      expect(simulator.sends('/hedges')).toHaveLength(2);
    },
  );
});
