// Key validation, environment detection and redaction: the one place that decides what a key looks like and how much of it may ever be shown.
import { AuthError } from '../errors.js';

export type Environment = 'live' | 'test';

const KEY_SHAPE = /^([A-Za-z][A-Za-z0-9]{1,15})_(live|test)_([A-Za-z0-9_-]{8,200})$/;

export function containsKeyShape(text: string) {
  return KEY_MIDDLE.test(text) && /[A-Za-z][A-Za-z0-9]{1,15}_(live|test)_[A-Za-z0-9_-]{8,}/.test(text);
}

/** Whether text holds anything shaped like a key once its percent-escapes are read, as a server reads a path or a query (escaped twice or more too). */
export function carriesKeyShape(text: string) {
  for (let read = text, before = ''; read !== before;) {
    if (containsKeyShape(read)) return true;
    before = read;
    read = read.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
  return false;
}

/** A quick test before the key-shape regex: every string that leaves passes (security/safe-text.ts), and most hold neither. */
const KEY_MIDDLE = /_(?:live|test)_/;

export function environmentOfKey(key: string) {
  const match = KEY_SHAPE.exec(key);
  return match ? (match[2] as Environment) : undefined;
}

export function validateApiKey(key: string, source: string) {
  const environment = environmentOfKey(key);
  if (environment) return environment;
  // What is wrong with it, in words that repeat none of it.
  const length = `${key.length} character${key.length === 1 ? '' : 's'}`;
  const shape = /\s/.test(key)
    ? `${length} with whitespace in it`
    : KEY_MIDDLE.test(key)
      ? `${length} whose prefix or rest is of the wrong length or has characters a key does not`
      : `${length} with no _live_ or _test_ part`;
  throw new AuthError(
    `The API key from ${source} is malformed: expected <prefix>_live_<...> or <prefix>_test_<...>; what came is ${shape} (none of it is shown).`,
    { hint: 'Copy the key again from the settings area of the partner desk, then run `hedge login`.' },
  );
}

export function redactKey(key: string) {
  if (key.length >= 20) return `${key.slice(0, 8)}…${key.slice(-4)}`;
  if (key.length >= 10) return `${key.slice(0, 4)}…`;
  return '…';
}

/** Each secret met so far and what is shown in its place, the longest first: a secret inside another is replaced as part of the longer one. */
let knownSecrets: Array<[secret: string, shown: string]> = [];

/** Remembers a secret so that `scrubSecrets` can remove it from any text leaving the process. */
export function registerSecret(key: string, shownAs?: string) {
  // A password of a few characters still must not show; a key is never that short.
  if (key.length < 8 && (shownAs === undefined || key.length < 3)) return;
  knownSecrets = [...knownSecrets.filter(([secret]) => secret !== key), [key, shownAs ?? redactKey(key)]];
  knownSecrets.sort(([a], [b]) => b.length - a.length);
}

// Anything shaped like a key, even one never registered (e.g. typed as an unknown flag).
const KEY_SHAPE_ANYWHERE = /(?<![A-Za-z0-9])[A-Za-z][A-Za-z0-9]{1,15}_(?:live|test)_[A-Za-z0-9_-]{8,200}/g;

/** The text with every known secret and anything shaped like a key replaced by its redacted form. */
export function scrubSecrets(text: string) {
  let scrubbed = text;
  // A function, so that a `$` in what is shown is never read as a replacement pattern.
  for (const [secret, shown] of knownSecrets) scrubbed = scrubbed.replaceAll(secret, () => shown);
  return KEY_MIDDLE.test(scrubbed) ? scrubbed.replace(KEY_SHAPE_ANYWHERE, redactKey) : scrubbed;
}

/** Whether the text holds a secret met so far (a key, a password) or anything shaped like a key. */
export function holdsSecret(text: string) {
  return knownSecrets.some(([secret]) => text.includes(secret)) || containsKeyShape(text);
}
