// `--until EXPR`: run a read again and again until a JMESPath condition over its JSON data holds,
// then print that data as the command would; exit 124 at the time bound, 17 at once when the data read can no
// longer change and the condition is false on it. Polls print nothing.
import { InterruptedError, UntilNeverError, UntilNotMetError, UsageError } from '../../core/errors.js';
import type { CommandContext } from '../../platform/runtime/context.js';
import { DEFAULT_WAIT_BOUND_MS } from '../../platform/config/wait-bound.js';
import { Writable } from 'node:stream';
import { Output, type OutputInit } from '../../platform/terminal/output.js';
import { forScripts } from '../../platform/fields/script-shape.js';
import { compileQuery, fieldNames, isTruthy } from '../../platform/fields/query.js';
import { safeText, messageOf } from '../../core/security/safe-text.js';
import { pauseUntil, POLL_CADENCE } from '../../features/write/wait.js';
import { isPassingFailure, nextRefreshAt } from '../../features/book/watch.js';
import { formatSpan } from '../../core/duration.js';

interface UntilOptions {
  expression: string;
  /** The command also takes a date under --until (history, report): said when the value is neither. */
  dateToo?: boolean;
  /** Where --until also takes a date: the names its data has; a condition on any other is exit 2, never polled. */
  fields?: readonly string[];
  /** Why the data read can no longer change, or undefined while it can (the command's FINAL_DATA). */
  final?: (data: unknown) => string | undefined;
  command: string;
}

/** The date forms of a `--until <date|expr>` (history, report), as a refusal names them. */
const DATE_FORMS = '2026-11-01, an ISO time, or 7d / 2w / 1mo ago';

export async function runUntil(
  ctx: CommandContext,
  options: UntilOptions,
  runOnce: (ctx: CommandContext) => Promise<number | void>,
) {
  const quoted = JSON.stringify(safeText(options.expression));
  // The condition as a function, checked before anything is sent (exit 2 for a malformed one).
  let condition;
  try {
    condition = compileQuery(options.expression, '--until');
  } catch (error) {
    if (options.dateToo && error instanceof UsageError)
      throw new UsageError(
        `--until: ${quoted} is neither a date (${DATE_FORMS}) nor a JMESPath condition (${error.message.replace(/^--until "[^"]*": /, '').replace(/\.$/, '')}).`,
        { hint: error.hint },
      );
    throw error;
  }
  if (options.fields) {
    const unknown = fieldNames(options.expression).filter((name) => !options.fields!.includes(name));
    if (unknown.length) {
      throw new UsageError(
        `--until: ${quoted} is neither a date (${DATE_FORMS}) nor a condition on ${options.command}'s data: ${unknown.map(safeText).join(', ')} ${unknown.length === 1 ? 'is not one of its fields' : 'are not among its fields'} (${options.fields.join(', ')}).`,
        { hint: `e.g. --until 7d, or --until "length(@) >= \`10\`"` },
      );
    }
  }
  const { clock, signal } = ctx;
  // Start to start between polls.
  const { intervalMs } = POLL_CADENCE;
  const startedAt = clock.now();
  const deadline = ctx.waitDeadline(startedAt);
  let polls = 0;
  let last: RecordingOutput | undefined;
  let nextAt = startedAt;

  const interrupted = () =>
    new InterruptedError(`--until stopped before ${quoted} held.`, {
      stoppedBy: signal.reason,
    });
  const notMet = async () => {
    if (deadline !== undefined) await pauseUntil(ctx, deadline, interrupted);
    // A script reads the last data read; a person reads the message.
    const lastShown = last !== undefined && ctx.output.isJson;
    if (lastShown) await last!.playOnto(ctx.output);
    const bound =
      ctx.globals.timeout === undefined
        ? `the default bound of ${formatSpan(DEFAULT_WAIT_BOUND_MS)} (--timeout SECONDS changes it)`
        : `--timeout (${formatSpan(ctx.globals.timeout * 1000)})`;
    throw new UntilNotMetError(
      `--until ${quoted} did not hold within ${bound}: ${polls} ${polls === 1 ? 'read' : 'reads'}, ${last ? `the condition false on ${polls === 1 ? 'it' : 'each'}` : 'none answered'}.`,
      {
        expression: options.expression,
        polls,
        waitedMs: clock.now() - startedAt,
        hint: lastShown
          ? 'The last data read is on stdout. Run it again, with a longer --timeout if it should take longer.'
          : 'Run it again with a longer --timeout, or check the condition against --json.',
      },
    );
  };

  for (;;) {
    await pauseUntil(ctx, nextAt, interrupted);
    const pollStartedAt = clock.now();
    const recorder = new RecordingOutput({ chalk: ctx.output.chalk, columns: ctx.output.columns, now: clock.now });
    // What the condition sees is what --json prints: the command's data, before --fields and --query.
    const child = ctx.derive({
      output: recorder,
      globals: { json: true, format: 'json', fields: undefined, query: undefined },
    });
    let code;
    try {
      polls += 1;
      code = await runOnce(child);
    } catch (error) {
      if (signal.aborted || error instanceof InterruptedError) throw interrupted();
      if (!isPassingFailure(error)) throw error;
      const now = clock.now();
      // A read cut by the bound is the bound ending, not a read to try again: nothing to announce.
      if (deadline !== undefined && now >= deadline) return notMet();
      nextAt = nextRefreshAt(pollStartedAt, now, intervalMs, error);
      ctx.output.warn(
        `--until: this read failed (${safeText(messageOf(error))}); trying again in ${formatSpan(nextAt - now)}.`,
      );
      if (deadline !== undefined && nextAt >= deadline) return notMet();
      continue;
    } finally {
      await child.dispose();
    }
    last = recorder;
    if (isTruthy(condition(recorder.data ?? null))) {
      if (recorder.playableAs(ctx.output)) {
        await recorder.playOnto(ctx.output);
        return code ?? 0;
      }
      // A view drawn from more than the data (a quote card, a report table): drawn by one more run.
      return (await runOnce(ctx)) ?? 0;
    }
    // Data that can no longer change keeps the condition false: said at once, never polled to the bound.
    const final = options.final?.(recorder.data ?? null);
    if (final !== undefined) {
      if (ctx.output.isJson) await recorder.playOnto(ctx.output);
      throw new UntilNeverError(`--until ${quoted} can never hold: ${final}, and the condition is false on it.`, {
        expression: options.expression,
        polls,
        hint: 'Check the condition against the data (run it with --json), or wait for something that can still change.',
      });
    }
    nextAt = nextRefreshAt(pollStartedAt, clock.now(), intervalMs);
    if (deadline !== undefined && nextAt >= deadline) return notMet();
  }
}

