// Check and act under one lock, across machines: machines on one team store and one account on a
// server that allows several hedges per side (dialect alpha). The commands take journal.lock
// around "read the book → decide → send → see it land"; with a team store the lock is a PostgreSQL
// advisory lock, so it holds across machines and dies with the process that held it: of two
// machines acting at once, one is a process of its own (the other runs in this one, on a session
// of its own). What is asserted is the server's own state: one hedge
// for the reference, the target reached once. The store's side alone is tested in
// test/journal/postgres-store.test.ts.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
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

    it('2 machines `open --ref DEAL-7` at once: one hedge carries DEAL-7, the other is refused naming it', async () => {
      const { t, team } = await desk({ dialect: 'alpha' });
      const args = ['open', 'USDTNGN', 'buy', '1000', '--tenor', '3', '--ref', 'DEAL-7'];
      const runs = await Promise.all([team.a.hedge(args), team.c.hedge(args, { spawn: true })]);
      const withRef = t
        .hedges()
        .filter((hedge) => (hedge as { clientReference?: string }).clientReference === 'DEAL-7');
      expect(withRef).toHaveLength(1);
      expect(t.trades()).toHaveLength(1);
      expect(runs.filter((run) => run.code === 0)).toHaveLength(1);
      for (const run of runs.filter((candidate) => candidate.code !== 0)) expect(run.stderr).toContain(withRef[0].id);
    });

    it('2 machines `apply` one target at once: the server reaches it once', async () => {
      const { t, team } = await desk({ dialect: 'alpha' });
      const file = target(team.a, 'USDTNGN,sell,2000,3');
      const runs = await Promise.all([
        team.a.hedge(['apply', file, '--yes']),
        team.b.hedge(['apply', file, '--yes'], { spawn: true }),
      ]);
      expect(activeNotional(t, 'sell')).toBe(2_000);
      expect(t.trades()).toHaveLength(1);
      // The one that acted exits 0; the other did not act (it found the target reached, or was held).
      expect(runs.filter((run) => run.code === 0).length).toBeGreaterThanOrEqual(1);
    });

    it('a keeper on one machine blocks a keeper on another, naming its pid and host; killed, its lock dies with it', async () => {
      const { t, team } = await desk({ dialect: 'alpha' });
      const keeperA = followKeeper((onSpawn) =>
        team.a.hedge(['keep', target(team.a, 'USDTNGN,buy,1000,3'), '--interval', '2'], { onSpawn }),
      );
      const fileB = target(team.b, 'USDTNGN,buy,1000,3');
      // Its open landed (a cycle may report before a slow step ends: rows do not wait for each other).
      await eventAfter(keeperA, 0, 'reopen', "machine A's keeper's open");
      const writes = t.writes().length;
      exits(await team.b.hedge(['keep', fileB, '--once']), 11, `pid ${keeperA.child().pid} on ${hostname()}`);
      expect(t.writes()).toHaveLength(writes);
      keeperA.child().kill('SIGKILL');
      await keeperA.done;
      // Its session ended with it: machine B's keeper starts, finds the book at target and sends nothing.
      exits(await team.b.hedge(['keep', fileB, '--once']), 0);
      expect(activeNotional(t, 'buy')).toBe(1_000);
      expect(t.trades()).toHaveLength(1);
    });

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
      expect(result.code, result.stderr).not.toBe(13);
      expect([0, 5, 7, 12]).toContain(result.code);
      expect(result.stderr).not.toContain('before sending anything');
      expect(t.requests('POST', '/hedges/add')).toHaveLength(1);
    });
  },
  { shared: true },
);
