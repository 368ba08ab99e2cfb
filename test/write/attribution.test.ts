// Exit 0 is known, not inferred: several actors move one side, and each write's exit
// rests on its own effect on the side — judged by the simulator's own state and request log.
// Each case failed before: a roll beside an add lost the add; an add exited 0 on another add's
// landing; an add that never happened (its hedge settled first) exited 0; a resume reasoned from
// "the notional equals the one before" after a colleague's change; a resume on a server whose clock
// ran fast resent a forgotten key; a re-run of a finished command did it again.
import { ok, okJson, exits, journalEntries, lastJson } from '../support/cli-runs.js';
import { until } from '../support/polling.js';
import { MARKET, withSimulator, type Simulator } from '../support/simulator.js';
import { tempDir, tempDirsInMemory, type RunResult } from '../support/hedge-cli.js';
import { activeNotional, HOUR } from '../support/keeper.js';

tempDirsInMemory();

// The tests run side by side, each with a simulator of its own (trading fills), hedge on its stepped clock.
const STEPPED = { stepped: true };

const posts = (simulator: Simulator, path: string) => simulator.requests('POST', path);
/** How many `action`s the server was sent, and what `side` holds. */
const sentAndHeld = (simulator: Simulator, action: 'add' | 'reduce', side: 'buy' | 'sell') => [
  posts(simulator, `/hedges/${action}`).length,
  activeNotional(simulator, side),
];

/** Runs `act`, which sends no add: the adds the server was sent stay as they were, and `side` holds `held`. */
async function addsNothing(simulator: Simulator, side: 'buy' | 'sell', held: number, act: () => Promise<unknown>) {
  const before = posts(simulator, '/hedges/add').length;
  await act();
  expect(sentAndHeld(simulator, 'add', side)).toEqual([before, held]);
}

/** A simulator (fills in 100 ms) whose `side` holds a 1,000 USD 7-day hedge this journal opened. */
const withOpenSide = (side: 'buy' | 'sell', body: (simulator: Simulator) => Promise<void>) =>
  withSimulator(STEPPED, async (simulator) => {
    ok(await simulator.hedge(`open USDTNGN ${side} 1000 --tenor 7`));
    await body(simulator);
  });

/** Starts a command and resolves once the server has its write (held in flight by the fill delay). */
async function inFlight(simulator: Simulator, args: string, path: string) {
  const before = posts(simulator, path).length;
  const run = simulator.hedge(args);
  await until(() => posts(simulator, path).length > before, `the ${path} of ${args}`, { process: run });
  return run;
}

/** A server that names a change's amount delta_usd (beta). */
const BETA = { HEDGE_WIRE_NOTIONAL_FIELD: 'delta_usd' };
/** A key lifetime every key is past. */
const OLD_KEYS = { HEDGE_KEY_LIFETIME: '0.0001' };

/** A re-run refused as a repeat (exit 16, repeated_action, the side unchanged, with `details`): its error. */
function repeated(run: RunResult, details = {}) {
  const { error } = lastJson(exits(run, 16).stderr);
  expect(error).toMatchObject({ code: 'repeated_action', details: { ...details, side_unchanged: true } });
  return error;
}

/** An add of 250 to a side of 1,000 that landed on the server while every answer to it was lost: exit 5, journaled pending. */
async function landedButUnknown(simulator: Simulator, side: 'buy' | 'sell' = 'buy', env = {}) {
  simulator.sandbox.setFaults({ dropAfterCommit: 1, match: { method: 'POST', path: '/hedges/add' } });
  const lost = await simulator.hedge(`add USDTNGN ${side} 250 --json`, { env });
  simulator.sandbox.setFaults({ dropAfterCommit: 0, match: null });
  exits(lost, 5);
  expect(activeNotional(simulator, side)).toBe(1_250);
}

