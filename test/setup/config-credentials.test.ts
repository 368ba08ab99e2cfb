// Precedence of the settings a command runs with: flag > environment > stored profile, and the
// source of each as `hedge whoami` reports it. With nothing configured: AuthError with the hint.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveCredentials } from '../../src/platform/config/credentials.js';
import { ProfileStore } from '../../src/platform/config/profile-store.js';
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
  });

  it('HEDGE_API_KEY, HEDGE_BASE_URL and HEDGE_CA_FILE beat the profile one by one', async () => {
    // The key and the base URL one by one, end to end: profiles-manage.test.ts (whoami --json); a trailing / dropped.
    expect(await resolve({ HEDGE_BASE_URL: 'https://env.example/v2/', HEDGE_PROFILE: 'bravo' })).toMatchObject({
      baseUrl: 'https://env.example/v2',
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
    // Its key and base URL: profiles-manage.test.ts (whoami --json); its CA file too.
    expect(picked).toMatchObject({ apiKey: KEY_B, caFile: '/bravo.pem', sources: { profile: 'flag' } });
  });
});
