// The profile store on disk: 0600 file in a 0700 folder, a corrupted file reported (naming it)
// and never overwritten, and fields the CLI does not know kept on every write; its lock is the
// journal's kind (proper-lockfile), waited for without blocking, taken over from a dead holder.
// Then the precedence of the settings a command runs with (flag > environment > stored profile) and
// the source of each.
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { check, lock } from 'proper-lockfile';
import { ProfileStore } from '../../src/platform/config/profile-store.js';
import { resolveCredentials } from '../../src/platform/config/credentials.js';
import { ConfigError } from '../../src/core/errors.js';
import { tempFolders } from '../support/hedge-cli.js';

const tempFolder = tempFolders('hedge-unit-store-');
let tmp: string;
beforeEach(() => void (tmp = tempFolder()));

describe('ProfileStore', () => {
  it('tightens a store folder left readable by others; a store file others may read or change is refused with the chmod, untouched', async () => {
    const dir = join(tmp, 'open');
    mkdirSync(dir, { mode: 0o755 });
    const file = join(dir, 'config.json');
    const text =
      '{"profiles": {"desk": {"base_url": "https://x/v2", "api_key": "hpk_test_UnitStoreKey000000000001"}}}\n';
    writeFileSync(file, text, { mode: 0o600 });
    await new ProfileStore(dir).update((data) => {
      data.current = 'desk';
    });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const mode of [0o644, 0o640, 0o666, 0o602]) {
      writeFileSync(file, text);
      chmodSync(file, mode);
      const store = new ProfileStore(dir);
      const shown = mode.toString(8).padStart(4, '0');
      expect(() => store.read()).toThrow(ConfigError);
      expect(() => store.read()).toThrow(
        `Cannot read the config store ${file}: other users can read or change it (mode ${shown}); run \`chmod 600 ${file}\`.`,
      );
      await expect(store.update((data) => void (data.current = undefined))).rejects.toThrow(`chmod 600 ${file}`);
      expect([statSync(file).mode & 0o777, readFileSync(file, 'utf8')]).toEqual([mode, text]);
    }
  });

  it('a store file that belongs to another user is refused, whatever its mode (root reads any file)', () => {
    if (process.getuid?.() !== 0) return;
    const file = join(tmp, 'config.json');
    writeFileSync(file, '{"profiles": {}}\n', { mode: 0o600 });
    chownSync(file, 65534, 65534);
    expect(() => new ProfileStore(tmp).read()).toThrow(
      `Cannot read the config store ${file}: it belongs to another user (uid 65534), who may change it; hedge trusts only files of yours or root's.`,
    );
  });

  it('a store that is a symbolic link, or larger than the bound, is refused before it is read', async () => {
    const file = join(tmp, 'config.json');
    const real = join(tmp, 'real.json');
    writeFileSync(real, '{"current": "elsewhere", "profiles": {}}\n', { mode: 0o600 });
    symlinkSync(real, file);
    const store = new ProfileStore(tmp);
    expect(() => store.read()).toThrow(
      `Cannot read the config store ${file}: a symbolic link where a file was expected.`,
    );
    await expect(store.update((data) => void (data.current = 'x'))).rejects.toThrow('a symbolic link');
    expect(readFileSync(real, 'utf8')).toBe('{"current": "elsewhere", "profiles": {}}\n');
    rmSync(file);
    // Sparse: it says 5 MiB, and is never read.
    writeFileSync(file, '', { mode: 0o600 });
    truncateSync(file, 5 * 1024 * 1024);
    expect(() => store.read()).toThrow(`Cannot read the config store ${file}: it holds more than 4 MiB.`);
  });

  it('reports a bad profile name as a ConfigError naming the file, and never writes over it', async () => {
    const text = '{"profiles": {"../etc": {"base_url": "https://x/v2"}}}';
    writeFileSync(join(tmp, 'config.json'), text, { mode: 0o600 });
    const store = new ProfileStore(tmp);
    expect(() => store.read()).toThrow(ConfigError);
    expect(() => store.read()).toThrow(join(tmp, 'config.json'));
    await expect(
      store.update((data) => {
        data.current = 'x';
      }),
    ).rejects.toThrow(ConfigError);
    expect(readFileSync(join(tmp, 'config.json'), 'utf8')).toBe(text);
  });

  it('holds the lock while it writes, and releases it after (a failed change too); takes over a lock left by a dead process (its lock no longer refreshed)', async () => {
    const store = new ProfileStore(tmp);
    let heldDuring = false;
    await store.update((data) => {
      data.current = 'a';
    });
    await expect(
      store.update(() => {
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    // The lock is proper-lockfile's, as the journal's: asked through its own check, not by file name.
    expect(await check(store.file, { realpath: false })).toBe(false);
    // Taken while the change runs.
    await store.update(() => {
      heldDuring = existsSync(`${store.file}.lock`);
    });
    expect([heldDuring, existsSync(`${store.file}.lock`)]).toEqual([true, false]);

    // A lock left by a dead process (no longer refreshed) is taken over.
    const lockDir = join(tmp, 'config.json.lock');
    mkdirSync(lockDir);
    const longAgo = new Date(Date.now() - 60_000);
    utimesSync(lockDir, longAgo, longAgo);
    // Were it not taken over, update() would wait out its whole bound and throw ConfigError.
    await store.update((data) => {
      data.current = 'b';
    });
    expect([store.read().current, existsSync(lockDir)]).toEqual(['b', false]);
  });

  it('waits for a live holder without blocking the process, says the store is locked after its bound, and writes once it is let go', async () => {
    // The store's lock wait is real time (the store has no clock of hedge's): 300 ms, in which the event loop must run.
    const store = new ProfileStore(tmp, { lockWaitMs: 300 });
    mkdirSync(tmp, { recursive: true });
    // A live holder: proper-lockfile refreshes its lock while it holds it.
    const release = await lock(store.file, { realpath: false, stale: 5_000 });
    let ticks = 0;
    const ticking = setInterval(() => (ticks += 1), 5);
    try {
      await expect(store.update(() => undefined)).rejects.toThrow(/locked by another hedge process/);
    } finally {
      clearInterval(ticking);
    }
    // The event loop ran while it waited (the old lock slept the whole process).
    expect(ticks).toBeGreaterThan(0);
    expect(store.read().current).toBeUndefined();
    const waiting = new ProfileStore(tmp, { lockWaitMs: 20_000 }).update((data) => {
      data.current = 'after';
    });
    await release();
    await waiting;
    expect(store.read().current).toBe('after');
  });
});

const KEY_A = 'hpk_test_UnitCredsKeyAlpha000000001';
const KEY_B = 'hpk_live_UnitCredsKeyBravo000000002';
const KEY_ENV = 'hpk_test_UnitCredsKeyEnv00000000003';

// The key and the base URL of each, end to end: profiles-manage.test.ts (whoami --json); with both
// variables the store is never opened: guarded-files.test.ts.
it.each([
  [
    'HEDGE_PROFILE beats the current profile',
    { HEDGE_PROFILE: 'bravo' },
    undefined,
    {
      profileName: 'bravo',
      environment: 'live',
      caFile: '/bravo.pem',
      sources: { profile: 'environment', caFile: 'profile' },
    },
  ],
  [
    'HEDGE_BASE_URL beats the profile, a trailing / dropped',
    { HEDGE_BASE_URL: 'https://env.example/v2/', HEDGE_PROFILE: 'bravo' },
    undefined,
    { baseUrl: 'https://env.example/v2' },
  ],
  [
    'HEDGE_CA_FILE beats the profile',
    { HEDGE_CA_FILE: '/env.pem', HEDGE_PROFILE: 'bravo' },
    undefined,
    { caFile: '/env.pem', sources: { caFile: 'environment' } },
  ],
  [
    'an explicit --profile takes that profile whole: no environment key is sent to its host',
    { HEDGE_API_KEY: KEY_ENV, HEDGE_BASE_URL: 'https://env.example/v2', HEDGE_CA_FILE: '/env.pem' },
    'bravo',
    { apiKey: KEY_B, caFile: '/bravo.pem', sources: { profile: 'flag' } },
  ],
])('resolveCredentials (flag > environment > stored profile): %s', async (_name, env, profileFlag, expected) => {
  const store = new ProfileStore(join(tmp, 'cfg'));
  await store.update((data) => {
    data.profiles.alpha = { base_url: 'https://alpha.example/v2', api_key: KEY_A };
    data.profiles.bravo = { base_url: 'https://bravo.example/v2', api_key: KEY_B, ca_file: '/bravo.pem' };
    data.current = 'alpha';
  });
  expect(await resolveCredentials({ env, profileFlag, store: () => store })).toMatchObject(expected);
});