describe.concurrent('one change in flight per side', () => {
  it("a roll beside an add: the roll waits for the add and rolls what the side holds (1,500), never re-opening its stale plan; an add waits for the add in flight on its side and exits 0 on its own effect, never on the other's", () =>
    withSimulator({ fillDelayMs: 1_500, stepped: true }, async (simulator) => {
      ok(await simulator.hedge('open USDTNGN buy 1000 --tenor 3'));
      const add = await inFlight(simulator, 'add USDTNGN buy 500', '/hedges/add');
      const roll = await simulator.hedge('roll USDTNGN buy --tenor 7 --json');
      ok(await add);
      ok(roll);
      // The roll's open is the side's whole notional, the add included.
      expect(simulator.active('buy').map((hedge) => [hedge.notionalUsd, hedge.tenorDays])).toEqual([[1_500, 7]]);
      expect(posts(simulator, '/hedges').map((entry) => (entry.body as { notional_usd: number }).notional_usd)).toEqual(
        [1_000, 1_500],
      );

      ok(await simulator.hedge('open USDTNGN sell 1000 --tenor 3'));
      const first = await inFlight(simulator, 'add USDTNGN sell 100 --json', '/hedges/add');
      const second = await simulator.hedge('add USDTNGN sell 37 --json');
      const firstDone = okJson(await first);
      // Each saw its own landing: 1,000 → 1,100 for the first, 1,100 → 1,137 for the second.
      expect([firstDone.notional_usd, okJson(second).notional_usd, activeNotional(simulator, 'sell')]).toEqual([
        1_100, 1_137, 1_137,
      ]);
    }));

  it('an add whose hedge settled first did not happen: the side settles while the add is in flight, exit 3 not_applied, the server holds nothing of it', () =>
    withSimulator({ fillDelayMs: 2 * 60_000, stepped: true }, async (simulator) => {
      ok(await simulator.hedge('open USDTNGN buy 1000 --tenor 1 --no-wait'));
      // The server's clock runs in real time too: the minute left is the add's to be sent in, on any machine.
      simulator.advance(24 * HOUR - 60_000);
      expect(simulator.hedges()[0].status).toBe('filled');
      const add = await inFlight(simulator, 'add USDTNGN buy 100 --json', '/hedges/add');
      // The hedge matures a minute after the add was sent at the latest; the add would have filled after two.
      simulator.advance(3 * 60_000);
      const result = exits(await add, 3);
      expect(lastJson(result.stderr).error).toMatchObject({ code: 'not_applied' });
      expect([simulator.active('buy'), simulator.hedges()[0].notionalUsd]).toEqual([[], 1_000]);
    }));
  it("a reduce beside a colleague's add of the same amount cut off in flight, on a side that then settles: the hedge's record back at its old figure proves nothing — exit 12, never 'did not happen'", () =>
    withSimulator({ fillDelayMs: 20_000, stepped: true }, async (simulator) => {
      ok(await simulator.hedge('open USDTNGN buy 1000 --tenor 1 --no-wait'));
      // Ninety seconds before the hedge matures: the add and the reduce are sent and land in it, the settlement ends it.
      simulator.advance(24 * HOUR - 90_000);
      // The colleague's add is accepted, every answer to it lost: the journal has it unresolved; it lands 20 s later.
      simulator.sandbox.setFaults({ dropAfterCommit: 1, match: { method: 'POST', path: '/hedges/add' } });
      exits(await simulator.hedge('add USDTNGN buy 250 --json'), 5);
      simulator.sandbox.setFaults({ dropAfterCommit: 0, match: null });
      const result = exits(await simulator.hedge('reduce USDTNGN buy 250 --json'), 12);
      expect(lastJson(result.stderr).error.code).not.toBe('not_applied');
      // The server's own state: both landed (1,000 + 250 − 250) before the hedge settled, after the reduce was accepted.
      // The server's own state: it acted on the reduce's key once; both changes landed (1,000 + 250 − 250) before the
      // hedge settled, the reduce's fill delay after the server acted on it.
      const reduce = (await journalEntries(simulator)).find((entry) => entry.command === 'reduce');
      const acted = Object.entries(simulator.sandbox.engine.state.idempotency).filter(([scope]) =>
        scope.endsWith(`:${reduce?.idempotency_key}`),
      );
      const [hedge] = simulator.hedges();
      expect([acted.length, hedge.closeReason, hedge.notionalUsd]).toEqual([1, 'settled', 1_000]);
      expect(hedge.closedAtMs! - acted[0][1].createdAtMs).toBeGreaterThanOrEqual(20_000);
      expect(reduce?.outcome).toBe('unknown');
    }));
});

