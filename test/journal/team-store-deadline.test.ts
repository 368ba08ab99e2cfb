// A team store that stalls (another session holds a lock on the journal's table) never holds a command past its
// --timeout or a signal: each statement ends by the command's deadline or stop (a moment later, to record what
// happened), the server is asked to cancel it, and nothing is sent, then or twice once the store frees.
import pg from 'pg';
import { describeWithPostgres, type PostgresServer } from '../support/servers/postgres.js';
import { useDesks, type Team } from '../support/team.js';
import { exits, ok } from '../support/cli-runs.js';
import { until } from '../support/polling.js';

/** Another session of the store holding the journal's table: every statement of hedge on it waits. */
async function lockEntries(team: Team, server: PostgresServer) {
  const holder = new pg.Client({ connectionString: team.url });
  await holder.connect();
  await holder.query('BEGIN');
  await holder.query('LOCK TABLE hedge.entries IN ACCESS EXCLUSIVE MODE');
  return {
    /** hedge's statements now waiting on that lock. */
    // Asked on a session of its own: inside the holder's transaction pg_stat_activity is a snapshot taken once.
    waiting: async () =>
      (
        await server.query(
          team.database,
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND application_name LIKE 'hedge %'`,
        )
      ).rows[0].n as number,
    release: async () => {
      await holder.query('ROLLBACK');
      await holder.end();
    },
  };
}

describeWithPostgres('a stalled team store', (server) => {
  const desk = useDesks(server);

  it('a locked journal table: an add with --timeout 2 ends by its deadline (not the store’s 15 s bound), a store error, exit 13; one stopped by SIGTERM ends with 143; neither is sent, and once the store frees nothing was recorded or sent behind them; the add then goes once', async () => {
    const { t, team } = await desk();
    t.seedOpen('buy', 1_000);
    // The schema made: the lock below is on the journal's own table.
    ok(await team.a.hedge(['journal']));
    const lock = await lockEntries(team, server());
    try {
      // Bounds: 12 s is well past --timeout 2 and the 2 s given to record what happened, and short of the store's own
      // 15 s statement bound, which held such a run before.
      const timedOut = exits(
        await team.a.hedge(['add', 'USDTNGN', 'buy', '500', '--timeout', '2'], { spawn: true, timeoutMs: 12_000 }),
        13,
        'no answer in time',
      );
      expect(timedOut.stdout).toBe('');
      let child: { kill(signal: NodeJS.Signals): boolean } | undefined;
      const stopped = team.a.hedge(['add', 'USDTNGN', 'buy', '500'], {
        spawn: true,
        timeoutMs: 12_000,
        onSpawn: (spawned) => (child = spawned),
      });
      await until(async () => (await lock.waiting()) > 0, 'the add waits on the locked table', { process: stopped });
      child!.kill('SIGTERM');
      exits(await stopped, 143);
      expect(await lock.waiting()).toBe(0);
    } finally {
      await lock.release();
    }
    expect(t.writes()).toEqual([]);
    expect((await server().query(team.database, 'SELECT count(*)::int AS n FROM hedge.entries')).rows[0].n).toBe(0);
    ok(await team.a.hedge(['add', 'USDTNGN', 'buy', '500']));
    expect(t.sends('/hedges/add')).toHaveLength(1);
  });
});
