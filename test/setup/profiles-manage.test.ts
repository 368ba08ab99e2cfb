// Profiles once saved: where each setting comes from (flag > environment > stored profile, as
// `whoami --json` reports it), profile list/use/remove, logout, and what happens with nothing
// configured at all.
import { beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { hedgeIn } from '../support/hedge-cli.js';
import { readStore, writeStore } from '../support/config-store.js';
import { KEY_A, KEY_B, KEY_C, LIVE_KEY, UNKNOWN_KEY } from '../support/keys.js';
import { useProfileSuite, type TempDir } from '../support/profile-suite.js';
import type { Simulator } from '../support/simulator.js';
import { okJson, ok, exits } from '../support/cli-runs.js';

let simulator: Simulator;
let sandbox: RunningSandbox;
let tmp: TempDir;
const suite = useProfileSuite('hedge-profiles-');
beforeEach(() => ({ simulator, sandbox, tmp } = suite));

/** Two test profiles on the sandbox ("alpha" current) and a logged-out live one. */
function seedProfiles() {
  writeStore(tmp.path, {
    current: 'alpha',
    profiles: {
      alpha: { base_url: sandbox.baseUrl, api_key: KEY_A },
      bravo: { base_url: sandbox.baseUrl, api_key: KEY_B },
      prod: { base_url: 'https://api.example.com/partners/acme/v2', api_key: LIVE_KEY },
      gone: { base_url: sandbox.baseUrl },
    },
  });
}

async function whoami(env: Record<string, string> = {}, args: string[] = []) {
  const result = okJson(await hedgeIn(tmp.path, [...args, 'whoami', '--json'], { env }));
  return result;
}

describe('precedence: flag > environment > profile (whoami --json)', () => {
  beforeEach(seedProfiles);

  it('uses the current profile when nothing else is said', async () => {
    const shown = await whoami();
    expect(shown).toMatchObject({
      profile: 'alpha',
      environment: 'test',
      base_url: sandbox.baseUrl,
      sources: { profile: 'current', api_key: 'profile', base_url: 'profile' },
      key_check: { status: 'ok' },
    });
    expect(shown.api_key).toBe(`${KEY_A.slice(0, 8)}…${KEY_A.slice(-4)}`);
    expect(simulator.requests('GET', '/account')).toHaveLength(1);
  });

  it('HEDGE_PROFILE picks another profile; --profile beats it', async () => {
    expect(await whoami({ HEDGE_PROFILE: 'bravo' })).toMatchObject({
      profile: 'bravo',
      sources: { profile: 'environment' },
    });
    const flagged = await whoami({ HEDGE_PROFILE: 'bravo' }, ['--profile', 'alpha']);
    expect(flagged).toMatchObject({ profile: 'alpha', sources: { profile: 'flag' } });
    expect(flagged.api_key).toBe(`${KEY_A.slice(0, 8)}…${KEY_A.slice(-4)}`);
    // A global option after the command counts the same.
    const after = await hedgeIn(tmp.path, 'whoami --json --profile bravo');
    expect(JSON.parse(after.stdout)).toMatchObject({ profile: 'bravo', sources: { profile: 'flag' } });
  });

  it('HEDGE_API_KEY and HEDGE_BASE_URL beat the profile, each on its own', async () => {
    const keyOnly = await whoami({ HEDGE_API_KEY: KEY_C });
    expect(keyOnly).toMatchObject({ profile: 'alpha', sources: { api_key: 'environment', base_url: 'profile' } });
    expect(keyOnly.api_key).toBe(`${KEY_C.slice(0, 8)}…${KEY_C.slice(-4)}`);

    const prodWithEnvUrl = await whoami({ HEDGE_BASE_URL: sandbox.baseUrl, HEDGE_PROFILE: 'bravo' });
    expect(prodWithEnvUrl).toMatchObject({
      profile: 'bravo',
      sources: { api_key: 'profile', base_url: 'environment' },
    });

    // An explicit --profile takes that profile whole, whatever the environment says.
    const explicit = await whoami({ HEDGE_API_KEY: KEY_C, HEDGE_BASE_URL: 'https://elsewhere.example/v2' }, [
      '--profile',
      'bravo',
    ]);
    expect(explicit).toMatchObject({ profile: 'bravo', sources: { api_key: 'profile', base_url: 'profile' } });

    const both = await whoami({ HEDGE_API_KEY: KEY_C, HEDGE_BASE_URL: sandbox.baseUrl });
    expect(both.sources).toMatchObject({ api_key: 'environment', base_url: 'environment' });
  });

  it('the human card says where each setting came from and marks a live key LIVE', async () => {
    const plainCard = ok(await hedgeIn(tmp.path, 'whoami', { env: { HEDGE_FORCE_TTY: '1', HEDGE_API_KEY: KEY_C } }));
    expect(plainCard.stdout).toContain('HEDGE_API_KEY');
    expect(plainCard.stdout).toContain('the current profile');
    expect(plainCard.stdout).toMatch(/Key check.*ok/);

    // The live profile points at an address nobody listens on: unreachable, exit 5, still LIVE.
    writeStore(tmp.path, {
      current: 'prod',
      profiles: { prod: { base_url: 'https://127.0.0.1:9/v2', api_key: LIVE_KEY } },
    });
    const live = await hedgeIn(tmp.path, 'whoami', { env: { HEDGE_FORCE_TTY: '1' } });
    expect(live.stdout).toContain('LIVE');
    expect(live.stdout).toMatch(/unreachable/);
    exits(live, 5);
  });

  it('a key the server refuses: whoami shows it as refused and exits 4', async () => {
    const result = exits(await hedgeIn(tmp.path, 'whoami --json', { env: { HEDGE_API_KEY: UNKNOWN_KEY } }), 4);
    expect(JSON.parse(result.stdout)).toMatchObject({ key_check: { status: 'refused', code: 'unauthorized' } });
    expect(result.stderr).toContain('hedge login');
  });
});

describe('profile list / use / remove', () => {
  beforeEach(seedProfiles);

  it('lists every profile with environment, redacted key and the current one; --json never holds a whole key', async () => {
    const json = ok(await hedgeIn(tmp.path, 'profile list --json'));
    const rows = JSON.parse(json.stdout);
    expect(rows.map((row: any) => row.name)).toEqual(['alpha', 'bravo', 'gone', 'prod']);
    expect(rows.find((row: any) => row.name === 'alpha')).toMatchObject({
      current: true,
      environment: 'test',
      base_url: sandbox.baseUrl,
    });
    expect(rows.find((row: any) => row.name === 'prod')).toMatchObject({ current: false, environment: 'live' });
    expect(rows.find((row: any) => row.name === 'gone')).toMatchObject({ api_key: null, environment: null });
    for (const key of [KEY_A, KEY_B, LIVE_KEY]) expect(json.stdout).not.toContain(key);

    const table = ok(await hedgeIn(tmp.path, 'profile list', { env: { HEDGE_FORCE_TTY: '1' } }));
    expect(table.stdout).toMatch(/\*.*alpha/);
    expect(table.stdout).toMatch(/prod.*LIVE/);
    expect(table.stdout).toMatch(/gone.*logged out/);

    const plain = await hedgeIn(tmp.path, 'profile list');
    expect(plain.stdout.split('\n')[0]).toBe(
      'name\tcurrent\tenvironment\tbase_url\tapi_key\tca_file\tjournal_url\tsaved_at\tkey_store',
    );
    expect(plain.stdout.split('\n')[1]).toMatch(/^alpha\ttrue\ttest\t/);
    expect(sandbox.requestLog).toHaveLength(0);
  });

  it('use switches the current profile; an unknown name is exit 2 naming the existing ones', async () => {
    ok(await hedgeIn(tmp.path, 'profile use bravo'));
    expect(readStore(tmp.path).current).toBe('bravo');
    expect((await whoami()).profile).toBe('bravo');

    const live = ok(await hedgeIn(tmp.path, 'profile use prod'));
    expect(live.stderr).toContain('LIVE');

    exits(await hedgeIn(tmp.path, 'profile use nope'), 2, 'no profile named "nope"', 'alpha, bravo, gone, prod');
    expect(readStore(tmp.path).current).toBe('prod');
  });

  it('remove deletes a profile; removing the current one leaves none current', async () => {
    ok(await hedgeIn(tmp.path, 'profile remove bravo'));
    expect(Object.keys(readStore(tmp.path).profiles)).toEqual(['alpha', 'prod', 'gone']);

    const current = ok(await hedgeIn(tmp.path, 'profile remove alpha'));
    expect(current.stderr).toContain('hedge profile use');
    const store = readStore(tmp.path);
    expect(store.current).toBeUndefined();
    expect(store.profiles.alpha).toBeUndefined();

    exits(await hedgeIn(tmp.path, 'profile remove alpha'), 2, 'gone, prod');

    // With no current profile, a command says how to log in (exit 4).
    exits(await hedgeIn(tmp.path, 'markets'), 4, 'hedge login');
  });
});

describe('hedge logout', () => {
  beforeEach(seedProfiles);

  it('removes the key of the current profile and keeps its base URL; commands then exit 4', async () => {
    ok(await hedgeIn(tmp.path, 'logout'));
    const store = readStore(tmp.path);
    expect(store.profiles.alpha).toEqual({ base_url: sandbox.baseUrl });
    expect(store.current).toBe('alpha');
    expect(store.profiles.bravo.api_key).toBe(KEY_B);

    exits(await hedgeIn(tmp.path, 'markets'), 4, 'no API key', 'hedge login');
    expect(sandbox.requestLog).toHaveLength(0);

    const again = okJson(await hedgeIn(tmp.path, 'logout --json'));
    expect(again).toEqual({ profile: 'alpha', logged_out: false, key_store: null });
  });

  it('--profile logs out that profile only; an unknown one is exit 2', async () => {
    const result = okJson(await hedgeIn(tmp.path, 'logout --profile bravo --json'));
    expect(result).toEqual({ profile: 'bravo', logged_out: true, key_store: 'file' });
    const store = readStore(tmp.path);
    expect(store.profiles.bravo.api_key).toBeUndefined();
    expect(store.profiles.alpha.api_key).toBe(KEY_A);

    exits(await hedgeIn(tmp.path, 'logout --profile nope'), 2, 'alpha, bravo');
  });
});

describe('nothing configured', () => {
  it('every command that needs a key exits 4 and says how to log in or try --demo, sending nothing', async () => {
    for (const args of [['markets'], ['account', '--json'], ['whoami']]) {
      const result = exits(await hedgeIn(tmp.path, args), 4, 'hedge login', '--demo');
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    const list = ok(await hedgeIn(tmp.path, 'profile list'));
    expect(list.stderr).toContain('hedge login');
    ok(await hedgeIn(tmp.path, 'logout'));
    expect(sandbox.requestLog).toHaveLength(0);
  });

  it('a malformed HEDGE_API_KEY is exit 4 before any request, and is not echoed whole', async () => {
    const bad = 'hpk_prod_SomethingThatIsNotAKey000';
    const result = await hedgeIn(tmp.path, 'whoami', {
      env: { HEDGE_API_KEY: bad, HEDGE_BASE_URL: sandbox.baseUrl },
    });
    exits(result, 4, 'malformed');
    expect(result.stderr).not.toContain(bad);
    expect(sandbox.requestLog).toHaveLength(0);
  });
});