describe.concurrent('resume reconciles first, on the server clock', () => {
  // Before: "the book shows it did not land (1,000 = before)" → sent again → 1,250. On a server that names a change's
  // amount delta_usd (beta), each add and reduce is counted at its amount, and the add is said with the amount it sent,
  // read from its own request.
  it.each([
    ['', 'reference', {}, 'resume --json', []],
    [
      ' (beta: delta_usd)',
      'beta',
      BETA,
      'resume',
      ['Added 250.00 USD: the buy hedge on USDTNGN is now 1,000.00 USD (was 1,000.00 USD).'],
    ],
  ] as const)(
    "after a colleague's reduce of the same amount%s, an old key is never resent on equal notionals: the journal's changes are added up, the add is seen landed, nothing sent",
    (_label, dialect, env, resume, said) =>
      withSimulator({ dialect, stepped: true }, async (simulator) => {
        ok(await simulator.hedge('open USDTNGN buy 1000 --tenor 7', { env }));
        await landedButUnknown(simulator, 'buy', env);
        // A colleague (same journal) reduces by the same amount: the side is back at 1,000.
        ok(await simulator.hedge('reduce USDTNGN buy 250', { env }));
        await addsNothing(simulator, 'buy', 1_000, async () =>
          exits(
            await simulator.hedge(resume, { env: { ...env, ...OLD_KEYS } }),
            0,
            'The book shows it landed',
            ...said,
          ),
        );
      }),
  );

  it('a server whose clock ran 30 hours ahead: the resume sees the add landed and sends nothing; a change the journal cannot add up, an open of the side since (not additive): an old key is not resent on the notional alone — exit 12', () =>
    withOpenSide('buy', async (simulator) => {
      await landedButUnknown(simulator);
      // The server forgets keys after 24 h of its own time; this machine's clock barely moved.
      simulator.advance(30 * HOUR);
      await addsNothing(simulator, 'buy', 1_250, async () => ok(await simulator.hedge('resume --json')));

      ok(await simulator.hedge('open USDTNGN sell 1000 --tenor 7'));
      await landedButUnknown(simulator, 'sell');
      // A colleague closes the side and opens it again at 1,000: the journal cannot add that up.
      ok(await simulator.hedge('close USDTNGN sell'));
      ok(await simulator.hedge('open USDTNGN sell 1000 --tenor 7 --again'));
      await addsNothing(simulator, 'sell', 1_000, async () =>
        exits(await simulator.hedge('resume --json', { env: OLD_KEYS }), 12),
      );
    }));

  // A close resumed after the side went by another action. Seed 727 of a 1,000-history chaos run: a close that never
  // reached the server was recorded done at its resume because the side was gone — emptied by another action. Here a
  // colleague's whole reduce (same journal) empties the side after the close failed to arrive.
  it("a close resumed after the side went by the journal's own reduce: not this close's landing; an old key exits 12, a young one is sent again and the server refuses it", () =>
    withOpenSide('sell', async (simulator) => {
      // Every attempt of the close is answered 500 before the server acts: its outcome is unknown.
      simulator.sandbox.setFaults({ fault5xx: 1, match: { method: 'POST', path: '/hedges/close' } });
      const lost = await simulator.hedge('close USDTNGN sell --yes --json');
      simulator.sandbox.setFaults({ fault5xx: 0, match: null });
      expect(lost.code, lost.stderr).not.toBe(0);
      const closeKey = lastJson(lost.stderr).error.idempotency_key as string;
      expect(closeKey).toBeTruthy();
      // The engine's own record of the keys it acted on (successes only): the close's is never there.
      const acted = () =>
        Object.keys(simulator.sandbox.engine.state.idempotency).filter((scope) => scope.endsWith(`:${closeKey}`));
      expect(acted()).toEqual([]);
      // A colleague reduces the whole side: it is gone, by the reduce.
      ok(await simulator.hedge('reduce USDTNGN sell 1000 --yes'));
      expect(simulator.active('sell')).toEqual([]);

      // Past the key lifetime: the book cannot say the close landed — exit 12, nothing sent, not recorded done.
      exits(await simulator.hedge('resume --json', { env: OLD_KEYS }), 12);
      /** The close never acted on the server, and `hedge journal` does not show it done. */
      const neverDone = async () => {
        expect(acted()).toEqual([]);
        const entries = await journalEntries(simulator);
        expect(entries.find((entry) => entry.idempotency_key === closeKey)!.outcome).not.toBe('done');
      };
      await neverDone();

      // Within the key lifetime the key decides: sent again, the server refuses it (nothing to close), never "done".
      const young = await simulator.hedge('resume --json');
      expect(young.code, young.stderr).not.toBe(0);
      await neverDone();
    }));
});

