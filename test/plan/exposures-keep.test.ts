// hedge keep FILE --exposures on the simulator: one keeper cycle (--once) at each step of a 10-day
// schedule, the server's clock moved by advance() between them. At every step the server's own book
// is within the policy's band of the target the exposures imply then (recomputed from the server's
// price), never above it plus the band, on the netted side only; an exposure is let go at the last
// cycle before its due date, a maturity inside the schedule is rolled, and after the last due date
// the book is flat.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeKeepers, filledActive, HOUR, keeperTest, keepOnce } from '../support/keeper.js';
import { apiData, type Simulator } from '../support/simulator.js';

const DAY = 24 * HOUR;
const at = (ms: number) => new Date(ms).toISOString();

/** Filled notional per side, from the server's own state. */
function held(rig: Simulator) {
  const sum = (side: 'buy' | 'sell') => filledActive(rig, side).reduce((total, hedge) => total + hedge.notionalUsd, 0);
  return { buy: sum('buy'), sell: sum('sell') };
}

const price = async (rig: Simulator) =>
  Number((await apiData(rig, 'GET', '/markets')).find((market: any) => market.market === 'USDTNGN').price);

/** The exposures file (`id,market,type,amount,currency,due` rows after the header) in the simulator's folder. */
function exposuresFile(rig: Simulator, rows: string[]) {
  const file = join(rig.configDir, 'exposures.csv');
  writeFileSync(file, ['id,market,type,amount,currency,due', ...rows].join('\n'));
  return file;
}

