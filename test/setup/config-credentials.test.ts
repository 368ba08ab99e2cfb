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

// The key and the base URL of each, end to end: profiles-manage.test.ts (whoami --json).
describe('resolveCredentials', () => {
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
  ])('%s', async (_name, env: Record<string, string>, profileFlag, expected) => {
    expect(await resolveCredentials({ env, profileFlag, store: () => store })).toMatchObject(expected);
  });
});
