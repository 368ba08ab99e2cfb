// A desk of three "machines" sharing one team journal store: three config dirs (each its own local
// journal and profile store), one PostgreSQL database, one account on one simulator. A and B log
// in with a profile whose journal_url has no password (PGPASSWORD gives it, as ~/.pgpass would);
// C has no profile and takes everything from the environment, HEDGE_JOURNAL_URL with its password.
// The test process has the same PGPASSWORD, which the PostgreSQL client reads from the process: so
// A's and B's runs can go in-process too (hedge-cli.ts); a run whose process is the point spawns.
import { tempDir, runHedge, type RunOptions } from './hedge-cli.js';
import { writeStore } from './config-store.js';
import type { PostgresServer } from './servers/postgres.js';
import { useSimulators, type Simulator, type SimulatorOptions } from './simulator.js';

/** A machine: its name, its config dir (and local journal), its environment, and its runs. */
export type Machine = Team['a'];

export type Team = Awaited<ReturnType<typeof teamOf>>;

export async function teamOf(
  simulator: Pick<Simulator, 'baseUrl' | 'apiKey'> & Partial<Pick<Simulator, 'clock'>>,
  server: PostgresServer,
) {
  const url = await server.createDatabase();
  const parsed = new URL(url);
  parsed.password = '';
  const urlWithoutPassword = parsed.toString();
  // Every output any machine printed, for checking that the password never shows.
  const outputs: string[] = [];
  const dirs = { a: tempDir('hedge-machine-a-'), b: tempDir('hedge-machine-b-'), c: tempDir('hedge-machine-c-') };
  const machine = (name: keyof typeof dirs, env: Record<string, string>) => ({
    name,
    dir: dirs[name].path,
    env,
    async hedge(args: string[], runOptions: RunOptions = {}) {
      const result = await runHedge(args, {
        clock: simulator.clock,
        ...runOptions,
        configDir: dirs[name].path,
        env: { ...env, ...runOptions.env },
      });
      outputs.push(result.stdout, result.stderr);
      return result;
    },
  });
  const withProfile = (dir: string, name: string) =>
    writeStore(dir, {
      current: name,
      profiles: { [name]: { base_url: simulator.baseUrl, api_key: simulator.apiKey, journal_url: urlWithoutPassword } },
    });
  withProfile(dirs.a.path, 'desk-a');
  withProfile(dirs.b.path, 'desk-b');
  const profileEnv = { PGPASSWORD: server.password };
  process.env.PGPASSWORD = server.password;
  return {
    a: machine('a', profileEnv),
    b: machine('b', profileEnv),
    c: machine('c', {
      HEDGE_BASE_URL: simulator.baseUrl,
      HEDGE_API_KEY: simulator.apiKey,
      HEDGE_JOURNAL_URL: url,
    }),
    /** The store's URL with its password. */
    url,
    /** The same without the password, as A's and B's profiles keep it. */
    urlWithoutPassword,
    database: new URL(url).pathname.slice(1),
    outputs,
    remove: () => Object.values(dirs).forEach((dir) => dir.remove()),
  };
}

/** A desk per test: a simulator and a team on the file's store, both gone after the test. */
export function useDesks(server: () => PostgresServer, defaults?: SimulatorOptions) {
  const startSimulator = useSimulators(defaults);
  const teams: Team[] = [];
  afterEach(() => teams.splice(0).forEach((team) => team.remove()));
  return async (options?: SimulatorOptions) => {
    const t = await startSimulator(options);
    const team = await teamOf(t, server());
    teams.push(team);
    return { t, team };
  };
}
