// How a failure reads, from its one description (src/platform/terminal/exit-codes.ts describeError): one line for bad input; code, sentence and next step for API errors; a JSON object on stderr under --json.
import type { ChalkInstance } from 'chalk';
import { errorAsJson, type ErrorDescription } from './exit-codes.js';
import { safeJson, safeMultiline, safeText } from '../../core/security/safe-text.js';
import { stripVTControlCharacters } from 'node:util';
import { wrapWords } from './width.js';

export function reportError(
  description: ErrorDescription,
  error: unknown,
  out: { stderr: NodeJS.WritableStream; chalk: ChalkInstance; json: boolean; verbose: boolean; columns?: number },
) {
  const { exitCode, kind, code, sentence, requestId, idempotencyKey, hint } = description;
  const columns = out.json ? undefined : out.columns;
  const write = (text: string) =>
    out.stderr.write(
      `${
        columns === undefined
          ? text
          : text
              .split('\n')
              // A wrapped line continues under its text: ` → hint` under the hint.
              .map((line) =>
                wrapWords(line, columns, {
                  hangingIndent: /^ *(?:→ )?/.exec(stripVTControlCharacters(line))![0].length,
                }),
              )
              .join('\n')
      }\n`,
    );
  const stack = out.verbose && exitCode === 1 && error instanceof Error ? error.stack : undefined;
  const c = out.chalk;
  // The server's words are one line of the message: a newline of theirs would start a line that reads as hedge's own.
  const words = description.server?.words;
  const message = safeMultiline(
    words ? description.message.replace(words, () => safeText(words)) : description.message,
  );
  if (out.json) {
    write(safeJson({ error: errorAsJson(description) }));
    if (stack) write(safeMultiline(stack));
  }
  // One prefix for every error, as Unix tools write theirs: `hedge: …` (docs/output.md, "Messages").
  else if (kind === 'usage') write(`hedge: ${message}`);
  else {
    // Stopping on request is not a failure: say what stands, without alarm.
    if (['interrupted', 'terminated', 'hangup', 'declined'].includes(kind)) write(c.yellow(message));
    else {
      if (sentence === undefined)
        write(c.red(`hedge: ${code === 'unexpected' ? 'unexpected failure: ' : ''}${message}`));
      else {
        write(c.red(`hedge: ${sentence} (${safeText(code)}, HTTP ${description.status})`));
        write(`  ${message}`);
      }
      // A plan's failed checks are the lines of its message already.
      if (!['still_pending', 'order_failed', 'plan_check_failed'].includes(code) && kind !== 'network')
        for (const [key, value] of Object.entries(description.details))
          write(
            c.dim(`  ${safeText(key)}: ${safeText(typeof value === 'object' ? JSON.stringify(value) : String(value))}`),
          );
      if (requestId) write(c.dim(`  request id: ${safeText(requestId)}`));
    }
    if (idempotencyKey) write(c.dim(`  idempotency key: ${safeText(idempotencyKey)}`));
    if (hint) write(`  → ${safeMultiline(hint)}`);
    if (stack) write(safeMultiline(stack));
    else if (out.verbose && error instanceof Error && error.cause instanceof Error)
      write(c.dim(`  cause: ${safeText(error.cause.message)}`));
  }
  return exitCode;
}
