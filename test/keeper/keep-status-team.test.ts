// `hedge keep status` from another machine of the team store: the keeper on machine A
// writes its heartbeat to the store each cycle; machine C (its own config folder and home, the same
// store and key) shows the whole status from there — pid, last cycle, rows — judges the keeper by
// the store lock's holder, and never takes that lock to look. Against the simulator and a throwaway
// PostgreSQL; a run is a process of its own where that is the point (the keeper killed with -9, the
// statuses whose sessions must not be a keeper's), in-process otherwise (machine C). Assertions on
// the server's state, the store's rows and sessions.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describeWithPostgres } from '../support/servers/postgres.js';
import { teamOf } from '../support/team.js';
import { MARKET } from '../support/simulator.js';
import { eventAfter, keeperTest, writeTarget } from '../support/keeper.js';
import { until } from '../support/polling.js';
import { exits } from '../support/cli-runs.js';
import { holds } from './filled.js';

describeWithPostgres('hedge keep status from another machine of the team store', (server) => {
  keeperTest(
    "shows the keeper on machine A whole from the store's heartbeat (pid, last cycle, rows; exit 0), never takes its lock, and after kill -9 shows it dead (exit 15); keepers then starting again and again on another machine while machine B polls `keep status` in a loop are never refused, and the status never opens a lock session",
    async ({ rig }) => {
      // A simulator, a team on a database of its own, and A's target of a 1,000 buy.
      const simulator = await rig.start();
      const team = await teamOf(simulator, server());
      rig.later(() => team.remove());
      const file = writeTarget({ configDir: team.a.dir }, ['USDTNGN,buy,1000,3,,']);
      const keeper = rig.keep(team.a, file);
      await eventAfter(
        keeper,
        0,
        (event) => event.event === 'cycle' && event.rows?.[0]?.current_usd === 1000,
        'a cycle that saw the side covered',
      );
      const pid = keeper.child().pid!;

      // The heartbeat lands in the store just after the cycle's event: awaited there, as the store holds it.
      const heartbeats = () => server().query(team.database, 'SELECT body::text AS body FROM hedge.keeper_heartbeats');
      await until(
        async () => (await heartbeats()).rows.some((row) => JSON.parse(row.body).rows?.[0]?.current_usd === 1000),
        "the store's heartbeat of a cycle that saw the side covered",
      );
      const status = () => team.c.hedge(['keep', 'status', '--json']);
      const asked = await status();
      expect(asked.code, asked.stderr).toBe(0);
      const shown = JSON.parse(asked.stdout);
      expect(shown).toMatchObject({ state: 'running', heartbeat_source: 'store', store_holder: { pid } });
      expect(shown.heartbeat_revision).toBeGreaterThanOrEqual(2);
      expect(shown.heartbeat).toMatchObject({ pid, config_dir: team.a.dir, file: join(team.a.dir, 'target.csv') });
      expect(Date.parse(shown.heartbeat.last_cycle_at)).not.toBeNaN();
      expect(shown.heartbeat.cycles).toBeGreaterThanOrEqual(1);
      // The row as the server has it: the side the keeper opened, at its target.
      holds(simulator, 1000, 'buy');
      expect(shown.heartbeat.rows).toEqual([
        expect.objectContaining({ market: MARKET, side: 'buy', target_usd: 1000, current_usd: 1000 }),
      ]);
      // C has no heartbeat file of its own: all of it came from the store.
      expect(existsSync(shown.heartbeat_file)).toBe(false);
      // What the store holds: one row for the account's keeper scope, its body without the key.
      const rows = await server().query(
        team.database,
        'SELECT scope, body::text AS body, revision FROM hedge.keeper_heartbeats',
      );
      expect(rows.rows).toHaveLength(1);
      expect(rows.rows[0].scope).toMatch(/\|keep$/);
      expect(rows.rows[0].body).not.toContain(simulator.apiKey);

      const card = exits(await team.c.hedge(['keep', 'status'], { env: { COLUMNS: '80', HEDGE_FORCE_TTY: '1' } }), 0);
      for (const text of [`pid ${pid} on `, '(team store)', 'USDTNGN buy']) expect(card.stdout).toContain(text);
      for (const line of card.stdout.split('\n')) expect([...line].length).toBeLessThanOrEqual(80);
      // Asking did not take the lock from it: a second keeper on another machine is still refused.
      exits(await team.c.hedge(['keep', file, '--once']), 11);

      keeper.child().kill('SIGKILL');
      expect((await keeper.done).signal).toBe('SIGKILL');
      // The server ends a killed client's sessions once it reads their closed sockets, a moment after the kill:
      // awaited in the store's lock table, as `keep status` asks it.
      await until(
        async () =>
          (
            await server().query(
              team.database,
              `SELECT 1 FROM hedge.holders h JOIN pg_locks l ON l.locktype = 'advisory' AND l.granted AND l.pid = h.backend_pid WHERE h.pid = ${pid}`,
            )
          ).rows.length === 0,
        "the killed keeper's lock session to end in the store",
      );
      expect(JSON.parse(exits(await status(), 15).stdout)).toMatchObject({
        state: 'dead',
        store_holder: null,
        heartbeat: { pid },
      });

      // Its place free: keepers start on C one after another (the side at its target: each starts, looks, and stops)
      // while machine B polls `keep status` in a loop.
      const writes = simulator.writes().length;
      // B's statuses are processes of their own, C's keepers run in this one: their sessions tell them apart.
      const statusPids = new Set<number>();
      let polls = 0;
      let polling = true;
      const poller = (async () => {
        while (polling) {
          const status = await team.b.hedge(['keep', 'status', '--json'], {
            onSpawn: (child) => statusPids.add(child.pid!),
          });
          polls += 1;
          expect([0, 15], status.stderr).toContain(status.code);
        }
      })();
      // Every session opened on this database from here on, as the server logs it: which processes opened a lock
      // session (application_name says whose).
      const mark = server().logMark();
      rig.later(() => {
        polling = false;
        return Promise.allSettled([poller]);
      });

      // Keepers start one after another, four at least, for as long as B has not asked three times; each round ends
      // with a status of B's that ended after it began, so that the two overlap on any machine.
      for (let round = 0; round < 4 || polls < 3; round++) {
        const before = polls;
        exits(await team.c.hedge(['keep', file, '--once', '--json']), 0);
        await until(() => polls > before, "B's next status");
      }
      polling = false;
      await poller;
      // Every lock session opened was a keeper's, none a status's.
      const lockSessions = server()
        .sessionsOpened(team.database, mark)
        .filter((name) => name.startsWith('hedge locks '));
      const owners = [...new Set(lockSessions)].map((name) => Number(/ pid (\d+)$/.exec(name)?.[1]));
      expect(owners.length).toBeGreaterThan(0);
      for (const owner of owners) {
        expect(statusPids.has(owner), `a status (pid ${owner}) opened a lock session`).toBe(false);
        expect(owner).toBe(process.pid);
      }
      // The book as the server has it: the side at its target, nothing opened on it again.
      holds(simulator, 1000, 'buy');
      expect(simulator.writes()).toHaveLength(writes);
    },
  );
});
