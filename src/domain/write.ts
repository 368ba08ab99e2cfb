// Sending one state-changing request. The transport already sends the same Idempotency-Key on
// every retry; this makes sure that whatever way the write fails, the key is shown, so the
// operator can repeat the command with --idempotency-key and be sure it cannot act twice.
import type { CommandContext } from '../context.js';
import { ApiError, InvalidResponseError, NetworkError } from '../errors.js';

export interface WriteOptions {
  /** --no-wait: return at `submitted`. */
  wait: boolean;
  dryRun: boolean;
  idempotencyKey: string;
  /** --idempotency-key was given: this run resumes an earlier one. */
  resumed: boolean;
}

export function writeOptions(options: Record<string, unknown>, idempotency: { key: string; resumed: boolean }): WriteOptions {
  return {
    wait: options.wait !== false,
    dryRun: options.dryRun === true,
    idempotencyKey: idempotency.key,
    resumed: idempotency.resumed,
  };
}

export async function sendWrite<T>(ctx: CommandContext, idempotencyKey: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (error instanceof ApiError || error instanceof NetworkError) {
      // A 4xx is thrown on the first answer, before the transport's retry bookkeeping names the key.
      error.idempotencyKey ??= idempotencyKey;
    } else if (error instanceof InvalidResponseError) {
      // An unreadable answer to a write may hide a success: a fresh run (a new key) could act twice.
      throw new InvalidResponseError(error.message, {
        endpoint: error.endpoint,
        status: error.status,
        hint: `The outcome is unknown: the server may have acted. Run the same command again with --idempotency-key ${idempotencyKey} to resume safely; it cannot act twice.`,
        cause: error.cause,
      });
    } else {
      ctx.output.note(
        `The outcome of this request is unknown. Its idempotency key is ${idempotencyKey}: run the same command with --idempotency-key ${idempotencyKey} to resume safely; it cannot act twice.`,
      );
    }
    throw error;
  }
}
