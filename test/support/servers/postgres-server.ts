// A throwaway PostgreSQL server, a real one (never a mock), for the team-store tests
// (test/support/servers/postgres.ts). It runs Debian's server binaries
// (/usr/lib/postgresql/<version>/bin, or HEDGE_TEST_PG_BIN): initdb in a temp folder, the
// postmaster on a free loopback port with password (SCRAM) logins. PostgreSQL refuses to run as
// root, so as root both run as the `postgres` user (the temp folder is handed to it).
// `startPostgres()` is a server of one's own; `sharedPostgres()` is a view of the test run's one
// cluster (started by the first file that asks, stopped by the global setup's teardown) through a
// loopback proxy of its own, which its stop() cuts as a shutdown would. No test framework here.
import { spawn, type ChildProcess } from 'node:child_process';
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
  writeFileSync,
} from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const DEBIAN_ROOT = '/usr/lib/postgresql';
/** The superuser of the throwaway cluster (not `postgres`: the tests log in by password as it). */
export const PG_USER = 'hedge';

/** The folder with initdb and postgres, or undefined when this machine has no server binaries. */
export function findPostgresBin(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates: string[] = [];
  if (env.HEDGE_TEST_PG_BIN) candidates.push(env.HEDGE_TEST_PG_BIN);
  candidates.push(join(DEBIAN_ROOT, '15', 'bin'));
  if (existsSync(DEBIAN_ROOT)) {
    const versions = readdirSync(DEBIAN_ROOT)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    for (const version of versions) candidates.push(join(DEBIAN_ROOT, version, 'bin'));
  }
  return candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'postgres')));
}

/** One line saying why the team-store tests cannot run here, or undefined when they can. */
export const POSTGRES_MISSING: string | undefined = findPostgresBin()
  ? undefined
  : `No PostgreSQL server binaries (initdb, postgres) in ${DEBIAN_ROOT}/<version>/bin or HEDGE_TEST_PG_BIN: the team-store tests need them (Debian: apt-get install postgresql-15).`;

export interface PostgresServer {
  port: number;
  password: string;
  /** The URL of a database on this server, password included. */
  url(database: string): string;
  /** A fresh, empty database; its URL. */
  createDatabase(prefix?: string): Promise<string>;
  /** A statement as the superuser, on that database. */
  query<R extends pg.QueryResultRow = any>(
    database: string,
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>>;
  /** Stops the server (fast shutdown: sessions are ended); its port then refuses connections. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** Stops it and removes its folder (a shared cluster's view: cuts its proxy and drops its databases). */
  close(): Promise<void>;
}

interface Account {
  uid: number;
  gid: number;
}

function postgresAccount(): Account | undefined {
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

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function runToEnd(
  command: string,
  args: string[],
  options: { account?: Account; env: NodeJS.ProcessEnv; detached?: boolean },
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      uid: options.account?.uid,
      gid: options.account?.gid,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: options.detached,
    });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited ${code}:\n${output}`))));
  });
}

export interface PostgresOptions {
  /** Flush commits to disk as a real server does (default false: tests need no durability, and are faster without). */
  durable?: boolean;
}

/** The postmaster's settings beyond data folder and port. */
function serverSettings(root: string, options: PostgresOptions, maxConnections: number): string[] {
  return [
    '-h',
    '127.0.0.1',
    '-k',
    root,
    ...(options.durable ? [] : ['-c', 'fsync=off', '-c', 'full_page_writes=off']),
    '-c',
    `max_connections=${maxConnections}`,
  ];
}

interface Cluster {
  bin: string;
  account: Account | undefined;
  root: string;
  data: string;
  password: string;
  env: NodeJS.ProcessEnv;
}

/** initdb in a fresh folder under `parent`, handed to the `postgres` user when running as root. */
async function initCluster(parent = tmpdir()): Promise<Cluster> {
  const bin = findPostgresBin();
  if (!bin) throw new Error(POSTGRES_MISSING);
  const account = postgresAccount();
  const root = mkdtempSync(join(parent, 'hedge-pg-'));
  const data = join(root, 'data');
  const password = randomBytes(12).toString('hex');
  const passwordFile = join(root, 'password');
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  if (account) {
    chownSync(root, account.uid, account.gid);
    chownSync(passwordFile, account.uid, account.gid);
  }
  chmodSync(root, 0o700);
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root, LANG: 'C', LC_ALL: 'C' };
  await runToEnd(
    join(bin, 'initdb'),
    [
      '-D',
      data,
      '-U',
      PG_USER,
      `--pwfile=${passwordFile}`,
      '--auth-local=trust',
      '--auth-host=scram-sha-256',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
      '--no-instructions',
    ],
    { account, env },
  );
  return { bin, account, root, data, password, env };
}

const urlOf = (password: string, port: number, database: string) =>
  `postgres://${PG_USER}:${password}@127.0.0.1:${port}/${database}`;

async function queryAt<R extends pg.QueryResultRow>(url: string, text: string, values?: unknown[]) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query<R>(text, values);
  } finally {
    await client.end();
  }
}

