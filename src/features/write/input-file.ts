// Where a command's input file is read from: for an agent's call only through its file gate, never the disk;
// at the CLI, the path as given (trusted as the journal is: it steers trades), or stdin for `-`.
import { InterruptedError, UsageError } from '../../core/errors.js';
import {
  MAX_INPUT_FILE_BYTES,
  ReadRefused,
  describeReadError,
  readBoundedStream,
  readRegularFile,
  sizeInWords,
} from '../../core/security/bounded-read.js';
import { safeText } from '../../core/security/safe-text.js';
import { plural } from '../../core/number-format.js';
import type { CommandContext } from '../../platform/runtime/context.js';
import { formatSpan } from '../../core/duration.js';

/** How many of a file's problems are listed; the rest are counted (a million lines help nobody). */
export const MAX_PROBLEM_LINES = 20;

/** What reading a file or stdin uses of a command's context. */
export type InputPorts = Pick<
  CommandContext,
  'targetFiles' | 'origin' | 'io' | 'log' | 'deadline' | 'clock' | 'signal' | 'globals'
>;

/** The abort reason when --timeout ran out during the read (a stop signal has its own). */
class ReadTimedOut extends Error {}

/** `what` names the file in messages; `pipeExample` shows how to pipe it in; `whenTooLarge` what to do over the bound. */
export async function readInputFile(
  ports: InputPorts,
  file: string,
  what: string,
  pipeExample?: string,
  whenTooLarge = 'split it, or keep the rows that matter',
) {
  if (ports.targetFiles) return ports.targetFiles.read(file);
  if (ports.origin === 'agent')
    throw new UsageError(
      `file: this call reads no ${what} from the disk; it is read only under the roots the server was started with.`,
    );
  const stdin = file === '-';
  if (stdin && ports.io.stdinIsTTY)
    throw new UsageError(
      `the ${what} is - (stdin), but stdin is a terminal; pipe the file in${pipeExample ? ` (\`${pipeExample}\`)` : ''} or name it.`,
    );
  const shown = stdin ? 'on stdin' : safeText(file);
  // Said under --verbose: a pipe that is slow to end is being waited on, not hung on.
  if (stdin) ports.log(`reading the ${what} from stdin (at most ${sizeInWords(MAX_INPUT_FILE_BYTES)})`);
  // Only stdin waits on the command's signal (and --timeout's deadline, on the command's clock): a keeper stopped
  // while it starts still reads its target.
  // Aborted with ReadTimedOut at the deadline, or plainly once the read is over (which ends the sleep).
  const timedOut = new AbortController();
  if (stdin && ports.deadline !== undefined)
    ports.clock.sleep(Math.max(0, ports.deadline - ports.clock.now()), timedOut.signal).then(
      () => timedOut.abort(new ReadTimedOut()),
      () => undefined,
    );
  const signal = AbortSignal.any([ports.signal, timedOut.signal]);
  try {
    const bytes = stdin
      ? await readBoundedStream(ports.io.stdin, { maxBytes: MAX_INPUT_FILE_BYTES, signal })
      : await readRegularFile(file, { maxBytes: MAX_INPUT_FILE_BYTES, guard: 'steering' });
    return { text: bytes.toString('utf8'), sourceName: stdin ? 'stdin' : file };
  } catch (error) {
    if (error instanceof ReadTimedOut)
      throw new UsageError(
        `the ${what} ${shown} was not read whole within --timeout (${formatSpan(ports.globals.timeout! * 1000)}); nothing was read or sent. Close the pipe once the file is written, or give a longer --timeout (0 for none).`,
      );
    if (stdin && signal.aborted)
      throw new InterruptedError(`Interrupted while reading the ${what} ${shown}; nothing was sent.`, {
        stoppedBy: ports.signal.reason,
      });
    // The end of a refusal's line: what is allowed instead.
    const refused = error instanceof ReadRefused ? error.kind : undefined;
    const instead =
      refused === 'too-large'
        ? `, the most an input file may hold; ${whenTooLarge}`
        : refused === 'not-regular' && !stdin
          ? '; expected a regular file (to read a pipe, give - and redirect the pipe to stdin)'
          : '';
    throw new UsageError(`cannot read the ${what} ${shown}: ${describeReadError(error)}${instead}.`);
  } finally {
    timedOut.abort();
  }
}

/** Every problem of an input file in one UsageError (exit 2), the first MAX_PROBLEM_LINES of them listed. */
export function inputFileProblems(
  sourceName: string,
  problems: ReadonlyArray<{ line: number; message: string }>,
  hint: string,
) {
  const shown = safeText(sourceName);
  // A problem of the whole file (line 0: not JSON, empty) may name the file itself already.
  const lines = problems.map(({ line, message }) => {
    const said = safeText(message);
    return line > 0 ? `${shown}:${line}: ${said}` : said.startsWith(shown) ? said : `${shown}: ${said}`;
  });
  return new UsageError(
    `${shown}: ${plural(lines.length, 'problem')}; nothing was read or sent.\n${listedProblems(lines)}`,
    { hint },
  );
}

/** At most MAX_PROBLEM_LINES lines, then `… and N more problems`, one to a line. */
export function listedProblems(lines: readonly string[]) {
  const more = lines.length - MAX_PROBLEM_LINES;
  const listed = more > 0 ? [...lines.slice(0, MAX_PROBLEM_LINES), `… and ${plural(more, 'more problem')}`] : lines;
  return listed.join('\n');
}
