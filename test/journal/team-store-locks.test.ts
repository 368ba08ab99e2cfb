// Check and act under one lock, across machines, when the lock is the team store's: a PostgreSQL
// advisory lock that dies with the session that held it. A keeper whose store restarts under it takes
// its lock again; an apply whose store goes away after its send says what was sent. What is asserted
// is the server's own state and the store's rows. That the store's locks are exclusive across
// processes and die with a killed holder is the backends' conformance suite (conformance.test.ts);
// the commands that take them are the same whichever backend holds them (journal-concurrency.test.ts,
// test/keeper/keeper-service-ops.test.ts).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeWithPostgres } from '../support/servers/postgres.js';
import { activeNotional, eventAfter, followKeeper } from '../support/keeper.js';
import { until } from '../support/polling.js';
import { useDesks, type Machine } from '../support/team.js';
import { exits } from '../support/cli-runs.js';

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
        let errorsAfter = 0;
        for (let attempt = 0; attempt < 40 && errorsAfter === 0; attempt++) {
          errorsAfter = await storedErrors();
          if (errorsAfter === 0) await new Promise((resolve) => setTimeout(resolve, 250));
        }
        expect(errorsAfter).toBeGreaterThanOrEqual(1);
        // Its lock was taken again: a second keeper on machine B is still refused.
        exits(await team.b.hedge(['keep', join(team.a.dir, 'target.csv'), '--once']), 11);
        expect(JSON.stringify(keeper.events)).toContain('keeper_lock_lost');
        await until(
          () => existsSync(alerts) && readFileSync(alerts, 'utf8').includes('"event":"error"'),
          'the alert hook ran for the outage',
        );
        expect(t.trades()).toHaveLength(1);
      } finally {
        keeper.child().kill('SIGTERM');
        await keeper.done;
      }
    });

    it("apply's step sent, then the store lost while it waits: the exit says what was sent (5), never 13 'nothing was sent'", async () => {
      const { t, team } = await desk({ fillDelayMs: 3_000 });
      t.seedOpen('sell', 1_000);
      const applying = team.a.hedge(['apply', target(team.a, 'USDTNGN,sell,1500,3'), '--json']);
      await until(() => t.writes().some((entry) => entry.path === '/hedges/add'), 'the add of the apply was sent', {
        process: applying,
      });
      await server().stop();
      let result;
      try {
        result = await applying;
      } finally {
        await server().start();
      }
      // Never 13: what was sent is said.
      expect([0, 5, 7, 12], result.stderr).toContain(result.code);
      expect(result.stderr).not.toContain('before sending anything');
      expect(t.requests('POST', '/hedges/add')).toHaveLength(1);
    });
  },
  { shared: true },
);