/** Takes a port found free; one taken meanwhile by another process is tried again with another. */
async function onFreePort(start: (port: number) => Promise<void>): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    try {
      await start(port);
      return port;
    } catch (error) {
      if (attempt >= 3 || !/could not (bind|create listen)/i.test((error as Error).message)) throw error;
    }
  }
}

export async function startPostgres(options: PostgresOptions = {}): Promise<PostgresServer> {
  const { bin, account, root, data, password, env } = await initCluster();
  let port = 0;
  let server: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  /** Starts the postmaster on `port` and resolves once it accepts connections; rejects if it exits first. */
  const launch = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const child = spawn(
        join(bin, 'postgres'),
        ['-D', data, '-p', String(port), ...serverSettings(root, options, 200)],
        { uid: account?.uid, gid: account?.gid, env, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      server = child;
      let log = '';
      exited = new Promise((done) => child.once('exit', () => done()));
      child.once('error', reject);
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
        log += chunk;
        if (log.includes('ready to accept connections')) resolve();
      });
      child.once('exit', (code, signal) =>
        reject(new Error(`postgres exited (${code ?? signal}) before it was ready:\n${log}`)),
      );
    });

  const stop = async () => {
    if (!server || server.exitCode !== null || server.signalCode !== null) return;
    server.kill('SIGINT');
    await exited;
  };

  port = await onFreePort((candidate) => {
    port = candidate;
    return launch();
  });
  const url = (database: string) => urlOf(password, port, database);
  return {
    get port() {
      return port;
    },
    password,
    url,
    query: (database, text, values) => queryAt(url(database), text, values),
    createDatabase: (prefix = 'team') => createDatabaseAt(url, prefix),
    stop,
    // Same port: the URLs the tests handed out stay right.
    start: launch,
    async close() {
      await stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

async function createDatabaseAt(url: (database: string) => string, prefix: string): Promise<string> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await queryAt(url('postgres'), `CREATE DATABASE ${name}`);
  return url(name);
}

/** Set by the global setup: the folder of the run's one shared cluster. */
export const SHARED_CLUSTER_ENV = 'HEDGE_TEST_PG_SHARED';

interface SharedCluster {
  port: number;
  password: string;
}

/**
 * For the global setup: a folder for the run's shared cluster (named to the test processes by
 * SHARED_CLUSTER_ENV), and the teardown that stops a cluster a test file started there.
 */
export function sharedClusterFolder(): () => Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'hedge-pg-shared-'));
  // The `postgres` user (as root) must reach the cluster's own folder inside.
  chmodSync(dir, 0o711);
  process.env[SHARED_CLUSTER_ENV] = dir;
  return async () => {
    // Whatever a test process started here, even one ended before it said so.
    for (const name of readdirSync(dir).filter((entry) => entry.startsWith('hedge-pg-'))) {
      const data = join(dir, name, 'data');
      if (existsSync(join(data, 'postmaster.pid')))
        await runToEnd(join(findPostgresBin()!, 'pg_ctl'), ['stop', '-D', data, '-m', 'fast', '-w'], {
          account: postgresAccount(),
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C' },
        }).catch(() => undefined);
    }
    rmSync(dir, { recursive: true, force: true });
  };
}

