// What a key may look like and how much of it may ever be shown.
import { describe, expect, it } from 'vitest';
import {
  environmentOfKey,
  redactKey,
  registerSecret,
  scrubSecrets,
  validateApiKey,
} from '../../src/core/security/secrets.js';
import { AuthError } from '../../src/core/errors.js';

describe('environmentOfKey / validateApiKey', () => {
  it('reads the environment from the prefix', () => {
    expect(environmentOfKey('hpk_live_abcdefghijklmnop')).toBe('live');
    expect(environmentOfKey('hpk_test_abcdefghijklmnop')).toBe('test');
  });

  it('refuses anything else with AuthError, showing at most a redacted form', () => {
    for (const key of [
      'hpk_prod_abcdefghijklmnop',
      'hpk_test_short',
      'live_abcdefghijklmnop',
      'hpk_test_abc defghijklmnop',
      '"hpk_test_abcdefghijklmnop"',
    ]) {
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

/** Every run of four characters of `secret` that `text` repeats (none may be). */
function piecesShown(text: string, secret: string) {
  const pieces: string[] = [];
  for (let at = 0; at + 4 <= secret.length; at += 1)
    if (text.includes(secret.slice(at, at + 4))) pieces.push(secret.slice(at, at + 4));
  return pieces;
}

describe('validateApiKey: text that is not a key', () => {
  it('is never shown, not even its first or last characters: only its length and what is wrong with its shape', () => {
    const cases: Array<[string, string]> = [
      ['MyBankPassw0rd9931', '18 characters with no _live_ or _test_ part'],
      ['Qz7x Vw3kPj9mRt2sLb8n', '21 characters with whitespace in it'],
      [
        'Qz7xVw3k_live_Pj9!mRt2sLb8n',
        '27 characters whose prefix or rest is of the wrong length or has characters a key does not',
      ],
    ];
    for (const [secret, shape] of cases) {
      let message = '';
      try {
        validateApiKey(secret, '--key-command');
      } catch (error) {
        expect(error).toBeInstanceOf(AuthError);
        message = (error as Error).message;
      }
      expect(message).toBe(
        `The API key from --key-command is malformed: expected <prefix>_live_<...> or <prefix>_test_<...>; what came is ${shape} (none of it is shown).`,
      );
      // The shape it names (_live_, _test_) is the message's own; nothing else of the text is.
      expect(piecesShown(message.replaceAll('_live_', ' ').replaceAll('_test_', ' '), secret), secret).toEqual([]);
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
