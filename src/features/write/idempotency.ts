// One Idempotency-Key per state-changing command: made here once, handed to the transport, which sends the same
// key on every automatic retry, so the server acts at most once.
import { randomUUID } from 'node:crypto';
import { UsageError } from '../../core/errors.js';
import { echo } from '../../core/input.js';

/** The spec asks for "any unique string"; a header value must be visible ASCII, and we bound its length. */
const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

export function makeIdempotencyKey(): string {
  return randomUUID();
}

/** Checks a key typed with --idempotency-key (exit 2 before anything is sent). */
export function parseIdempotencyKey(raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  const value = String(raw).trim();
  if (!KEY_SHAPE.test(value)) {
    throw new UsageError(
      `--idempotency-key: ${echo(String(raw))} is not allowed; expected 1 to 255 visible ASCII characters without spaces (the key an earlier run printed).`,
    );
  }
  return value;
}
