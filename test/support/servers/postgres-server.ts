// A throwaway PostgreSQL server, a real one (never a mock), for the team-store tests
// (test/support/servers/postgres.ts). It runs Debian's server binaries
// (/usr/lib/postgresql/<version>/bin, or HEDGE_TEST_PG_BIN): initdb in a temp folder, the
// postmaster (through pg_ctl) on a free loopback port with password (SCRAM) logins. PostgreSQL
// refuses to run as root, so as root both run as the `postgres` user (the folder is handed to it).
// `sharedPostgres()` is a view of the test run's one cluster (started by the first file that asks,
// stopped by the global setup's teardown) through a loopback proxy of its own, which its stop() cuts
// as a shutdown would. No test framework here.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { until } from '../polling.js';
import { asUser } from '../another-user.js';

const DEBIAN_ROOT = '/usr/lib/postgresql';
/** The superuser of the throwaway cluster (not `postgres`: the tests log in by password as it). */
const PG_USER = 'hedge';

/** The folder with initdb, postgres and pg_ctl, or undefined when this machine has no server binaries. */
const BIN = (() => {
  const versions = existsSync(DEBIAN_ROOT)
    ? readdirSync(DEBIAN_ROOT)
        .filter((name) => /^\d+$/.test(name))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const candidates = [
    process.env.HEDGE_TEST_PG_BIN,
    ...['15', ...versions].map((version) => join(DEBIAN_ROOT, version, 'bin')),
  ];
  return candidates.find((dir) => dir && ['initdb', 'postgres', 'pg_ctl'].every((name) => existsSync(join(dir, name))));
})();

/** One line saying why the team-store tests cannot run here, or undefined when they can. */
export const POSTGRES_MISSING = BIN
  ? undefined
  : `No PostgreSQL server binaries (initdb, postgres, pg_ctl) in ${DEBIAN_ROOT}/<version>/bin or HEDGE_TEST_PG_BIN: the team-store tests need them (Debian: apt-get install postgresql-15).`;

/**
 * A view of the shared cluster: `createDatabase` gives a fresh, empty database's URL, `query` runs a statement as the
 * superuser, `stop` is a shutdown as its clients see it (sessions ended, its port then refuses connections), `start`
 * opens it again on the same port, `close` cuts its proxy and drops its databases.
 */
export type PostgresServer = Awaited<ReturnType<typeof sharedPostgres>>;

type Account = ReturnType<typeof postgresAccount>;

function postgresAccount() {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  if (!line)
    throw new Error(
      'Running as root, and there is no `postgres` user to run the PostgreSQL server as (it refuses root).',
    );
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** Runs a server binary to its end; `detached`: what it starts outlives the test process (pg_ctl's postmaster). */
function runToEnd(command: string, args: string[], account: Account): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      ...(account && asUser(account)),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C', LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited ${code}:\n${output}`))));
  });
}

/**
 * pg_ctl on a data folder; `launch` starts it without durability (tests need none, and are faster without) and
 * resolves once it accepts connections, or fails saying what the server logged; `stop` is a fast shutdown.
 */
function pgCtl(root: string, account: Account) {
  const data = join(root, 'data');
  const log = join(root, 'log');
  const ctl = (args: string[]) => runToEnd(join(BIN!, 'pg_ctl'), [...args, '-D', data, '-w'], account);
  return {
    launch: (port: number) =>
      ctl([
        'start',
        '-l',
        log,
        '-o',
        // log_connections: the log names each session opened (its database and application_name), for tests that
        // must know every one, not a sample of pg_stat_activity.
        `-p ${port} -h 127.0.0.1 -k ${root} -c fsync=off -c full_page_writes=off -c max_connections=500 -c log_connections=on`,
      ]).catch((error) => {
        throw new Error(`${error.message}\n${existsSync(log) ? readFileSync(log, 'utf8') : ''}`);
      }),
    stop: () => (existsSync(join(data, 'postmaster.pid')) ? ctl(['stop', '-m', 'fast']) : Promise.resolve()),
  };
}

/**
 * initdb in a fresh folder under `parent`, started on a port found free (one taken meanwhile by another process:
 * another port): its port and superuser password.
 */
async function startCluster(parent: string) {
  if (!BIN) throw new Error(POSTGRES_MISSING);
  const account = postgresAccount();
  const root = mkdtempSync(join(parent, 'hedge-pg-'));
  const password = randomBytes(12).toString('hex');
  const passwordFile = join(root, 'password');
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  if (account) {
    chownSync(root, account.uid, account.gid);
    chownSync(passwordFile, account.uid, account.gid);
  }
  chmodSync(root, 0o700);
  await runToEnd(
    join(BIN, 'initdb'),
    [
      ...['-D', join(root, 'data'), '-U', PG_USER, `--pwfile=${passwordFile}`, '--auth-local=trust'],
      ...['--auth-host=scram-sha-256', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions'],
    ],
    account,
  );
  for (let attempt = 0; ; attempt++) {
    const probe = createServer();
    const port = await new Promise<number>((resolve, reject) =>
      probe.once('error', reject).listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      }),
    );
    try {
      await pgCtl(root, account).launch(port);
      return { port, password, log: join(root, 'log') };
    } catch (error) {
      if (attempt >= 3 || !/could not (bind|create listen)/i.test((error as Error).message)) throw error;
    }
  }
}

