// A journal row's integrity: it never holds an API key, and it must carry a seal to be sent again.
import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '../../core/files/canonical-json.js';
import { JournalError, type JournalEntry } from './entry.js';
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

/** Written as `<version>.<base64url mac>`. */
const VERSION = 'v2';
const SALT = 'hedge journal row seal';
const INFO = 'v1';

/** Which row it is (its id, its place in its journal and its time: a copy is another row), what it would send, and as whom: everything a resend is decided and built from — the machine that began it (a keeper finishes only what its own machine began) and what its process read before its first send (the server's time then, the side's notional before) included. */
const SEALED = [
  'id',
  'seq',
  'created_at',
  'environment',
  'base_url_host',
  'key_id',
  'host',
  'command',
  'request',
  'idempotency_key',
  'group',
  'leg',
  'via',
  'context',
] as const;
export type SealedFields = Pick<JournalEntry, (typeof SEALED)[number]>;

/** verified: sealed by this key over exactly these fields · unsealed: no seal of this version (a row of an older hedge, or one written by hand) · forged: a seal that does not match. */
type RowTrust = 'verified' | 'unsealed' | 'forged';

/** What `hedge journal` says of a row that could be sent again: its seal's verdict, or that another key sent it. */
export type RowCheck = RowTrust | 'other-key';

export type RowSealer = ReturnType<typeof rowSealer>;

/** A sealer for one API key; the key itself is not kept, only the derived sealing key. */
export function rowSealer(apiKey: string) {
  const sealingKey = Buffer.from(hkdfSync('sha256', apiKey, SALT, INFO, 32));
  const macOf = (fields: SealedFields) => createHmac('sha256', sealingKey).update(sealedText(fields)).digest();
  return {
    seal: (fields: SealedFields) => `${VERSION}.${macOf(fields).toString('base64url')}`,
    trust(row: SealedFields & { seal?: unknown }) {
      if (row.seal == null || /^v1\./.test(String(row.seal))) return 'unsealed';
      if (typeof row.seal !== 'string' || !row.seal.startsWith(`${VERSION}.`)) return 'forged';
      const given = Buffer.from(row.seal.slice(VERSION.length + 1), 'base64url');
      const expected = macOf(row);
      return given.length === expected.length && timingSafeEqual(given, expected) ? 'verified' : 'forged';
    },
  };
}

/** The sealed fields in one text, in SEALED's order (the request as its method, path and body), whatever their order or the store's (absent and null agree: JSON writes an absent element as null). */
function sealedText(fields: SealedFields) {
  const request = fields.request ?? { method: '', path: '', body: null };
  return canonicalJson([
    VERSION,
    ...SEALED.flatMap((name) =>
      name === 'request' ? [String(request.method), String(request.path), request.body] : [fields[name]],
    ),
  ]);
}