/** A stream that keeps nothing: a recording output never writes itself. */
function discard() {
  return new Writable({ write: (_chunk, _encoding, done) => done() });
}

/** An output that holds what a command prints instead of printing it: the JSON data it hands to the output layer (what
 * `--json` would print, before --fields and --query) and every call, so that the calls can be played onto the real
 * output later — or dropped. */
class RecordingOutput extends Output {
  /** Each call, played in order; `text`: a bare JSON document or text, which only a JSON output can take. */
  private readonly calls: Array<{ text?: boolean; play: (output: Output) => void | Promise<void> }> = [];

  constructor(init: Pick<OutputInit, 'chalk' | 'columns' | 'now'>) {
    // JSON: the command takes its --json branch, so the data is exactly what --json would print.
    super({ ...init, format: 'json', streams: { stdout: discard(), stderr: discard() } });
  }

  /** The last data the command handed over (`undefined`: it printed none). */
  data: unknown;

  /** Whether the calls can be played onto an output of another format: records and lists can (the output layer draws them in any format); a bare JSON document or text cannot. */
  playableAs(output: Output) {
    return output.mode === 'json' || this.calls.every((call) => !call.text);
  }

  async playOnto(output: Output) {
    for (const call of this.calls) await call.play(output);
  }

  override async list(...call: Parameters<Output['list']>) {
    const [rows, known, options] = call;
    // What a condition reads is what --json prints: hedge's one shape (numbers as numbers).
    this.data = forScripts(options.json ?? rows, 'fields' in known ? known.fields : known);
    this.calls.push({ play: (output) => output.list(...call) });
  }

  override record(...call: Parameters<Output['record']>) {
    const [record, known, options] = call;
    this.data = forScripts(options?.json ?? record, known);
    this.calls.push({ play: (output) => output.record(...call) });
  }

  override json(...call: Parameters<Output['json']>) {
    const [data, known, how] = call;
    this.data = how?.asSent ? data : forScripts(data, known);
    this.calls.push({ text: true, play: (output) => output.json(...call) });
  }

  override write(text: string) {
    this.calls.push({ text: true, play: (output) => output.write(text) });
  }

  // Kept for the output the calls are played onto, which decides whether and how it says them.
  override noteIn(...note: Parameters<Output['noteIn']>) {
    this.calls.push({ play: (output) => output.noteIn(...note) });
  }
}
