// The journal never holds an API key.
import { createHash } from 'node:crypto';
import { JournalError } from './journal-error.js';
import { containsKeyShape } from '../../core/security/secrets.js';

/** The first `digits` hex digits of the text's sha256: tells keys and scopes apart without revealing them. */
export function sha256Hex(text: string, digits: number) {
  return createHash('sha256').update(text).digest('hex').slice(0, digits);
}

/** First 12 hex digits of the key's sha256. */
export const keyFingerprint = (apiKey: string) => sha256Hex(apiKey, 12);

/** Where in the value (a property path) a key-shaped string sits, property names included. */
function findKeyShapedString(value: unknown, path = '$'): string | undefined {
  if (typeof value === 'string') return containsKeyShape(value) ? path : undefined;
  // A number, a boolean or null has no entries.
  for (const [name, child] of Object.entries(value ?? {})) {
    // The name goes into the path only when it is safe to show.
    if (containsKeyShape(name)) return `${path} (a property name)`;
    const found = findKeyShapedString(child, Array.isArray(value) ? `${path}[${name}]` : `${path}.${name}`);
    if (found) return found;
  }
}

/** Refuses to `what` (journal an event, write a heartbeat) a value holding anything shaped like an API key. */
export function refuseKeyShaped(value: object, what: string, hint?: string) {
  const where = findKeyShapedString(value);
  if (where)
    throw new JournalError(
      `Refused to ${what} holding something shaped like an API key (at ${where}); nothing was written.`,
      { hint },
    );
}
