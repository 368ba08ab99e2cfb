// How a failure reads, from its one description (src/platform/terminal/exit-codes.ts describeError): one line for bad input; code, sentence and next step for API errors; a JSON object on stderr under --json.
import type { ChalkInstance } from 'chalk';
import { errorAsJson, type ErrorDescription } from './exit-codes.js';
import { safeJson, safeMultiline, safeText } from '../../core/security/safe-text.js';
import { stripVTControlCharacters } from 'node:util';
import { wrapWords } from './width.js';

/** Spaces that continue a wrapped line under its text: ` → hint` continues under the hint. */
function hangingIndentOf(line: string) {
  return /^ *(?:→ )?/.exec(stripVTControlCharacters(line))![0].length;
}

export function reportError(
  description: ErrorDescription,
  error: unknown,
  out: { stderr: NodeJS.WritableStream; chalk: ChalkInstance; json: boolean; verbose: boolean; columns?: number },
) {
  const columns = out.json ? undefined : out.columns;
  const fitLine = (text: string) =>
    columns === undefined
      ? text
      : text
          .split('\n')
          .map((line) => wrapWords(line, columns, { hangingIndent: hangingIndentOf(line) }))
          .join('\n');
  const write = (text: string) => out.stderr.write(`${fitLine(text)}\n`);
  if (out.json) {
    write(safeJson({ error: errorAsJson(description) }));
    if (out.verbose && description.exitCode === 1 && error instanceof Error && error.stack)
      write(safeMultiline(error.stack));
    return description.exitCode;
  }
  const c = out.chalk;
  const message = safeMultiline(description.message);
  switch (description.kind) {
    case 'usage':
      // One prefix for every error, as Unix tools write theirs: `hedge: …` (docs/output.md, "Messages").
      write(`hedge: ${message}`);
      return description.exitCode;
    case 'interrupted':
    case 'terminated':
    case 'hangup':
    case 'declined':
      // Stopping on request is not a failure: say what stands, without alarm.
      write(c.yellow(message));
      break;
    default:
      if (description.sentence !== undefined) {
        write(c.red(`hedge: ${description.sentence} (${safeText(description.code)}, HTTP ${description.status})`));
        write(`  ${message}`);
      } else {
        write(c.red(`hedge: ${description.code === 'unexpected' ? 'unexpected failure: ' : ''}${message}`));
      }
      for (const [key, value] of Object.entries(description.details)) {
        // A plan's failed checks are the lines of its message already.
        if (
          description.code === 'still_pending' ||
          description.kind === 'network' ||
          description.code === 'order_failed' ||
          description.code === 'plan_check_failed'
        )
          continue;
        write(
          c.dim(`  ${safeText(key)}: ${safeText(typeof value === 'object' ? JSON.stringify(value) : String(value))}`),
        );
      }
      if (description.requestId) write(c.dim(`  request id: ${safeText(description.requestId)}`));
  }
  if (description.idempotencyKey) write(c.dim(`  idempotency key: ${safeText(description.idempotencyKey)}`));
  if (description.hint) write(`  → ${safeMultiline(description.hint)}`);
  if (out.verbose) {
    if (description.exitCode === 1 && error instanceof Error && error.stack) write(safeMultiline(error.stack));
    else if (error instanceof Error && error.cause instanceof Error)
      write(c.dim(`  cause: ${safeText(error.cause.message)}`));
  }
  return description.exitCode;
}
