// A team store that stalls (another session holds a lock on the journal's table) never holds a command past its
// --timeout or a signal: each statement ends by the command's deadline or stop (a moment later, to record what
// happened), the server is asked to cancel it, and nothing is sent, then or twice once the store frees.
import { createServer, connect, type Socket } from 'node:net';
import pg from 'pg';
import { describeWithPostgres, type PostgresServer } from '../support/servers/postgres.js';
import { useDesks, type Team } from '../support/team.js';
import { exits, ok } from '../support/cli-runs.js';
import { until } from '../support/polling.js';

/** How long the store may take to act on a cancel on a loaded machine: a bound on a hang, not a margin. */
const STORE_BOUND_MS = 20_000;

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
          // This test's database alone: the server's other databases (other tests' desks) have waits of their own.
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND application_name LIKE 'hedge %' AND datname = current_database()`,
        )
      ).rows[0].n as number,
    release: async () => {
      await holder.query('ROLLBACK');
      await holder.end();
    },
  };
}

/**
 * A TCP proxy on loopback in front of the store that stops forwarding, both ways and on every connection (new ones
 * too: taken, never passed on), once a client sends a statement holding `marker`: a network partition just after that
 * statement left (`stalledAt`: no sooner than it left). `sentAfter`: the statements (any text naming `hedge.`) clients
 * sent once it stalled.
 */
async function stallingProxy(url: string, marker: string) {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  const state = { stalled: false, sentAfter: 0, stalledAt: NaN };
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
    }
    client.on('data', (chunk) => {
      if (state.stalled) {
        if (chunk.includes('hedge.')) state.sentAfter += 1;
        return;
      }
      upstream.write(chunk);
      // When this process saw it: the statement left hedge no later.
      if (chunk.includes(marker)) Object.assign(state, { stalled: true, stalledAt: Date.now() });
    });
    upstream.on('data', (chunk) => {
      if (!state.stalled) client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String((server.address() as { port: number }).port);
  return {
    url: proxied.toString(),
    state,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
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
      const timedOut = exits(
        await team.a.hedge(['add', 'USDTNGN', 'buy', '500', '--timeout', '2'], { ownClock: true }),
        13,
        'no answer in time',
      );
      expect(timedOut.stdout).toBe('');
      // On its own clock, start-up included: short of the store's own 15 s statement bound, which held such a run before.
      const { startedAt, exitedAt } = timedOut.ownClock!;
      expect(exitedAt - startedAt, 'process start to exit, on its own clock').toBeLessThan(15_000);
      // Its wait on the table ends on the store's own time (a cancel is asynchronous): until it has, a wait counted
      // below could be this one's, and the signal would reach the next add before it is running.
      // (A bound on a busy store's answer, within the test's: the table stays locked all along.)
      await until(
        async () => (await lock.waiting()) === 0,
        "the timed-out add's wait on the locked table to end",
        STORE_BOUND_MS,
      );
      let child: { kill(signal: NodeJS.Signals): boolean } | undefined;
      const stopped = team.a.hedge(['add', 'USDTNGN', 'buy', '500'], { onSpawn: (spawned) => (child = spawned) });
      await until(async () => (await lock.waiting()) > 0, 'the add waits on the locked table', { process: stopped });
      child!.kill('SIGTERM');
      exits(await stopped, 143);
      // The store cancels the stopped add's wait on its own time (a cancel request is asynchronous); it must end while
      // the table is still locked, never wait on for it.
      await until(
        async () => (await lock.waiting()) === 0,
        "the stopped add's wait on the locked table to end",
        STORE_BOUND_MS,
      );
    } finally {
      await lock.release();
    }
    expect(t.writes()).toEqual([]);
    expect((await server().query(team.database, 'SELECT count(*)::int AS n FROM hedge.entries')).rows[0].n).toBe(0);
    ok(await team.a.hedge(['add', 'USDTNGN', 'buy', '500']));
    expect(t.sends('/hedges/add')).toHaveLength(1);
  });

  it('a store that stops answering after the record of a sent add left (a network partition, not a lock): --timeout 10 ends it within 12 s, SIGTERM within 3 s (each on its own clock); the add is sent once, and nothing is sent to the store after', async () => {
    const { t, team } = await desk();
    t.seedOpen('buy', 1_000);
    ok(await team.c.hedge(['journal']));
    // A side each: the first add's outcome stays unknown, and another add on its side would be refused.
    t.seedOpen('sell', 1_000);
    for (const [stop, side] of [
      ['timeout', 'buy'],
      ['signal', 'sell'],
    ] as const) {
      const proxy = await stallingProxy(team.url, 'UPDATE hedge.entries');
      onTestFinished(proxy.close);
      const env = { HEDGE_JOURNAL_URL: proxy.url };
      const adds = t.requests('POST', '/hedges/add').length;
      let child: { kill(signal: NodeJS.Signals): boolean } | undefined;
      const run = team.c.hedge(['add', 'USDTNGN', side, '500', ...(stop === 'timeout' ? ['--timeout', '10'] : [])], {
        env,
        ownClock: true,
        onSpawn: (spawned) => (child = spawned),
      });
      await until(() => proxy.state.stalled, 'the add records its send and the store stops answering', {
        process: run,
      });
      const signalled = Date.now();
      if (stop === 'signal') child!.kill('SIGTERM');
      const result = await run;
      // The bounds under test, from moments no sooner than the command's start (the stall) and its signal, to its exit
      // on its own clock: --timeout 10 and the moment given to record what happened, within 12 s; SIGTERM within 3 s.
      const { exitedAt } = result.ownClock!;
      if (stop === 'signal') {
        expect(result.code).toBe(143);
        expect(exitedAt - signalled, 'SIGTERM to exit').toBeLessThan(3_000);
      } else {
        expect(result.code).not.toBe(0);
        expect(exitedAt - proxy.state.stalledAt, 'the stall to exit').toBeLessThan(12_000);
      }
      // What happened is kept in the local journal, and the way to finish the add is said.
      expect(result.stderr).toContain('is kept in the local journal');
      expect(result.stderr).toContain('--idempotency-key');
      expect(t.requests('POST', '/hedges/add')).toHaveLength(adds + 1);
      expect(proxy.state.sentAfter).toBe(0);
      // The partition heals: the store's sessions of that run end (and its locks with them).
      await proxy.close();
    }
  });
});
