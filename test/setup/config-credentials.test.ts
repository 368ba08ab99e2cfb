// Precedence of the settings a command runs with: flag > environment > stored profile, and the
// source of each as `hedge whoami` reports it. With nothing configured: AuthError with the hint.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveCredentials } from '../../src/platform/config/credentials.js';
import { ProfileStore } from '../../src/platform/config/profile-store.js';
import { AuthError } from '../../src/core/errors.js';
import { tempDir } from '../support/hedge-cli.js';

const KEY_A = 'hpk_test_UnitCredsKeyAlpha000000001';
const KEY_B = 'hpk_live_UnitCredsKeyBravo000000002';
const KEY_ENV = 'hpk_test_UnitCredsKeyEnv00000000003';

let tmp: { path: string; remove: () => void };
let store: ProfileStore;
beforeEach(async () => {
  tmp = tempDir('hedge-unit-creds-');
  store = new ProfileStore(join(tmp.path, 'cfg'));
  await store.update((data) => {
    data.profiles.alpha = { base_url: 'https://alpha.example/v2', api_key: KEY_A };
    data.profiles.bravo = { base_url: 'https://bravo.example/v2', api_key: KEY_B, ca_file: '/bravo.pem' };
    data.profiles.out = { base_url: 'https://out.example/v2' };
    data.current = 'alpha';
  });
});
afterEach(() => tmp.remove());

const resolve = (env: Record<string, string> = {}, profileFlag?: string) =>
  resolveCredentials({ env, profileFlag, store: () => store });

describe('resolveCredentials', () => {
  it('--profile beats HEDGE_PROFILE, which beats the current profile', async () => {
    expect(await resolve({ HEDGE_PROFILE: 'bravo' })).toMatchObject({
      profileName: 'bravo',
      environment: 'live',
      caFile: '/bravo.pem',
      sources: { profile: 'environment', caFile: 'profile' },
    });
    expect(await resolve({ HEDGE_PROFILE: 'bravo' }, 'alpha')).toMatchObject({
      profileName: 'alpha',
      sources: { profile: 'flag' },
    });
  });

  it('HEDGE_API_KEY, HEDGE_BASE_URL and HEDGE_CA_FILE beat the profile one by one', async () => {
    expect(await resolve({ HEDGE_API_KEY: KEY_ENV })).toMatchObject({
      apiKey: KEY_ENV,
      baseUrl: 'https://alpha.example/v2',
      sources: { apiKey: 'environment', baseUrl: 'profile' },
    });
    expect(await resolve({ HEDGE_BASE_URL: 'https://env.example/v2/', HEDGE_PROFILE: 'bravo' })).toMatchObject({
      apiKey: KEY_B,
      baseUrl: 'https://env.example/v2',
      sources: { apiKey: 'profile', baseUrl: 'environment' },
    });
    expect(await resolve({ HEDGE_CA_FILE: '/env.pem', HEDGE_PROFILE: 'bravo' })).toMatchObject({
      caFile: '/env.pem',
      sources: { caFile: 'environment' },
    });
  });

  it('an explicit --profile takes that profile whole: no environment key is sent to its host', async () => {
    const picked = await resolve(
      { HEDGE_API_KEY: KEY_ENV, HEDGE_BASE_URL: 'https://env.example/v2', HEDGE_CA_FILE: '/env.pem' },
      'bravo',
    );
    expect(picked).toMatchObject({
      apiKey: KEY_B,
      profileName: 'bravo',
      sources: { apiKey: 'profile', baseUrl: 'profile', profile: 'flag' },
    });
    expect(picked.baseUrl).not.toBe('https://env.example/v2');
    expect(picked.caFile).toBe(store.profile('bravo')?.ca_file);
    expect(picked.caFile).not.toBe('/env.pem');
  });

  it('a logged-out profile, or nothing at all, is an AuthError that says how to log in or try --demo', async () => {
    await expect(resolve({}, 'out')).rejects.toThrow(AuthError);
    await expect(resolve({}, 'out')).rejects.toThrow(/logged out/);
    const empty = new ProfileStore(join(tmp.path, 'empty'));
    try {
      await resolveCredentials({ env: {}, store: () => empty });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(AuthError);
      expect((error as AuthError).hint).toContain('hedge login');
      expect((error as AuthError).hint).toContain('--demo');
    }
  });
});