describe.concurrent('a finished write is not repeated silently', () => {
  it('an open run again after it was done (as a script re-runs one killed between "done" and its output): the side still shows its hedge, so exit 16 and nothing sent; the same reduce run again with nothing between: exit 16 repeated_action, nothing sent, --again sends it; a script\'s own --idempotency-key makes a re-run exactly once: the second run sends nothing and shows the same result; two identical adds in a row: the second is the guard\'s (exit 16); after the side moved, the same add is new work (exit 0); a close run again on the side it left flat says so in one line: exit 16, nothing sent', () =>
    withSimulator(STEPPED, async (simulator) => {
      // Done in the journal and on the server, as a run killed between "done" and its output leaves it.
      const open = 'open USDTNGN sell 1000 --tenor 7 --json';
      ok(await simulator.hedge(open));
      repeated(await simulator.hedge(open), { hedge_id: simulator.hedges()[0].id });
      expect(posts(simulator, '/hedges')).toHaveLength(1);

      ok(await simulator.hedge('reduce USDTNGN sell 100'));
      const error = repeated(await simulator.hedge('reduce USDTNGN sell 100 --json'));
      expect(error.message).toMatch(/\) ended [\d.]+ m?s ago and the side still shows/);
      expect(sentAndHeld(simulator, 'reduce', 'sell')).toEqual([1, 900]);
      ok(await simulator.hedge('reduce USDTNGN sell 100 --again'));
      expect(activeNotional(simulator, 'sell')).toBe(800);

      const reduce = 'reduce USDTNGN sell 100 --json --idempotency-key nightly-2026-11-23-reduce';
      ok(await simulator.hedge(reduce));
      ok(await simulator.hedge(reduce));
      expect(sentAndHeld(simulator, 'reduce', 'sell')).toEqual([3, 700]);

      ok(await simulator.hedge('open USDTNGN buy 1000 --tenor 7'));
      ok(await simulator.hedge('add USDTNGN buy 200'));
      exits(await simulator.hedge('add USDTNGN buy 200 --json'), 16);
      expect(posts(simulator, '/hedges/add')).toHaveLength(1);
      // A colleague's reduce moves the side: the same add is no longer a re-run of the last one.
      expect(
        (
          await simulator.api('POST', '/hedges/reduce', {
            body: { market: MARKET, side: 'buy', notional_usd: 50 },
            idempotencyKey: 'desk-reduce-1',
          })
        ).status,
      ).toBe(200);
      simulator.advance(1_000);
      expect(activeNotional(simulator, 'buy')).toBe(1_150);
      ok(await simulator.hedge('add USDTNGN buy 200 --json'));
      expect(sentAndHeld(simulator, 'add', 'buy')).toEqual([2, 1_350]);

      ok(await simulator.hedge('close USDTNGN buy'));
      const rerun = exits(await simulator.hedge('close USDTNGN buy'), 16);
      expect(rerun.stderr).toMatch(
        /^hedge: The buy side of USDTNGN is already flat: the same close closed it at .*nothing was sent\.$/m,
      );
      expect(rerun.stderr).not.toContain('--again');
      expect(posts(simulator, '/hedges/close')).toHaveLength(1);
    }));

  it('an add begun 20 min ago, found landed by a resume just now, run again: exit 16 by when it ended, not when it began; nothing sent', () =>
    withOpenSide('buy', async (simulator) => {
      await landedButUnknown(simulator);
      // The resume and the re-run come 20 minutes after the add began (past the 10-minute window).
      const stepped = simulator.clock!;
      const later = { now: () => stepped.now() + HOUR / 3, sleep: stepped.sleep };
      ok(await simulator.hedge('resume --json', { clock: later }));
      await addsNothing(simulator, 'buy', 1_250, async () =>
        repeated(await simulator.hedge('add USDTNGN buy 250 --json', { clock: later })),
      );
    }));

  it('open, close, open, close, open with identical arguments: five exit 0 and three hedges — each run changes the side the last one left', () =>
    withSimulator(STEPPED, async (simulator) => {
      const [open, close] = ['open USDTNGN sell 1000 --tenor 1', 'close USDTNGN sell'];
      for (const args of [open, close, open, close, open]) ok(await simulator.hedge(args));
      expect([
        posts(simulator, '/hedges').length,
        posts(simulator, '/hedges/close').length,
        simulator.hedges().filter((hedge) => hedge.side === 'sell').length,
        activeNotional(simulator, 'sell'),
      ]).toEqual([3, 2, 3, 1_000]);
    }));

  it("an open --ref run again while its hedge is active, from a colleague's own config folder: the duplicate reference refuses it (exit 3 duplicate_client_reference), before the repeat; its hint, run as printed, lists the hedge that carries it (a reference with a space)", () =>
    withSimulator(STEPPED, async (simulator) => {
      const colleague = tempDir('hedge-colleague-');
      try {
        const args = ['open', MARKET, 'sell', '1000', '--tenor', '7', '--ref', 'DEAL 42', '--json'];
        ok(await simulator.hedge(args, { configDir: colleague.path }));
        const { error } = lastJson(exits(await simulator.hedge(args, { configDir: colleague.path }), 3).stderr);
        const ids = simulator.hedges().map((hedge) => hedge.id);
        expect(error).toMatchObject({
          code: 'duplicate_client_reference',
          details: { client_reference: 'DEAL 42', hedge_ids: ids },
        });
        expect(posts(simulator, '/hedges')).toHaveLength(1);
        const suggested = /Look at it with `hedge (.*?)`/.exec(error.hint)![1];
        expect(suggested).toBe("hedges --ref 'DEAL 42'");
        // The command as printed, read as a shell reads it.
        const words = [...suggested.matchAll(/'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2]);
        expect(okJson(await simulator.hedge([...words, '--json'])).map((hedge: { id: string }) => hedge.id)).toEqual(
          ids,
        );
      } finally {
        colleague.remove();
      }
    }));
});
