// Check and act under one lock, across machines, when the lock is the team store's: a PostgreSQL
// advisory lock that dies with the session that held it. A keeper whose store restarts under it takes
// its lock again; an apply or a roll whose store goes away after its send says what was sent (a roll's: its side
// closed and unhedged, no open sent). What is asserted is the server's own state and the store's rows. That the store's locks are exclusive across
// processes and die with a killed holder is the backends' conformance suite (conformance.test.ts);
// the commands that take them are the same whichever backend holds them (journal-concurrency.test.ts,
// test/keeper/keeper-service-ops.test.ts).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeWithPostgres } from '../support/servers/postgres.js';
import { activeNotional, eventAfter, followKeeper, HOUR } from '../support/keeper.js';
import { until } from '../support/polling.js';
import { useDesks, type Machine, type Team } from '../support/team.js';
import type { Simulator } from '../support/simulator.js';
import { exits, heldPauses, waitingAfter } from '../support/cli-runs.js';

/** A target file of one row in the machine's folder. */
function target(machine: Machine, row: string) {
  const file = join(machine.dir, 'target.csv');
  writeFileSync(file, `market,side,notional_usd,tenor_days\n${row}\n`);
  return file;
}

describeWithPostgres(
  'check and act under one lock, across machines, after a send and through a store outage',
  (server) => {
    const desk = useDesks(server);

    it('the keeper outlives its store: PostgreSQL restarted under it, it says so (an error event, its alert hook runs), takes its lock again and goes on', async () => {
      const { t, team } = await desk();
      const file = target(team.a, 'USDTNGN,buy,1000,3');
      const alerts = join(team.a.dir, 'alerts.ndjson');
      const keeper = followKeeper((onSpawn) =>
        team.a.hedge(['keep', file, '--interval', '2', '--alert-cmd', `cat >> ${alerts}`], {
          onSpawn,
          // Ended by this test: its own bound applies, and a failed expectation is not hidden by this one.
          timeoutMs: 60_000,
        }),
      );
      try {
        await eventAfter(keeper, 0, 'reopen', "the keeper's first open");
        expect(activeNotional(t, 'buy')).toBe(1_000);
        // The store's heartbeat: its errors count only a write made after the outage can carry.
        const storedErrors = async () =>
          Number(
            (await server().query(team.database, `SELECT body->>'errors' AS errors FROM hedge.keeper_heartbeats`))
              .rows[0]?.errors ?? Number.NaN,
          );
        expect(await storedErrors()).toBe(0);
        await server().stop();
        // Down until a cycle meets it: an outage that only a heartbeat met alerts no one.
        await eventAfter(
          keeper,
          0,
          (event) => event.event === 'error' && event.phase === 'cycle',
          "a cycle's error event while the store is down",
        );
        // Its heartbeat could not reach the store either: said as an error event, never the keeper's end.
        await eventAfter(
          keeper,
          0,
          (event) => event.event === 'error' && event.code === 'heartbeat',
          "the store heartbeat's failed write as an error event",
        );
        await server().start();
        await eventAfter(keeper, keeper.events.length, 'cycle', 'a good cycle after the store returned');
        // The store's heartbeat goes on after the outage, and says what the outage was (counted, not timed).
        await until(async () => (await storedErrors()) >= 1, "the store's heartbeat counting the outage's errors", {
          process: keeper.done,
        });
        expect(await storedErrors()).toBeGreaterThanOrEqual(1);
        // Its lock was taken again: a second keeper on machine B is still refused.
        exits(await team.b.hedge(['keep', join(team.a.dir, 'target.csv'), '--once']), 11);
        expect(JSON.stringify(keeper.events)).toContain('keeper_lock_lost');
        await until(
          () => existsSync(alerts) && readFileSync(alerts, 'utf8').includes('"event":"error"'),
          'the alert hook ran for the outage',
        );
        expect(t.sends()).toHaveLength(1);
      } finally {
        keeper.child().kill('SIGTERM');
        await keeper.done;
      }
    });

    /**
     * `args` on machine A until `sent` holds; its next pause then lasts until the store is stopped (started again once
     * the run ended), and each one after it until the server's clock is moved past the landing: the store surely goes
     * while the run waits, whatever the machine's load. Its result.
     */
    async function storeLostAfter(t: Simulator, team: Team, args: string[], sent: () => boolean, what: string) {
      let ended = false;
      const pauses = heldPauses(sent);
      const run = team.a.hedge(args, { clock: pauses.clock }).finally(() => (ended = true));
      await until(() => pauses.held() > 0, what, { process: run });
      await server().stop();
      try {
        for (let woken = pauses.held(); !ended; woken = pauses.held()) {
          t.advance(HOUR);
          pauses.wake();
          await until(() => ended || pauses.held() > woken, "the run's next pause, or its end");
        }
        return await run;
      } finally {
        await server().start();
      }
    }

    it("apply's step sent, then the store lost while it waits: the exit says what was sent (5), never 13 'nothing was sent'", async () => {
      const { t, team } = await desk({ fillDelayMs: HOUR });
      t.seedOpen('sell', 1_000);
      const result = await storeLostAfter(
        t,
        team,
        ['apply', target(team.a, 'USDTNGN,sell,1500,3'), '--json'],
        () => t.writes().some((entry) => entry.path === '/hedges/add'),
        'the add of the apply was sent',
      );
      // Never 13: what was sent is said.
      expect([0, 5, 7, 12], result.stderr).toContain(result.code);
      expect(result.stderr).not.toContain('before sending anything');
      expect(t.sends('/hedges/add')).toHaveLength(1);
    });

    // The store lost between a roll's close and its open: the side is then closed and unhedged. It is stopped while
    // the roll waits for its close to land, so the failure comes as the close's outcome is recorded.
    it("a roll's close sent, then the store lost: the exit says what was sent (5, 7 or 12) with the close's key and the resume; never 13 'nothing was sent'; no open sent", async () => {
      const { t, team } = await desk({ fillDelayMs: HOUR });
      t.seedOpen('sell', 1_000);
      const result = await storeLostAfter(
        t,
        team,
        ['roll', 'USDTNGN', 'sell', '--tenor', '7', '--yes'],
        waitingAfter(t, '/hedges/close'),
        "the roll's close was answered and its wait began",
      );
      // What the close did is not known to this run (5), or known and the open not sent (12); either way with the
      // key and the resume.
      expect([5, 7, 12], result.stderr).toContain(result.code);
      expect(result.stderr).not.toMatch(/nothing was sent|before sending anything/i);
      const posts = (path: string) => t.requests('POST', path);
      expect(result.stderr).toContain(`idempotency key: ${posts('/hedges/close')[0]?.idempotencyKey}`);
      expect(result.stderr).toMatch(/hedge resume a_\w+/);
      // And whether the side is covered now: the roll says so (bare, or "if this close landed").
      expect(result.stderr).toMatch(/not covered now/);
      expect([t.sends('/hedges/close').length, t.sends('/hedges').length, t.active('sell')]).toEqual([1, 0, []]);
    });
  },
);
