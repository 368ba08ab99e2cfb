// `hedge keep status` from another machine of the team store: the keeper on machine A
// writes its heartbeat to the store each cycle; machine B (its own config folder and home, the same
// store and key) shows the whole status from there — pid, last cycle, rows — judges the keeper by
// the store lock's holder, and never takes that lock to look. Real processes against the simulator
// and a throwaway PostgreSQL; assertions on the server's state, the store's rows and sessions.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { separateProcesses, type RunResult } from '../support/hedge-cli.js';
import { describeWithPostgres } from '../support/servers/postgres.js';
import { until } from '../support/polling.js';
import { teamOf, type Machine } from '../support/team.js';
import { MARKET, useSimulators } from '../support/simulator.js';
import { followKeeper, type KeeperRun } from '../support/keeper.js';

// Each run a process of its own: what is tested here is between hedge processes.
separateProcesses();

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function writeTarget(dir: string): string {
  const file = join(dir, 'target.csv');
  writeFileSync(file, `market,side,notional_usd,tenor_days\n${MARKET},buy,1000,3\n`);
  return file;
}

/** `hedge keep FILE` on a machine, NDJSON parsed as it comes; SIGTERMed after the test if still running. */
function startKeeper(machine: Machine, file: string): KeeperRun {
  const run = followKeeper((onSpawn) => machine.hedge(['keep', file, '--interval', '2'], { onSpawn }));
  cleanups.push(async () => {
    const child = run.child();
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await run.done.catch(() => undefined);
  });
  return run;
}

describeWithPostgres('hedge keep status from another machine of the team store', (server) => {
  const startSimulator = useSimulators();

  it("shows the keeper on machine A whole from the store's heartbeat (pid, last cycle, rows; exit 0), and after kill -9 shows it dead (exit 15)", async () => {
    const simulator = await startSimulator();
    const team = await teamOf(simulator, server());
    cleanups.push(() => team.remove());
    const keeper = startKeeper(team.a, writeTarget(team.a.dir));
    await until(() => keeper.events.some((event) => event.event === 'cycle'), "the keeper's first cycle", {
      process: keeper.done,
    });
    const pid = keeper.child().pid!;

    // The heartbeat lands in the store after each cycle, and the first cycle's row may still show its
    // open in flight: asked a counted number of times (not timed) until a cycle saw the side covered.
    let shown: Record<string, any> | undefined;
    let status: RunResult | undefined;
    for (let attempt = 0; attempt < 20; attempt++) {
      status = await team.b.hedge(['keep', 'status', '--json']);
      shown = JSON.parse(status.stdout);
      if (shown!.heartbeat?.rows?.[0]?.current_usd === 1000) break;
    }
    expect(status!.code, status!.stderr).toBe(0);
    expect(shown).toMatchObject({ state: 'running', heartbeat_source: 'store', store_holder: { pid } });
    expect(shown!.heartbeat_revision).toBeGreaterThanOrEqual(2);
    expect(shown!.heartbeat).toMatchObject({ pid, config_dir: team.a.dir, file: join(team.a.dir, 'target.csv') });
    expect(Date.parse(shown!.heartbeat.last_cycle_at)).not.toBeNaN();
    expect(shown!.heartbeat.cycles).toBeGreaterThanOrEqual(1);
    // The row as the server has it: the side the keeper opened, at its target.
    const covered = simulator.active('buy').reduce((sum, hedge) => sum + hedge.notionalUsd, 0);
    expect(covered).toBe(1000);
    expect(shown!.heartbeat.rows).toEqual([
      expect.objectContaining({ market: MARKET, side: 'buy', target_usd: 1000, current_usd: covered }),
    ]);
    // B has no heartbeat file of its own: all of it came from the store.
    expect(existsSync(shown!.heartbeat_file)).toBe(false);
    // What the store holds: one row for the account's keeper scope, its body without the key.
    const rows = await server().query(
      team.database,
      'SELECT scope, body::text AS body, revision FROM hedge.keeper_heartbeats',
    );
    expect(rows.rows).toHaveLength(1);
    expect(rows.rows[0].scope).toMatch(/\|keep$/);
    expect(rows.rows[0].body).not.toContain(simulator.apiKey);

    const card = await team.b.hedge(['keep', 'status'], { env: { COLUMNS: '80' } });
    expect(card.code, card.stderr).toBe(0);
    expect(card.stdout).toContain(`pid ${pid} on `);
    expect(card.stdout).toContain('(team store)');
    expect(card.stdout).toContain(`${MARKET} buy`);
    for (const line of card.stdout.split('\n')) expect([...line].length).toBeLessThanOrEqual(80);

    keeper.child().kill('SIGKILL');
    expect((await keeper.done).signal).toBe('SIGKILL');
    const dead = await team.b.hedge(['keep', 'status', '--json']);
    expect(dead.code, dead.stderr).toBe(15);
    expect(JSON.parse(dead.stdout)).toMatchObject({ state: 'dead', store_holder: null, heartbeat: { pid } });
  });

  it('a keeper starting while machine B polls `keep status` in a loop is never refused, and the status never opens a lock session', async () => {
    const simulator = await startSimulator();
    const team = await teamOf(simulator, server());
    cleanups.push(() => team.remove());
    const file = writeTarget(team.a.dir);
    const statusPids = new Set<number>();
    const lockSessions = new Set<string>();
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
    // The store's sessions, sampled: which processes opened a lock session (application_name says whose).
    const sampler = (async () => {
      while (polling) {
        const sessions = await server().query(
          team.database,
          `SELECT application_name FROM pg_stat_activity WHERE application_name LIKE 'hedge locks %'`,
        );
        for (const row of sessions.rows) lockSessions.add(row.application_name);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    cleanups.push(async () => {
      polling = false;
      await Promise.allSettled([poller, sampler]);
    });

    await until(() => polls >= 1, 'the first status');
    const keeperPids = new Set<number>();
    const exits: Array<number | null> = [];
    for (let round = 0; round < 4; round++) {
      const run = await team.a.hedge(['keep', file, '--once', '--json'], {
        onSpawn: (child) => keeperPids.add(child.pid!),
      });
      exits.push(run.code);
      expect(run.code, run.stderr).toBe(0);
    }
    const pollsDuringKeepers = polls;
    polling = false;
    await Promise.all([poller, sampler]);
    expect(exits).toEqual([0, 0, 0, 0]);
    // The status ran throughout the keepers' starts, many times.
    expect(pollsDuringKeepers).toBeGreaterThanOrEqual(3);
    // Every lock session seen was a keeper's, none a status's.
    const owners = [...lockSessions].map((name) => Number(/ pid (\d+)$/.exec(name)?.[1]));
    expect(owners.length).toBeGreaterThan(0);
    for (const owner of owners) {
      expect(statusPids.has(owner), `a status (pid ${owner}) opened a lock session`).toBe(false);
      expect(keeperPids.has(owner)).toBe(true);
    }
    // The book as the server has it: one side at its target, opened once.
    expect(simulator.active('buy').reduce((sum, hedge) => sum + hedge.notionalUsd, 0)).toBe(1000);
  });
});
