// A throwaway PostgreSQL server, a real one (never a mock), for the team-store tests
// (test/support/servers/postgres.ts). It runs Debian's server binaries
// (/usr/lib/postgresql/<version>/bin, or HEDGE_TEST_PG_BIN): initdb in a temp folder, the
// postmaster on a free loopback port with password (SCRAM) logins; `close()` stops it and removes
// the folder. PostgreSQL refuses to run as root, so as root both run as the `postgres` user (the
// temp folder is handed to it). No test framework here: the bench bundles this file.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
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
  /** Stops it and removes its folder. */
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
  options: { account?: Account; env: NodeJS.ProcessEnv },
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      uid: options.account?.uid,
      gid: options.account?.gid,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
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

export async function startPostgres(options: PostgresOptions = {}): Promise<PostgresServer> {
  const bin = findPostgresBin();
  if (!bin) throw new Error(POSTGRES_MISSING);
  const account = postgresAccount();
  const root = mkdtempSync(join(tmpdir(), 'hedge-pg-'));
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

  let port = 0;
  let server: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  /** Starts the postmaster on `port` and resolves once it accepts connections; rejects if it exits first. */
  const launch = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const child = spawn(
        join(bin, 'postgres'),
        [
          '-D',
          data,
          '-p',
          String(port),
          '-h',
          '127.0.0.1',
          '-k',
          root,
          ...(options.durable ? [] : ['-c', 'fsync=off', '-c', 'full_page_writes=off']),
          '-c',
          'max_connections=200',
        ],
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

  const start = async () => {
    // A port taken between finding it free and binding it: another one.
    for (let attempt = 0; ; attempt++) {
      if (port === 0 || attempt > 0) port = await freePort();
      try {
        await launch();
        return;
      } catch (error) {
        if (attempt >= 3 || !/could not (bind|create listen)/i.test((error as Error).message)) throw error;
      }
    }
  };
  const restart = async () => {
    // Same port: the URLs the tests handed out stay right.
    await launch();
  };

  const stop = async () => {
    if (!server || server.exitCode !== null || server.signalCode !== null) return;
    server.kill('SIGINT');
    await exited;
  };

  await start();
  const url = (database: string) => `postgres://${PG_USER}:${password}@127.0.0.1:${port}/${database}`;
  let databases = 0;
  const query = async (database: string, text: string, values?: unknown[]) => {
    const client = new pg.Client({ connectionString: url(database) });
    await client.connect();
    try {
      return await client.query(text, values);
    } finally {
      await client.end();
    }
  };
  return {
    get port() {
      return port;
    },
    password,
    url,
    query,
    async createDatabase(prefix = 'team') {
      const name = `${prefix}_${process.pid}_${(databases += 1)}`;
      await query('postgres', `CREATE DATABASE ${name}`);
      return url(name);
    },
    stop,
    start: restart,
    async close() {
      await stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
