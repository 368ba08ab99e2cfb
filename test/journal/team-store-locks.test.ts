// Check and act under one lock, across machines: three machines on
// one team store and one account on a server that allows several hedges per side (dialect alpha).
// The per-account locks of `open --ref`, `apply` and the keeper are the store's advisory locks
// (journal.lock), so three machines at once act once. What is asserted is the server's own state:
// one hedge for the reference, the target reached once.
//
// The commands take journal.lock around "read the book → decide → send → see it land"; with a team
// store the lock is a PostgreSQL advisory lock, so it holds across machines and dies with the
// process that held it: the machines acting at once are processes of their own. The store's side alone is tested in
// test/journal/postgres-store.test.ts.
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { describeWithPostgres } from '../support/servers/postgres.js';
import { until } from '../support/polling.js';
import { useSimulators, type Simulator } from '../support/simulator.js';
import { teamOf, type Team } from '../support/team.js';

const TRADE_PATHS = new Set(['/hedges', '/hedges/add', '/hedges/reduce', '/hedges/close']);

function trades(t: Simulator) {
  return t.writes().filter((entry) => TRADE_PATHS.has(entry.path));
}

/** Open (submitted or filled) notional on a side, from the server's own state. */
function sideNotional(t: Simulator, side: 'buy' | 'sell'): number {
  return t.active(side).reduce((sum, hedge) => sum + hedge.notionalUsd, 0);
}

const teams: Team[] = [];
afterEach(() => teams.splice(0).forEach((team) => team.remove()));

describeWithPostgres(
  'check and act under one lock, across machines',
  (server) => {
    const startSimulator = useSimulators();

    async function desk(): Promise<{ t: Simulator; team: Team }> {
      const t = await startSimulator({ dialect: 'alpha' });
      const team = await teamOf(t, server());
      teams.push(team);
      return { t, team };
    }

    it('3 machines `open --ref DEAL-7` at once: one hedge carries DEAL-7, the others are refused naming it', async () => {
      const { t, team } = await desk();
      const runs = await Promise.all(
        [team.a, team.b, team.c].map((machine) =>
          machine.hedge(['open', 'USDTNGN', 'buy', '1000', '--tenor', '3', '--ref', 'DEAL-7'], { spawn: true }),
        ),
      );
      const withRef = t
        .hedges()
        .filter((hedge) => (hedge as { clientReference?: string }).clientReference === 'DEAL-7');
      expect(withRef).toHaveLength(1);
      expect(trades(t)).toHaveLength(1);
      expect(runs.filter((run) => run.code === 0)).toHaveLength(1);
      for (const run of runs.filter((candidate) => candidate.code !== 0)) expect(run.stderr).toContain(withRef[0]!.id);
    });

    it('3 machines `apply` one target at once: the server reaches it once', async () => {
      const { t, team } = await desk();
      const file = join(team.a.dir, 'target.csv');
      writeFileSync(file, 'market,side,notional_usd,tenor_days\nUSDTNGN,sell,2000,3\n');
      const runs = await Promise.all(
        [team.a, team.b, team.c].map((machine) => machine.hedge(['apply', file, '--yes'], { spawn: true })),
      );
      expect(sideNotional(t, 'sell')).toBe(2_000);
      expect(trades(t)).toHaveLength(1);
      // The one that acted exits 0; the others did not act (they found the target reached, or were held).
      expect(runs.filter((run) => run.code === 0).length).toBeGreaterThanOrEqual(1);
    });

    it('a keeper on one machine blocks a keeper on another, naming its pid and host; killed, its lock dies with it', async () => {
      const { t, team } = await desk();
      const target = 'market,side,notional_usd,tenor_days\nUSDTNGN,buy,1000,3\n';
      const fileA = join(team.a.dir, 'target.csv');
      const fileB = join(team.b.dir, 'target.csv');
      writeFileSync(fileA, target);
      writeFileSync(fileB, target);
      let keeperA: ChildProcess | undefined;
      let printed = '';
      const running = team.a.hedge(['keep', fileA, '--interval', '2'], {
        onSpawn: (spawned) => {
          keeperA = spawned;
          spawned.stdout!.on('data', (chunk: string) => (printed += chunk));
        },
      });
      // Its open landed (a cycle may report before a slow step ends: rows do not wait for each other).
      await until(() => printed.includes('"event":"reopen"'), "machine A's keeper's open");
      const writes = t.writes().length;
      const second = await team.b.hedge(['keep', fileB, '--once']);
      expect(second.code, second.stderr).toBe(11);
      expect(second.stderr).toContain(`pid ${keeperA!.pid} on ${hostname()}`);
      expect(t.writes()).toHaveLength(writes);
      keeperA!.kill('SIGKILL');
      await running;
      // Its session ended with it: machine B's keeper starts, finds the book at target and sends nothing.
      const third = await team.b.hedge(['keep', fileB, '--once']);
      expect(third.code, third.stderr).toBe(0);
      expect(sideNotional(t, 'buy')).toBe(1_000);
      expect(trades(t)).toHaveLength(1);
    });
  },
  { shared: true },
);