describeKeepers('hedge keep --exposures', () => {
  keeperTest(
    'holds the moving target within the band through due dates and a roll, and ends flat',
    async ({ rig: tools }) => {
      const rig = await tools.start();
      const t0 = rig.sandbox.clock.now();
      // Netted from USD books: R1 and R2 bought, P1 sold against them; U1 (USD) carries no risk.
      const exposures = [
        { id: 'R1', type: 'receivable', amount: 150e6, dueMs: t0 + 2 * DAY },
        { id: 'P1', type: 'payable', amount: 60e6, dueMs: t0 + 5 * DAY },
        { id: 'R2', type: 'receivable', amount: 300e6, dueMs: t0 + 10 * DAY },
      ];
      const file = exposuresFile(rig, [
        ...exposures.map((e) => `${e.id},USDTNGN,${e.type},${e.amount},NGN,${at(e.dueMs)}`),
        `U1,USDTNGN,payable,50000,USD,${at(t0 + 3 * DAY)}`,
      ]);
      /**
       * One keeper cycle, then the book checked against the net target at the server's time and price (every exposure
       * is within 30 days, so 100%); `aheadMs`: as it will be that much later (an exposure due by then counted as due).
       */
      const cycleInBand = async (aheadMs = 0) => {
        await keepOnce(rig, file, 0, '--exposures', '--json');
        const now = rig.sandbox.clock.now() + aheadMs;
        const p = await price(rig);
        const target = exposures
          .filter((e) => e.dueMs > now)
          .reduce((total, e) => total + (e.type === 'receivable' ? 1 : -1) * (e.amount / p), 0);
        const book = held(rig);
        expect(book.sell).toBe(0);
        expect(Math.abs(book.buy - target)).toBeLessThanOrEqual(target * 0.05 + 0.01);
        expect(book.buy).toBeLessThanOrEqual(target * 1.05 + 0.01);
      };

      await cycleInBand();
      expect(rig.sends('/hedges')).toHaveLength(1);
      const opened = rig.active('buy')[0];
      expect(opened.tenorDays).toBe(7);

      // Half a minute before R1 is due (a cycle is 60 s): the keeper lets it go now, not a cycle late,
      // so once the money has moved the book is not above the cover of what is left.
      rig.advance(2 * DAY - 30_000);
      await cycleInBand(60_000);
      rig.advance(HOUR);
      await cycleInBand();
      expect(rig.writes().some((entry) => entry.path === '/hedges/reduce')).toBe(true);

      // P1 due: the offset is gone, the target rises; the keeper adds.
      rig.advance(3 * DAY);
      await cycleInBand();
      expect(rig.writes().some((entry) => entry.path === '/hedges/add')).toBe(true);

      // Half an hour before the 7-day hedge matures: rolled into one that matures by R2's due date.
      rig.advance(opened.maturityAtMs - 30 * 60_000 - rig.sandbox.clock.now());
      await cycleInBand();
      const rolled = filledActive(rig, 'buy');
      expect(rolled).toHaveLength(1);
      expect(rolled[0].id).not.toBe(opened.id);
      expect(rolled[0].maturityAtMs).toBeLessThanOrEqual(t0 + 10 * DAY);

      // After the last due date: flat.
      rig.advance(t0 + 10 * DAY + HOUR - rig.sandbox.clock.now());
      await keepOnce(rig, file, 0, '--exposures', '--json');
      expect(held(rig)).toEqual({ buy: 0, sell: 0 });
    },
  );

  keeperTest(
    'a keeper (re)started on a fast server clock measures its rate first: it lets go an exposure due within two of its cycles',
    async ({ rig: tools }) => {
      // 600× (10 server minutes a second), the clock a day ahead of ours, as after a restart mid-soak.
      const rig = await tools.start({ clockSpeed: 600 });
      rig.advance(DAY);
      const t0 = rig.sandbox.clock.now();
      // R1 due in 2 server hours: within two cycles of --interval 10 at 600× (2 × 100 min), not within
      // two of our own 10 s. R2 due in 5 days is what stays covered.
      const soon = { amount: 150e6, dueMs: t0 + 2 * HOUR };
      const later = { amount: 300e6, dueMs: t0 + 5 * DAY };
      const file = exposuresFile(rig, [
        `R1,USDTNGN,receivable,${soon.amount},NGN,${at(soon.dueMs)}`,
        `R2,USDTNGN,receivable,${later.amount},NGN,${at(later.dueMs)}`,
      ]);
      await keepOnce(rig, file, 0, '--exposures', '--interval', '10', '--json');
      // The run took far less than R1's two hours of server time: R1 was let go because of the lead.
      expect(rig.sandbox.clock.now()).toBeLessThan(soon.dueMs);
      const p = await price(rig);
      const book = held(rig);
      expect(book.sell).toBe(0);
      expect(Math.abs(book.buy - later.amount / p)).toBeLessThanOrEqual((later.amount / p) * 0.05 + 0.01);
      // One open, of R2's cover alone (not R1 + R2).
      const opens = rig.requests('POST', '/hedges');
      expect(opens).toHaveLength(1);
      expect((opens[0].body as { notional_usd: number }).notional_usd).toBeLessThan((later.amount / p) * 1.05);
    },
  );

  keeperTest(
    "sizing fixed: an NGN exposure stays sized at the first cover's price (the server's struck rate) as the price moves",
    async ({ rig: tools }) => {
      const rig = await tools.start();
      const t0 = rig.sandbox.clock.now();
      const policy = join(rig.configDir, 'policy.json');
      const amount = 300e6;
      const file = exposuresFile(rig, [`R1,USDTNGN,receivable,${amount},NGN,${at(t0 + 20 * DAY)}`]);
      writeFileSync(policy, JSON.stringify({ sizing: 'fixed' }));
      const cycleTarget = async () => {
        const cycle = (await keepOnce(rig, file, 0, '--exposures', '--policy', policy, '--json')).find(
          (event) => event.event === 'cycle',
        )!;
        return cycle.rows.find((row: any) => row.side === 'buy').target_usd;
      };

      // No cover yet: sized at today's price, and opened.
      const first = await cycleTarget();
      const opened = rig.active('buy');
      expect(opened).toHaveLength(1);
      expect(Math.abs(first - amount / (await price(rig)))).toBeLessThanOrEqual(first * 0.01);
      const struck = opened[0].entryPrice!;

      // Three days on the price has moved; the target is still the amount at the first cover's struck rate.
      rig.advance(3 * DAY);
      const now = await price(rig);
      expect(Math.round((amount / now) * 100) / 100).not.toBe(Math.round((amount / struck) * 100) / 100);
      expect(await cycleTarget()).toBe(Math.round((amount / struck) * 100) / 100);
      // Within the band of it: nothing traded, the same hedge held.
      expect(rig.sends('/hedges')).toHaveLength(1);
      expect(rig.active('buy').map((hedge) => hedge.id)).toEqual([opened[0].id]);
    },
  );
});
