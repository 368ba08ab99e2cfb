// The config store under stress: logins racing each other on one store, a config folder that
// cannot be written or does not exist, and logins killed at random moments. The store must always
// parse, keep every profile that was saved, and a folder that cannot be used must be one clear
// error naming the path (exit 1), never a stack trace.
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exits, ok } from '../support/cli-runs.js';
import { storeSchema } from '../../src/platform/config/store-schema.js';
import { type RunningSandbox } from '../../src/sandbox/http/server.js';
import { runHedge, tempDir, type RunOptions } from '../support/hedge-cli.js';
import { readStore as readStored } from '../support/config-store.js';
import { ResultRecorder, type CaseMeta, type CaseObservation } from './recorder.js';
import { STACK_FRAME, firstLine, lines } from '../support/output/text.js';

const results = new ResultRecorder(import.meta.url);

const KEYS = Array.from({ length: 3 }, (_, index) => `hpk_test_ReliabilityStoreKey00000${index}`);
const IS_ROOT = process.getuid?.() === 0;
/** Logins killed, each at its own delay spread over a login's tail. */
const ROUNDS_KILLED = 8;

/**
 * `hedge login`, in this process unless `options` asks for a process of its own (logins racing
 * each other, or killed).
 */
function login(configDir: string, sandbox: RunningSandbox, profile: string, key: string, options: RunOptions = {}) {
  // HEDGE_CONFIG_DIR is the store; no key or base URL in the environment: login reads the key from stdin.
  return runHedge(['login', '--profile', profile, '--base-url', sandbox.baseUrl], {
    configDir,
    input: `${key}\n`,
    ...options,
  });
}

/** The store as the CLI will read it next time: parsed and validated, or the reason it is not (none: ENOENT). */
function readStore(configDir: string) {
  try {
    return { ok: true as const, data: storeSchema.parse(readStored(configDir)) };
  } catch (error) {
    return { ok: false as const, reason: (error as Error).message.split('\n')[0] };
  }
}

/** The first line of `stderr` that mentions an error. */
const errorOf = (stderr: string) => firstLine(stderr.match(/^.*error.*$/m)?.[0] ?? '');
const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Anything in the folder besides the store itself (temp files of a write, a lock left behind). */
const leftovers = (configDir: string) => readdirSync(configDir).filter((name) => name !== 'config.json');

/** A config folder under a regular file in `dir`: creating it fails with ENOTDIR. */
function underAFile(dir: string) {
  writeFileSync(join(dir, 'a-file'), 'not a folder\n');
  return join(dir, 'a-file', 'hedge');
}

/**
 * A case of the config suite, on a simulator that accepts KEYS and in a folder of the test's own (its
 * modes are what is under test).
 */
const configCase = (
  meta: CaseMeta,
  body: (sandbox: RunningSandbox, dir: string, observation: CaseObservation) => Promise<void>,
) =>
  results.onSimulator(
    { suite: 'config', ...meta },
    async (simulator, observation) => {
      const dir = tempDir('hedge-reliability-store-');
      try {
        await body(simulator.sandbox, dir.path, observation);
      } finally {
        chmodSync(dir.path, 0o700);
        dir.remove();
      }
    },
    { preset: 'plain', apiKeys: KEYS, seed: 'reliability-store' },
  );

it('logins racing on one store: 3 logins at once, 2 rounds on the same store: every profile kept, the store always valid, nothing left over', () =>
  configCase(
    {
      order: 1,
      kind: 'concurrency',
      name: 'Concurrent `hedge login`',
      injected:
        '3 `hedge login --profile …` at once (keys on stdin; one in the test process, two spawned) on one config folder, 2 rounds',
      expected:
        'all exit 0; after each round the store parses, validates and holds every profile saved so far with its own key; no temp or lock file left',
    },
    async (sandbox, configDir, observation) => {
      const saved: Record<string, string> = {};
      const problems = [];
      // The second round races on a store the first one made. Each login has a pid of its own: the
      // first runs in this process, the others are processes of their own.
      for (let round = 1; round <= 2; round++) {
        const names = KEYS.map((_, index) => `desk-${round}-${index}`);
        const runs = await Promise.all(
          names.map((name, index) => login(configDir, sandbox, name, KEYS[index], { spawn: index > 0 })),
        );
        runs.forEach((run, index) => {
          if (run.code === 0) saved[names[index]] = KEYS[index];
          else problems.push(`round ${round} ${names[index]}: exit ${run.code} ${firstLine(run.stderr)}`);
        });
        const store = readStore(configDir);
        if (!store.ok) problems.push(`round ${round}: store ${store.reason}`);
        else {
          for (const [name, key] of Object.entries(saved)) {
            if (store.data.profiles[name]?.api_key !== key)
              problems.push(`round ${round}: profile ${name} lost or wrong`);
          }
          if (!store.data.current || !store.data.profiles[store.data.current])
            problems.push(`round ${round}: no valid current profile`);
        }
        const extra = leftovers(configDir);
        if (extra.length) problems.push(`round ${round}: left over ${extra.join(', ')}`);
      }
      const final = readStore(configDir);
      observation.observed = `${Object.keys(saved).length}/6 logins exit 0; store ${final.ok ? `valid with ${Object.keys(final.data.profiles).length} profiles, current "${final.data.current}"` : final.reason}; ${problems.length} problems${problems.length ? `: ${problems.slice(0, 3).join('; ')}` : ''}`;
      expect([problems, final.ok && Object.keys(final.data.profiles).sort()]).toEqual([[], Object.keys(saved).sort()]);
      expect(Object.keys(saved)).toHaveLength(6);
      expect(modeOf(join(configDir, 'config.json'))).toBe(0o600);
    },
  ));