let shared: Promise<SharedCluster> | undefined;

/** The run's cluster: started by the first test process that asks (a claim folder says which), waited for by the others. */
function sharedCluster(dir: string): Promise<SharedCluster> {
  shared ??= (async () => {
    const info = join(dir, 'server.json');
    const failed = join(dir, 'failed');
    const claim = join(dir, 'claim');
    try {
      mkdirSync(claim);
    } catch {
      for (;;) {
        if (existsSync(info)) return JSON.parse(readFileSync(info, 'utf8')) as SharedCluster;
        if (existsSync(failed)) throw new Error(readFileSync(failed, 'utf8'));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    try {
      const cluster = await initCluster(dir);
      // Detached, through pg_ctl: the server outlives the test process that started it.
      const log = join(cluster.root, 'log');
      const port = await onFreePort((candidate) =>
        runToEnd(
          join(cluster.bin, 'pg_ctl'),
          [
            'start',
            '-w',
            '-D',
            cluster.data,
            '-l',
            log,
            '-o',
            ['-p', String(candidate), ...serverSettings(cluster.root, {}, 500)].join(' '),
          ],
          { account: cluster.account, env: cluster.env, detached: true },
        ).catch((error: Error) => {
          throw new Error(`${error.message}\n${existsSync(log) ? readFileSync(log, 'utf8') : ''}`);
        }),
      );
      const started: SharedCluster = { port, password: cluster.password };
      writeFileSync(`${info}.tmp`, JSON.stringify(started));
      renameSync(`${info}.tmp`, info);
      return started;
    } catch (error) {
      writeFileSync(failed, String((error as Error).message));
      throw error;
    }
  })();
  return shared;
}

/**
 * A view of the run's shared cluster through a loopback proxy of its own, or undefined outside a
 * run with one (then a server of one's own). Its stop() is a shutdown as its clients see it: the
 * sessions that came through it are ended by the server (as a fast shutdown ends them) and its port
 * refuses connections until start() opens it again.
 */
export async function sharedPostgres(): Promise<PostgresServer | undefined> {
  const dir = process.env[SHARED_CLUSTER_ENV];
  if (!dir || !findPostgresBin()) return undefined;
  const cluster = await sharedCluster(dir);
  const direct = (database: string) => urlOf(cluster.password, cluster.port, database);
  const pairs = new Set<[Socket, Socket]>();
  const proxy: Server = createServer((client) => {
    const upstream = connect(cluster.port, '127.0.0.1');
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end).pipe(upstream);
    upstream.on('error', end).on('close', end).pipe(client);
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      proxy.once('error', reject);
      proxy.listen(port, '127.0.0.1', () => {
        proxy.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const port = (proxy.address() as { port: number }).port;
  const url = (database: string) => urlOf(cluster.password, port, database);
  const databases: string[] = [];
  let listening = true;
  const stop = async () => {
    if (!listening) return;
    listening = false;
    const closed = new Promise((resolve) => proxy.close(resolve));
    const ports = [...pairs].map(([, upstream]) => upstream.localPort).filter((local) => local !== undefined);
    await queryAt(
      direct('postgres'),
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE client_port = ANY($1::int[])`,
      [ports],
    );
    // The server's goodbye (57P01, "terminating connection due to administrator command") reaches each client.
    for (let waited = 0; pairs.size > 0 && waited < 5_000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    for (const [client] of pairs) client.destroy();
    await closed;
  };
  return {
    port,
    password: cluster.password,
    url,
    query: (database, text, values) => queryAt(url(database), text, values),
    async createDatabase(prefix = 'team') {
      const created = await createDatabaseAt(url, prefix);
      databases.push(new URL(created).pathname.slice(1));
      return created;
    },
    stop,
    async start() {
      if (listening) return;
      await listen(port);
      listening = true;
    },
    async close() {
      await stop();
      await Promise.all(
        databases.map((name) =>
          queryAt(direct('postgres'), `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined),
        ),
      );
    },
  };
}
