// One book from every view, end to end: a server that follows the spec but whose positions list
// and history show each change a lag after the hedge record does (an indexer that trails), with
// several hedges of a side aggregated into one positions line. What is asserted is the server's own
// state, sampled while the commands run, and its request log.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exits, journalEntries, ok, okJson } from '../support/cli-runs.js';
import { startRewriteProxy } from '../support/servers/field-proxy.js';
import {
  activeNotional,
  eventAfter,
  eventsOf,
  filledActive,
  hedgeOf,
  HOUR,
  startKeeper,
  type KeeperRun,
  writeTarget,
} from '../support/keeper.js';
import { until } from '../support/polling.js';
import { tempDirsInMemory, type HedgeArgs } from '../support/hedge-cli.js';
import { colleagueOpens, envFor, MARKET, withSimulator, type Simulator } from '../support/simulator.js';

tempDirsInMemory();

// Side by side, each with a simulator of its own: the keepers' lags and cycles pass in real time, the commands' on
// hedge's stepped clock. The keeper's lag outlasts its 2 s cycle, so a cycle falls inside it.
const LAG_MS = 3_000;
/** A command's server: views a lag behind, hedge on its stepped clock. */
const TRAILING = { viewLagMs: 1_500, stepped: true };

describe.concurrent('a keeper on a server whose positions list and history trail the hedge records by 3 s', () => {
  /** Waits until the keeper ran `count` more cycles: at 2 s each, two of them outlast the lag. */
  async function cyclesAfter(keeper: KeeperRun, count: number) {
    const cycles = () => eventsOf(keeper, 'cycle').length;
    const before = cycles();
    await until(() => cycles() >= before + count, `${count} more cycles`);
  }

  /** Runs the keeper on DEAL-7's row (1,000 buy, 1-day, rolled 6 h before maturity) while the side's notional is read on
   * the server as each request reaches it (so every state the last one left is seen) and at the end: the largest. */
  async function withKeeper(simulator: Simulator, body: (keeper: KeeperRun) => Promise<void>) {
    const file = join(simulator.configDir, 'target.csv');
    writeFileSync(
      file,
      `market,side,notional_usd,tenor_days,client_reference,until,roll_before\n${MARKET},buy,1000,1,DEAL-7,,6h\n`,
    );
    let largest = activeNotional(simulator, 'buy');
    const sample = () => (largest = Math.max(largest, activeNotional(simulator, 'buy')));
    // The server changes its state only as it handles a request: read before each is logged, none is missed.
    const log = simulator.sandbox.requestLog;
    log.push = (...entries) => (sample(), Array.prototype.push.apply(log, entries));
    const keeper = startKeeper(simulator, file);
    try {
      await body(keeper);
      return sample();
    } finally {
      Reflect.deleteProperty(log, 'push');
      keeper.child().kill('SIGTERM');
      await keeper.done;
    }
  }

  const references = (simulator: Simulator) =>
    simulator.requests('POST', '/hedges').map((entry) => (entry.body as any).client_reference);

  it("the keeper never re-opens a side its own open just opened: one open, with the row's reference, and the side holds the target once the views catch up", () =>
    withSimulator({ viewLagMs: LAG_MS, severalPerSide: true }, async (simulator) => {
      const largest = await withKeeper(simulator, async (keeper) => {
        await eventAfter(keeper, 0, 'reopen', 'the first open');
        await until(() => filledActive(simulator, 'buy').length === 1, 'the fill');
        await cyclesAfter(keeper, 2);
        expect(eventsOf(keeper, 'reopen')).toHaveLength(1);
      });
      expect([largest, activeNotional(simulator, 'buy'), references(simulator)]).toEqual([1000, 1000, ['DEAL-7']]);
    }));

  it("the keeper never re-opens a side its own roll just re-opened: the side holds the target through the roll, and the hedge it opened carries the row's reference", () =>
    withSimulator({ viewLagMs: LAG_MS, severalPerSide: true }, async (simulator) => {
      // The side as the keeper's earlier run left it: DEAL-7's hedge filled, shown in every view.
      await colleagueOpens(simulator, 'buy', 1000, 1, 'DEAL-7');
      simulator.advance(LAG_MS + 1);
      const old = filledActive(simulator, 'buy')[0].id;
      // Into roll_before of the 1-day hedge: the keeper's first cycle rolls it.
      simulator.advance(19 * HOUR);
      const largest = await withKeeper(simulator, async (keeper) => {
        await eventAfter(keeper, 0, 'roll', 'the roll');
        await until(
          () => filledActive(simulator, 'buy').length === 1 && filledActive(simulator, 'buy')[0].id !== old,
          'the roll filled',
        );
        await cyclesAfter(keeper, 2);
        expect(eventsOf(keeper, 'reopen')).toHaveLength(0);
      });
      expect([largest, activeNotional(simulator, 'buy'), references(simulator)]).toEqual([
        1000,
        1000,
        ['DEAL-7', 'DEAL-7'],
      ]);
      // The roll's open was seen in the positions list before the roll ended: at least the lag after it was sent.
      const rollOpen = simulator.requests('POST', '/hedges')[1].realTimeMs;
      expect(
        simulator.requests('GET', '/positions').filter((entry) => entry.realTimeMs >= rollOpen + LAG_MS).length,
      ).toBeGreaterThan(0);
    }));
});

