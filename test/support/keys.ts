// The API keys the end-to-end tests use. A simulator accepts only the test keys it was started
// with; every simulator refuses a live key (401 live_key_refused), so a request made with one
// would show in its log. The in-process engine tests have their own keys (engine.ts).

/** The key a `frozen` simulator accepts (read-command tests). */
export const FROZEN_KEY = 'hpk_test_ReadCommandsE2eKey00000001';

/** Three test keys a `keys` simulator accepts (profiles, login). */
export const PROFILE_KEYS = [
  'hpk_test_ProfilesKeyAlpha000000000001',
  'hpk_test_ProfilesKeyBravo000000000002',
  'hpk_test_ProfilesKeyCharlie00000000003',
] as const;
export const [KEY_A, KEY_B, KEY_C] = PROFILE_KEYS;

/** Well-formed, but no simulator account has it: the server answers 401. */
export const UNKNOWN_KEY = 'hpk_test_ProfilesKeyUnknown0000000009';

/** A key of the live shape: refused by every simulator. */
export const LIVE_KEY = 'hpk_live_AbCdEfGhIjKlMnOpQrStUvWx';

/** Every run of four characters of `secret` that `text` repeats (where none may be). */
export const piecesShown = (text: string, secret: string) =>
  Array.from({ length: secret.length - 3 }, (_, at) => secret.slice(at, at + 4)).filter((piece) =>
    text.includes(piece),
  );
