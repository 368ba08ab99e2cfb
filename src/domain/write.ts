// Sending one state-changing request. The transport already sends the same Idempotency-Key on
// every retry; this makes sure that whatever way the write fails, the key is shown, so the
// operator can repeat the command with --idempotency-key and be sure it cannot act twice.
import type { CommandContext } from '../context.js';
import { HedgeError, InterruptedError, InvalidResponseError } from '../errors.js';

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
  } catch (caught) {
    let error = caught;
    const unknownOutcome = `The outcome is unknown: the server may have acted. Run the same command again with --idempotency-key ${idempotencyKey} to resume safely; it cannot act twice.`;
    // An unreadable answer, or Ctrl-C while the request was out, may hide a success: a fresh run
    // (a new key) could act twice, so the way to resume is said.
    if (error instanceof InvalidResponseError) {
      error = new InvalidResponseError(error.message, { endpoint: error.endpoint, status: error.status, hint: unknownOutcome, cause: error.cause });
    } else if (error instanceof InterruptedError) {
      error = new InterruptedError(error.message, { hint: unknownOutcome, cause: error.cause });
    }
    if (error instanceof HedgeError) {
      // Whatever stopped the write (an answer, the network, Ctrl-C), the report names its key.
      error.idempotencyKey ??= idempotencyKey;
    } else {
      ctx.output.note(
        `The outcome of this request is unknown. Its idempotency key is ${idempotencyKey}: run the same command with --idempotency-key ${idempotencyKey} to resume safely; it cannot act twice.`,
      );
    }
    throw error;
  }
}