describe.concurrent('commands on a server whose positions list and history trail the hedge records', () => {
  it('open, then at once reduce the whole of it: the reduce waits for the side in every view and exits 0 on its own effect; a roll right after an open rolls the side once, with its reference, and exits 0 once both views show the new hedge', () =>
    withSimulator(TRAILING, async (simulator) => {
      ok(await simulator.hedge('open USDTNGN sell 2000 --tenor 1'));
      // Exit 0 of the open came once the positions list showed its fill too.
      expect(simulator.hedges()[0].status).toBe('filled');
      const reduced = ok(await simulator.hedge('reduce USDTNGN sell 2000 --json'));
      expect(reduced.stderr).not.toContain('cannot be watched');
      expect([simulator.sends('/hedges/reduce').length, simulator.active('sell')]).toEqual([1, []]);

      ok(await simulator.hedge('open USDTNGN buy 1500 --tenor 1 --ref DEAL-9'));
      ok(await simulator.hedge('roll USDTNGN buy --tenor 3 --yes --json'));
      expect(simulator.sends('/hedges/close')).toHaveLength(1);
      expect(simulator.active('buy')).toMatchObject([
        { notionalUsd: 1500, tenorDays: 3, clientReference: 'DEAL-9', status: 'filled' },
      ]);
      const positions = await simulator.api('GET', '/positions');
      expect(positions.body.data).toMatchObject([{ notional_usd: 1500, hedge_id: simulator.active('buy')[0].id }]);
    }));

  it('an open whose hedge matures while the positions list still trails its fill exits 0: the hedge was seen filled, and has ended on its record since', () =>
    // The positions list an hour behind: it shows the fill only after the hedge has matured.
    withSimulator({ viewLagMs: HOUR, stepped: true }, async (simulator) => {
      const run = simulator.hedge('open USDTNGN sell 1000 --tenor 1 --json --timeout 20');
      // The fill is on the record and the open is reading the positions list for it: its wait for every view.
      await until(
        () => simulator.hedges()[0]?.status === 'filled' && simulator.requests('GET', '/positions').length >= 2,
        'the open waiting for the positions list',
        15_000,
      );
      const hedge = simulator.hedges()[0];
      simulator.advance(30 * HOUR);
      const opened = ok(await run);
      expect(JSON.parse(opened.stdout)).toMatchObject({ id: hedge.id, status: 'filled' });
      // One open, and the server's hedge has settled since.
      expect(simulator.sends('/hedges')).toHaveLength(1);
      expect(hedgeOf(simulator, hedge.id).status).not.toBe('filled');
    }));

  it("apply right after another client's open plans from the side in every view: at target, nothing more is sent; a side that aggregates several hedges: roll closes the side whole, says so before it sends, and opens one hedge of their sum carrying the soonest-maturing deal's reference", () =>
    withSimulator({ ...TRAILING, severalPerSide: true }, async (simulator) => {
      // Opened by another client (the partner desk): filled on its record, the positions list a lag behind.
      await colleagueOpens(simulator, 'sell', 1000, 3);
      expect(simulator.active('sell')).toMatchObject([{ status: 'filled', notionalUsd: 1000 }]);
      ok(await simulator.hedge(`apply ${writeTarget(simulator, [`${MARKET},sell,1000,3,,`])} --yes --json`));
      expect(simulator.writes().filter((entry) => entry.path !== '/quotes')).toHaveLength(1);
      expect(simulator.active('sell').map((hedge) => hedge.notionalUsd)).toEqual([1000]);

      ok(await simulator.hedge('open USDTNGN buy 1000 --tenor 1 --ref DEAL-A'));
      // A second hedge on the same side by another client, maturing later, with its own deal.
      await colleagueOpens(simulator, 'buy', 500, 7, 'DEAL-B');
      expect(
        simulator
          .active('buy')
          .map((hedge) => hedge.notionalUsd)
          .sort(),
      ).toEqual([1000, 500].sort());
      const rolled = ok(await simulator.hedge('roll USDTNGN buy --tenor 3 --yes --json'));
      // Said before anything was sent (the preview on stderr), and in the outcome.
      expect(rolled.stderr).toContain('all 2 of its hedges');
      expect(rolled.stdout + rolled.stderr).toMatch(/holds 2 hedges/);
      expect(rolled.stdout + rolled.stderr).toContain('DEAL-B is not carried on');
      expect(simulator.sends('/hedges/close')).toHaveLength(1);
      expect(simulator.requests('POST', '/hedges').at(-1)!.body).toMatchObject({
        notional_usd: 1500,
        tenor_days: 3,
        client_reference: 'DEAL-A',
      });
      expect(simulator.active('buy')).toMatchObject([
        { notionalUsd: 1500, tenorDays: 3, clientReference: 'DEAL-A', status: 'filled' },
      ]);
    }));

  it('a side of two hedges, on a positions list that shows no notional hedge can read (the spec names no field for it): add, reduce and roll size it from all its hedge records (not the one hedge its line names); each exits 0 on its own effect, and the roll re-opens what the side held', () =>
    withSimulator({ ...TRAILING, severalPerSide: true }, async (simulator) => {
      const proxy = await startRewriteProxy(simulator.sandbox, (path, item) => {
        // Every name hedge would try for a position's notional (api/wire/fields.ts), gone.
        if (path === '/positions')
          for (const name of Object.keys(item))
            if (/notional|size|amount|exposure|position_usd/.test(name)) delete item[name];
      });
      try {
        const run = (args: HedgeArgs) => simulator.hedge(args, { env: envFor(proxy) });
        ok(await run('open USDTNGN buy 1000 --tenor 1'));
        // A second hedge of the side by another client: the line names one hedge, the side holds both.
        await colleagueOpens(simulator, 'buy', 400, 7);
        for (const [args, held] of [
          ['add USDTNGN buy 500 --json', 1900],
          ['reduce USDTNGN buy 300 --json', 1600],
        ] as const) {
          ok(await run(args));
          expect(activeNotional(simulator, 'buy')).toBe(held);
        }
        ok(await run('roll USDTNGN buy --tenor 3 --yes --json'));
        expect(
          simulator
            .writes()
            .filter((entry) => entry.path !== '/quotes')
            .map((entry) => entry.path),
        ).toEqual(['/hedges', '/hedges', '/hedges/add', '/hedges/reduce', '/hedges/close', '/hedges']);
        expect(simulator.active('buy')).toMatchObject([{ notionalUsd: 1600, tenorDays: 3, status: 'filled' }]);
      } finally {
        await proxy.close();
      }
    }));
});