const urlOf = (password: string, port: number) => (database: string) =>
  `postgres://${PG_USER}:${password}@127.0.0.1:${port}/${database}`;

async function queryAt(url: string, text: string, values?: unknown[]) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

/** Set by the global setup: the folder of the run's one shared cluster. */
const SHARED_CLUSTER_ENV = 'HEDGE_TEST_PG_SHARED';

/**
 * For the global setup: a folder for the run's shared cluster (named to the test processes by
 * SHARED_CLUSTER_ENV), and the teardown that stops whatever a test process started there.
 */
export function sharedClusterFolder() {
  const dir = mkdtempSync(join(tmpdir(), 'hedge-pg-shared-'));
  // The `postgres` user (as root) must reach the cluster's own folder inside.
  chmodSync(dir, 0o711);
  process.env[SHARED_CLUSTER_ENV] = dir;
  return async () => {
    for (const name of readdirSync(dir).filter((entry) => entry.startsWith('hedge-pg-')))
      await pgCtl(join(dir, name), postgresAccount())
        .stop()
        .catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
}

let shared: Promise<{ port: number; password: string; log: string }> | undefined;

/** The run's cluster: started by the first test process that asks (a claim folder says which), waited for by the others. */
function sharedCluster(dir: string) {
  shared ??= (async () => {
    const info = join(dir, 'server.json');
    const failed = join(dir, 'failed');
    try {
      mkdirSync(join(dir, 'claim'));
    } catch {
      // Another test process claimed it: its server.json (or its failure) says when it is up. Within the set-up's bound.
      await until(() => existsSync(info) || existsSync(failed), "the run's cluster, started by another test process", {
        timeoutMs: 110_000,
      });
      if (existsSync(info)) return JSON.parse(readFileSync(info, 'utf8'));
      throw new Error(readFileSync(failed, 'utf8'));
    }
    try {
      const started = await startCluster(dir);
      writeFileSync(`${info}.tmp`, JSON.stringify(started));
      renameSync(`${info}.tmp`, info);
      return started;
    } catch (error) {
      writeFileSync(failed, (error as Error).message);
      throw error;
    }
  })();
  return shared;
}

/**
 * A view of the run's shared cluster through a loopback proxy of its own. Its stop() is a shutdown as its clients see it: the sessions that came through it
 * are ended by the server (57P01, as a fast shutdown ends them) and its port refuses connections
 * until start() opens it again.
 */
export async function sharedPostgres() {
  const dir = process.env[SHARED_CLUSTER_ENV];
  if (!dir)
    throw new Error(`no shared PostgreSQL cluster: ${SHARED_CLUSTER_ENV} is set by test/support/global-setup.ts`);
  const cluster = await sharedCluster(dir);
  const direct = urlOf(cluster.password, cluster.port);
  const pairs = new Set<Socket[]>();
  const proxy = createServer((client) => {
    const pair = [client, connect(cluster.port, '127.0.0.1')];
    pairs.add(pair);
    const end = () => pairs.delete(pair) && pair.forEach((socket) => socket.destroy());
    for (const [from, to] of [pair, [...pair].reverse()]) from.on('error', end).on('close', end).pipe(to);
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => proxy.once('error', reject).listen(port, '127.0.0.1', resolve));
  await listen(0);
  const port = (proxy.address() as { port: number }).port;
  const databases: string[] = [];
  const url = urlOf(cluster.password, port);
  const stop = async () => {
    if (!proxy.listening) return;
    const closed = new Promise((resolve) => proxy.close(resolve));
    await queryAt(
      direct('postgres'),
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE client_port = ANY($1)`,
      [[...pairs].map(([, upstream]) => upstream.localPort)],
    );
    // The server ends each session it was asked to; one it has not ended within 5 s is cut here, as a shutdown would.
    await until(() => pairs.size === 0, 'the sessions ended by the server', 5_000).catch(() => undefined);
    for (const [client] of pairs) client.destroy();
    await closed;
  };
  return {
    password: cluster.password,
    query: (database: string, text: string, values?: unknown[]) => queryAt(url(database), text, values),
    async createDatabase() {
      const name = `team_${randomBytes(6).toString('hex')}`;
      databases.push(name);
      await queryAt(url('postgres'), `CREATE DATABASE ${name}`);
      return url(name);
    },
    /** Where the server's log ends now: a mark for `sessionsOpened`. */
    logMark: () => statSync(cluster.log).size,
    /** The application_name of each session opened on `database` since `mark`, as the server logged it. */
    sessionsOpened(database: string, mark = 0) {
      const logged = readFileSync(cluster.log).subarray(mark).toString('utf8');
      const opened = new RegExp(`connection authorized: user=\\S+ database=${database} application_name=(.*)$`, 'gm');
      return [...logged.matchAll(opened)].map((match) => match[1]);
    },
    stop,
    start: () => (proxy.listening ? Promise.resolve() : listen(port)),
    async close() {
      await stop();
      for (const name of databases)
        await queryAt(direct('postgres'), `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    },
  };
}
