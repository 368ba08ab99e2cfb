// What a key may look like and how much of it may ever be shown.
import {
  environmentOfKey,
  redactKey,
  registerSecret,
  scrubSecrets,
  validateApiKey,
} from '../../src/core/security/secrets.js';
import { AuthError } from '../../src/core/errors.js';
import { piecesShown } from '../support/keys.js';

/** The message of the AuthError validateApiKey throws for `text` (the test fails if it throws none). */
function refusal(text: string, from = 'stdin') {
  const error = (() => {
    try {
      validateApiKey(text, from);
    } catch (thrown) {
      return thrown;
    }
  })();
  expect(error, text).toBeInstanceOf(AuthError);
  return (error as Error).message;
}

// The environment a well-formed key's prefix names: profiles-manage.test.ts (profile list).
it.each(
  'hpk_prod_abcdefghijklmnop,hpk_test_short,live_abcdefghijklmnop,hpk_test_abc defghijklmnop,"hpk_test_abcdefghijklmnop"'.split(
    ',',
  ),
)('validateApiKey refuses %j with AuthError (environmentOfKey: none), showing at most a redacted form', (key) => {
  expect(environmentOfKey(key)).toBeUndefined();
  expect(refusal(key)).not.toContain(key);
});

it.each([
  ['MyBankPassw0rd9931', '18 characters with no _live_ or _test_ part'],
  ['Qz7x Vw3kPj9mRt2sLb8n', '21 characters with whitespace in it'],
  [
    'Qz7xVw3k_live_Pj9!mRt2sLb8n',
    '27 characters whose prefix or rest is of the wrong length or has characters a key does not',
  ],
])(
  'never shows text that is not a key, not even its first or last characters: only its length and shape (%j)',
  (secret, shape) => {
    const message = refusal(secret, '--key-command');
    expect(message).toBe(
      `The API key from --key-command is malformed: expected <prefix>_live_<...> or <prefix>_test_<...>; what came is ${shape} (none of it is shown).`,
    );
    // The shape it names (_live_, _test_) is the message's own; nothing else of the text is.
    expect(piecesShown(message.replaceAll('_live_', ' ').replaceAll('_test_', ' '), secret)).toEqual([]);
  },
);

it('redactKey: shows at most the first 8 and the last 4 characters, less for short keys', () => {
  expect([redactKey('hpk_test_ABCDEFGHIJKLMNOPQRSTUVWX'), redactKey('hpk_test_ABCD'), redactKey('short')]).toEqual([
    'hpk_test…UVWX',
    'hpk_…',
    '…',
  ]);
});

it('scrubSecrets: replaces a registered key, and anything shaped like a key, by its redacted form', () => {
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