describeWithPostgres(
  'after a send, and through a store outage',
  (server) => {
    const startSimulator = useSimulators();

    // Its own bound: PostgreSQL is stopped and started again under the keeper.
    it(
      'the keeper outlives its store: PostgreSQL restarted under it, it says so (an error event, its alert hook runs), takes its lock again and goes on',
      { timeout: 40_000 },
      async () => {
        const t = await startSimulator();
        const team = await teamOf(t, server());
        teams.push(team);
        const file = join(team.a.dir, 'target.csv');
        writeFileSync(file, 'market,side,notional_usd,tenor_days\nUSDTNGN,buy,1000,3\n');
        const alerts = join(team.a.dir, 'alerts.ndjson');
        let keeper: ChildProcess | undefined;
        let printed = '';
        const running = team.a.hedge(['keep', file, '--interval', '2', '--alert-cmd', `cat >> ${alerts}`], {
          onSpawn: (spawned) => {
            keeper = spawned;
            spawned.stdout!.on('data', (chunk: string) => (printed += chunk));
          },
        });
        try {
          await until(() => printed.includes('"event":"reopen"'), "the keeper's first open", {
            process: running,
          });
          expect(sideNotional(t, 'buy')).toBe(1_000);
          // The store's heartbeat: its errors count only a write made after the outage can carry.
          const storedErrors = async () =>
            Number(
              (await server().query(team.database, `SELECT body->>'errors' AS errors FROM hedge.keeper_heartbeats`))
                .rows[0]?.errors ?? Number.NaN,
            );
          expect(await storedErrors()).toBe(0);
          await server().stop();
          await until(() => /"event":"error"/.test(printed), 'an error event while the store is down', {
            process: running,
          });
          // Its heartbeat could not reach the store either: said as an error event, never the keeper's end.
          await until(
            () =>
              printed
                .split('\n')
                .some((line) => line.includes('"event":"error"') && line.includes('"code":"heartbeat"')),
            "the store heartbeat's failed write as an error event",
            { process: running },
          );
          await server().start();
          const cyclesBefore = printed.split('"event":"cycle"').length;
          await until(
            () => printed.split('"event":"cycle"').length > cyclesBefore,
            'a good cycle after the store returned',
            { process: running },
          );
          // The store's heartbeat goes on after the outage, and says what the outage was (counted, not timed).
          let errorsAfter = 0;
          for (let attempt = 0; attempt < 40 && errorsAfter === 0; attempt++) {
            errorsAfter = await storedErrors();
            if (errorsAfter === 0) await new Promise((resolve) => setTimeout(resolve, 250));
          }
          expect(errorsAfter).toBeGreaterThanOrEqual(1);
          // Its lock was taken again: a second keeper on machine B is still refused.
          const second = await team.b.hedge(['keep', join(team.a.dir, 'target.csv'), '--once']);
          expect(second.code, second.stderr).toBe(11);
          expect(printed).toContain('keeper_lock_lost');
          await until(
            () => existsSync(alerts) && readFileSync(alerts, 'utf8').includes('"event":"error"'),
            'the alert hook ran for the outage',
          );
          expect(trades(t)).toHaveLength(1);
        } finally {
          keeper?.kill('SIGTERM');
          await running;
        }
      },
    );

    it("apply's step sent, then the store lost while it waits: the exit says what was sent (5), never 13 'nothing was sent'", async () => {
      const t = await startSimulator({ fillDelayMs: 3_000 });
      const team = await teamOf(t, server());
      teams.push(team);
      t.seedOpen('sell', 1_000);
      const file = join(team.a.dir, 'target.csv');
      writeFileSync(file, 'market,side,notional_usd,tenor_days\nUSDTNGN,sell,1500,3\n');
      const applying = team.a.hedge(['apply', file, '--json']);
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
      expect(t.writes().filter((entry) => entry.path === '/hedges/add')).toHaveLength(1);
    });
  },
  { shared: true },
);