describe('a config folder that cannot be used', () => {
  it('not writable: login fails with exit 1 naming the path (under a file, as root: exit 13 naming the folder), no stack trace, nothing half-made', async () => {
    const how = IS_ROOT
      ? 'HEDGE_CONFIG_DIR under a regular file, so it cannot be made (the tests run as root, where chmod 0500 does not stop writes)'
      : 'HEDGE_CONFIG_DIR chmod 0500 (read-only)';
    await configCase(
      {
        order: 2,
        name: 'Config folder not writable',
        injected: how,
        expected: IS_ROOT
          ? 'exit 13; one line naming the folder and the file it lies under; no stack trace; stdout empty'
          : 'exit 1; the error names the store path and what to do; no stack trace; stdout empty',
      },
      async (sandbox, dir, observation) => {
        const configDir = IS_ROOT ? underAFile(dir) : join(dir, 'read-only');
        if (!IS_ROOT) {
          mkdirSync(configDir, { mode: 0o700 });
          chmodSync(configDir, 0o500);
        }
        const result = await login(configDir, sandbox, 'desk', KEYS[0]);
        observation.observed = `exit ${result.code}: "${errorOf(result.stderr) || firstLine(result.stderr)}"`;
        if (IS_ROOT) {
          exits(result, 13, configDir);
          expect(lines(result.stderr)).toEqual([
            `hedge: Cannot use the folder ${configDir} (HEDGE_CONFIG_DIR): it lies under a file (${join(dir, 'a-file')}), not a folder; name a folder (one that is missing is made).`,
          ]);
        } else {
          exits(result, 1, configDir);
          expect(result.stderr).toMatch(/^hedge: Cannot write the config store .*: permission denied/m);
          expect(result.stderr).toMatch(/→ .*HEDGE_CONFIG_DIR/);
        }
        expect(result.stderr).not.toMatch(STACK_FRAME);
        expect(result.stdout).toBe('');
        if (!IS_ROOT) expect(readdirSync(configDir)).toEqual([]);
      },
    );
  });

  it('not usable for a read either: `hedge profile list` is one clear line, exit 13', () =>
    configCase(
      {
        order: 3,
        name: 'Config folder not readable (`profile list`)',
        injected: 'HEDGE_CONFIG_DIR under a regular file (ENOTDIR)',
        expected: 'exit 13; one line naming the folder and the file it lies under; no stack trace',
      },
      async (_sandbox, dir, observation) => {
        const configDir = underAFile(dir);
        const result = await runHedge('profile list', { configDir });
        observation.observed = `exit ${result.code}: "${firstLine(result.stderr)}"`;
        exits(result, 13, `${configDir} (HEDGE_CONFIG_DIR): it lies under a file (${join(dir, 'a-file')})`);
        expect(lines(result.stderr)).toHaveLength(1);
        expect(result.stderr).not.toMatch(STACK_FRAME);
      },
    ));

  it('missing: login creates it (0700, store 0600); a read without a key says to log in (exit 4)', () =>
    configCase(
      {
        order: 4,
        name: 'Config folder missing',
        injected: 'HEDGE_CONFIG_DIR points at a folder that does not exist (its parent does)',
        expected:
          '`hedge account` with no key: exit 4, "No API key is configured", how to log in; `hedge login`: exit 0, the folder created 0700 and the store 0600',
      },
      async (sandbox, dir, observation) => {
        const read = await runHedge('account', { configDir: join(dir, 'missing-for-read', 'hedge') });
        const loginDir = join(dir, 'missing-for-login', 'hedge');
        const created = await login(loginDir, sandbox, 'desk', KEYS[1]);
        const store = readStore(loginDir);
        observation.observed = `account: exit ${read.code} "${firstLine(read.stderr)}"; login: exit ${created.code}, folder ${existsSync(loginDir) ? modeOf(loginDir).toString(8) : 'absent'}, store ${store.ok ? 'valid' : store.reason}`;
        exits(read, 4, 'No API key is configured', 'hedge login');
        expect(read.stderr).not.toMatch(STACK_FRAME);
        ok(created);
        expect(modeOf(loginDir)).toBe(0o700);
        expect(modeOf(join(loginDir, 'config.json'))).toBe(0o600);
        expect(store.ok && store.data.profiles.desk?.api_key).toBe(KEYS[1]);
      },
    ));
});

