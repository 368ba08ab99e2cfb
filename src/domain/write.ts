// Sending one state-changing request. The transport already sends the same Idempotency-Key on
// every retry; this makes sure that whatever way the write fails, the key is shown, so the
// operator can repeat the command with --idempotency-key and be sure it cannot act twice.
import type { CommandContext } from '../context.js';
import { ApiError, NetworkError } from '../errors.js';

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
    } else {
      ctx.output.note(
        `The outcome of this request is unknown. Its idempotency key is ${idempotencyKey}: run the same command with --idempotency-key ${idempotencyKey} to resume safely; it cannot act twice.`,
      );
    }
    throw error;
  }
}
