// How a failure reads: one line for bad input; code, sentence and next step for API errors;
// a JSON object on stderr under --json. Everything passes through the secret scrubber.
import type { ChalkInstance } from 'chalk';
import { guideFor } from '../api/error-guide.js';
import { scrubSecrets } from '../config/api-key.js';
import {
  ApiError,
  ConfigError,
  HedgeError,
  InterruptedError,
  InvalidResponseError,
  NetworkError,
  OrderFailedError,
  PreTradeCheckError,
  StillPendingError,
  UsageError,
} from '../errors.js';
import { EXIT_CODES, exitCodeFor } from '../exit-codes.js';

function errorName(exitCode: number): string {
  return EXIT_CODES.find((entry) => entry.code === exitCode)?.name ?? 'unexpected';
}

export function errorAsJson(error: unknown): Record<string, unknown> {
  const exitCode = exitCodeFor(error);
  if (error instanceof ApiError) {
    return {
      code: error.code,
      message: error.message,
      details: error.details,
      status: error.status,
      request_id: error.requestId,
      idempotency_key: error.idempotencyKey,
      hint: error.hint ?? guideFor(error.code, error.status).next,
    };
  }
  if (error instanceof PreTradeCheckError) {
    return { code: error.code, message: error.message, details: error.details, status: null, hint: error.hint };
  }
  const base: Record<string, unknown> = {
    code: errorName(exitCode),
    message: error instanceof Error ? error.message : String(error),
    details: {},
    status: null,
  };
  if (error instanceof NetworkError) {
    base.code = error.code ?? 'network';
    base.status = error.status ?? null;
    base.details = { endpoint: error.endpoint, attempts: error.attempts };
    if (error.idempotencyKey) base.idempotency_key = error.idempotencyKey;
  } else if (error instanceof InvalidResponseError) {
    base.code = 'invalid_response';
    base.status = error.status;
    base.details = { endpoint: error.endpoint };
  } else if (error instanceof OrderFailedError) {
    base.code = 'order_failed';
    base.details = { hedge_id: error.hedgeId };
  } else if (error instanceof ConfigError) {
    base.code = 'config';
  } else if (error instanceof StillPendingError) {
    base.code = 'still_pending';
    base.details = { resume: error.resumeCommand };
  }
  if (error instanceof HedgeError && error.hint) base.hint = error.hint;
  if (error instanceof HedgeError && error.idempotencyKey) base.idempotency_key = error.idempotencyKey;
  return base;
}

export function reportError(
  error: unknown,
  out: { stderr: NodeJS.WritableStream; chalk: ChalkInstance; json: boolean; verbose: boolean },
): number {
  const exitCode = exitCodeFor(error);
  const write = (text: string) => out.stderr.write(`${scrubSecrets(text)}\n`);
  if (out.json) {
    write(JSON.stringify({ error: errorAsJson(error) }));
    if (out.verbose && !(error instanceof HedgeError) && error instanceof Error && error.stack) write(error.stack);
    return exitCode;
  }
  const c = out.chalk;
  if (error instanceof UsageError) {
    write(`hedge: ${error.message}`);
    return exitCode;
  }
  if (error instanceof ApiError) {
    const guide = guideFor(error.code, error.status);
    write(c.red(`error: ${guide.sentence} (${error.code}, HTTP ${error.status})`));
    write(`  ${error.message}`);
    for (const [key, value] of Object.entries(error.details)) write(c.dim(`  ${key}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`));
    if (error.requestId) write(c.dim(`  request id: ${error.requestId}`));
    if (error.idempotencyKey) write(c.dim(`  idempotency key: ${error.idempotencyKey}`));
    write(`  → ${error.hint ?? guide.next}`);
    return exitCode;
  }
  if (error instanceof InterruptedError) {
    // Stopping on request is not a failure: say what stands, without alarm.
    write(c.yellow(error.message));
    if (error.idempotencyKey) write(c.dim(`  idempotency key: ${error.idempotencyKey}`));
    if (error.hint) write(`  → ${error.hint}`);
    return exitCode;
  }
  if (error instanceof HedgeError) {
    write(c.red(`error: ${error.message}`));
    if (error instanceof PreTradeCheckError) {
      for (const [key, value] of Object.entries(error.details)) write(c.dim(`  ${key}: ${String(value)}`));
    }
    if (error.hint) write(`  → ${error.hint}`);
    if (out.verbose && error.cause instanceof Error) write(c.dim(`  cause: ${error.cause.message}`));
    return exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  write(c.red(`error: unexpected failure: ${message}`));
  if (out.verbose && error instanceof Error && error.stack) write(error.stack);
  else write('  → Run again with --verbose for the stack trace, and report it.');
  return exitCode;
}
