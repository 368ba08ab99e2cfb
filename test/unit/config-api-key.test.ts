// What a key may look like and how much of it may ever be shown.
import { describe, expect, it } from 'vitest';
import { environmentOfKey, redactKey, registerSecret, scrubSecrets, validateApiKey } from '../../src/security/secrets.js';
import { AuthError } from '../../src/errors.js';

describe('environmentOfKey / validateApiKey', () => {
  it('reads the environment from the prefix', () => {
    expect(environmentOfKey('hpk_live_abcdefghijklmnop')).toBe('live');
    expect(environmentOfKey('hpk_test_abcdefghijklmnop')).toBe('test');
  });

  it('refuses anything else with AuthError, showing at most a redacted form', () => {
    for (const key of ['hpk_prod_abcdefghijklmnop', 'hpk_test_short', 'live_abcdefghijklmnop', 'hpk_test_abc defghijklmnop', '"hpk_test_abcdefghijklmnop"']) {
      expect(environmentOfKey(key), key).toBeUndefined();
      try {
        validateApiKey(key, 'stdin');
        expect.unreachable(key);
      } catch (error) {
        expect(error).toBeInstanceOf(AuthError);
        expect((error as Error).message).not.toContain(key);
      }
    }
  });
});

describe('redactKey', () => {
  it('shows at most the first 8 and the last 4 characters, less for short keys', () => {
    expect(redactKey('hpk_test_ABCDEFGHIJKLMNOPQRSTUVWX')).toBe('hpk_test…UVWX');
    expect(redactKey('hpk_test_ABCD')).toBe('hpk_…');
    expect(redactKey('short')).toBe('…');
  });
});

describe('scrubSecrets', () => {
  it('replaces a registered key, and anything shaped like a key, by its redacted form', () => {
    const registered = 'somekeyvalue-not-shaped-1234567890';
    registerSecret(registered);
    const shaped = 'hpk_live_NeverRegistered000000000001';
    const text = `a ${registered} b --api-key=${shaped} c hpk_test_x`;
    const scrubbed = scrubSecrets(text);
    expect(scrubbed).not.toContain(registered);
    expect(scrubbed).not.toContain(shaped);
    expect(scrubbed).toContain(redactKey(shaped));
    // Too short to be a key: left alone.
    expect(scrubbed).toContain('hpk_test_x');
  });
});