it('logins killed mid-way: SIGKILL at random moments around the write, 8 times: the store always parses and keeps what was saved; the next login is not blocked', () =>
  configCase(
    {
      order: 5,
      kind: 'process',
      name: 'Login killed mid-way (SIGKILL), 8 times',
      injected:
        'each `hedge login` killed with SIGKILL between the server receiving its key check and the moment a login normally exits (when it writes the store), at 8 spread-out delays',
      expected:
        'after every kill the store parses and validates and holds every profile saved before; then a normal login succeeds at once (no lock left behind); at most a private (0600) temp file of a killed write remains, never a half-written store',
    },
    async (sandbox, configDir, observation) => {
      // A login that is not killed shows how long its tail is: from the key check reaching the
      // server to the process exit. The store is written in that tail, so the kills land in it.
      const tails = [];
      for (const name of ['base', 'base-2']) {
        const calibration = await login(configDir, sandbox, name, KEYS[0], { spawn: true });
        tails.push(Date.now() - sandbox.requestLog.at(-1)!.realTimeMs);
        ok(calibration);
      }
      const tailMs = Math.max(4, Math.min(...tails));
      const problems = [];
      const delays = [];
      let killed = 0;
      let completed = 0;
      for (let round = 0; round < ROUNDS_KILLED; round++) {
        const checksBefore = sandbox.requestLog.length;
        const delay = Math.round((tailMs * 0.75 * round) / ROUNDS_KILLED);
        delays.push(delay);
        const run = await login(configDir, sandbox, `victim-${round}`, KEYS[round % KEYS.length], {
          onSpawn: (child) => {
            const watch = () => {
              if (child.exitCode !== null || child.signalCode !== null) return;
              if (sandbox.requestLog.length > checksBefore) setTimeout(() => child.kill('SIGKILL'), delay);
              else setTimeout(watch, 1);
            };
            watch();
          },
        });
        if (run.signal === 'SIGKILL') killed++;
        else if (run.code === 0) completed++;
        else problems.push(`round ${round}: exit ${run.code} ${firstLine(run.stderr)}`);
        const store = readStore(configDir);
        if (!store.ok) problems.push(`round ${round}: store ${store.reason}`);
        else if (store.data.profiles.base?.api_key !== KEYS[0]) problems.push(`round ${round}: profile "base" lost`);
      }
      // A run killed while holding the lock must not block the next one (any process: this one).
      const started = Date.now();
      const after = await login(configDir, sandbox, 'after', KEYS[2]);
      const tookMs = Date.now() - started;
      const store = readStore(configDir);
      const remaining = leftovers(configDir);
      observation.timings = `kills ${delays[0]}–${delays.at(-1)} ms after the key check (a login's tail: ${tailMs} ms); the login after them took ${tookMs} ms`;
      observation.observed =
        `${killed} killed, ${completed} finished first; store ${store.ok ? `valid (${Object.keys(store.data.profiles).length} profiles)` : store.reason} after every kill: ${problems.length === 0 ? 'yes' : problems.slice(0, 2).join('; ')}; ` +
        `next login exit ${after.code}${
          after.code === 0 ? '' : ` "${errorOf(after.stderr)}"`
        }; left over: ${remaining.length ? remaining.join(', ') : 'nothing'}`;
      expect(problems).toEqual([]);
      expect(killed).toBeGreaterThanOrEqual(4);
      ok(after);
      expect(store.ok && store.data.profiles.after?.api_key).toBe(KEYS[2]);
      // The write is a rename: a kill can leave a temp file of its own, never a half-written store.
      expect(remaining.filter((name) => !/^config\.json\.tmp-/.test(name))).toEqual([]);
      // Such a temp file holds keys: it is as private as the store (0600 in a 0700 folder).
      for (const name of remaining) expect(modeOf(join(configDir, name)) & 0o077).toBe(0);
    },
  ));