// A service whose reads come from a replica behind its primary: a hedge it just named in its answer to an open
// reads as 404 and is missing from its list (recordLagMs), and the positions list, history and account trail
// too (viewLagMs). The lag is on the simulator's clock, an hour long: it ends when a test moves that clock,
// never by itself while a command runs.
describe.concurrent('commands on a server whose reads of a new hedge trail its answer (a replica behind)', () => {
  const RECORD_LAG_MS = HOUR;
  const REPLICA = { recordLagMs: RECORD_LAG_MS, viewLagMs: RECORD_LAG_MS, stepped: true };
  /** The requests for the hedge the server holds (its only one) that were answered 404. */
  const hiddenReads = (simulator: Simulator) => {
    const id = simulator.hedges()[0]?.id;
    return id === undefined ? [] : simulator.requests('GET', `/hedges/${id}`).filter((entry) => entry.status === 404);
  };
  /** Starts `args` and waits until it has read the side twice more (each read lists the hedges twice) without the open's hedge. */
  async function readingAgain(simulator: Simulator, args: string) {
    const listed = () => simulator.requests('GET', '/hedges').length;
    const before = listed();
    const run = simulator.hedge(args);
    await until(() => listed() >= before + 4, `${args} reading the side again`, { process: run });
    return { run };
  }

  it("open polls its hedge through the replica's 404s, not found never, and exits 0 once it is visible and filled: one POST /hedges", () =>
    withSimulator(REPLICA, async (simulator) => {
      const run = simulator.hedge('open USDTNGN sell 1000 --tenor 1 --json');
      await until(() => hiddenReads(simulator).length >= 2, 'two polls of the hedge answered 404', { process: run });
      simulator.advance(RECORD_LAG_MS);
      const opened = okJson(await run);
      const hedge = simulator.hedges()[0];
      expect([opened.id, opened.status, hedge.status]).toEqual([hedge.id, 'filled', 'filled']);
      expect(simulator.sends('/hedges')).toHaveLength(1);
      expect(hiddenReads(simulator).length).toBeGreaterThanOrEqual(2);
      const [entry] = await journalEntries(simulator);
      expect([entry.command, entry.outcome, entry.hedge_id]).toEqual(['open', 'filled', hedge.id]);
    }));

  it('open whose hedge stays hidden past --timeout: the wait ran out (exit 7) with its key, not "not found"; the entry stays resumable and resume finishes it once', () =>
    // --timeout 4 on a clock the run's pauses alone move: a loaded machine's reads before the send take none of it.
    withSimulator({ ...REPLICA, untimed: true }, async (simulator) => {
      const result = exits(await simulator.hedge('open USDTNGN sell 1000 --tenor 1 --json --timeout 4'), 7);
      const hedge = simulator.hedges()[0];
      expect(hiddenReads(simulator).length).toBeGreaterThanOrEqual(1);
      expect(result.stderr).not.toContain('hedge_not_found');
      const [entry] = await journalEntries(simulator);
      expect([entry.outcome, entry.hedge_id]).toEqual(['submitted', hedge.id]);
      exits(result, 7, entry.idempotency_key);
      simulator.advance(RECORD_LAG_MS);
      ok(await simulator.hedge(`resume ${entry.id} --json`));
      expect(simulator.sends('/hedges')).toHaveLength(1);
      expect((await journalEntries(simulator))[0]).toMatchObject({ id: entry.id, outcome: 'filled' });
    }));

  it('apply right after an open --no-wait plans from the hedge the open was answered with: at target, no second open; an add right after an open --no-wait waits for the hedge the open was answered with, then adds to it: never a refusal of a side that is open', () =>
    withSimulator({ ...REPLICA, severalPerSide: true }, async (simulator) => {
      ok(await simulator.hedge('open USDTNGN buy 1000 --tenor 3 --no-wait'));
      const file = writeTarget(simulator, [`${MARKET},buy,1000,3,,`]);
      const applying = await readingAgain(simulator, `apply ${file} --yes --json`);
      simulator.advance(RECORD_LAG_MS);
      ok(await applying.run);
      expect(simulator.sends('/hedges')).toHaveLength(1);
      expect(simulator.active('buy').map((hedge) => hedge.notionalUsd)).toEqual([1000]);

      ok(await simulator.hedge('open USDTNGN sell 1000 --tenor 1 --no-wait'));
      const hedge = simulator.hedges().at(-1)!;
      // Two reads of the side without the hedge: the add is waiting for it.
      const { run } = await readingAgain(simulator, 'add USDTNGN sell 500 --json');
      simulator.advance(RECORD_LAG_MS);
      // The add sent, its landing shows in the trailing positions list once the replica catches up again.
      await until(() => simulator.requests('POST', '/hedges/add').length === 1, 'the add sent', { process: run });
      simulator.advance(RECORD_LAG_MS);
      ok(await run);
      expect(simulator.sends('/hedges/add')).toHaveLength(1);
      expect(simulator.active('sell')).toMatchObject([{ id: hedge.id, notionalUsd: 1500, status: 'filled' }]);
    }));
});
