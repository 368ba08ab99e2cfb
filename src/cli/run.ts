// Runs one parsed command: builds its context from the process, installs the Ctrl-C / SIGTERM /
// SIGHUP handling, reports the outcome through the one error description and releases what the
// command opened. Loaded lazily by main.ts, also to report bad usage.
import { describeFailure } from '../platform/terminal/exit-codes.js';
import type { Clock } from '../platform/api/transport.js';
import type { Env } from '../platform/config/env.js';
import { CommandContext, type GlobalOptions } from '../platform/runtime/context.js';
import { terminalColumns, type Io } from '../platform/terminal/terminal.js';
import { InterruptedError, StopSignal, UsageError } from '../core/errors.js';
import { sleep } from '../core/process/timers.js';
import { describeReadError, refuseFileAsFolder } from '../core/security/bounded-read.js';
import { configDir } from '../platform/config/credentials.js';
import { keyLifetimeMs, notAllowed, quotePath, repeatWindowMs } from '../core/input.js';
import { isAbsolute, resolve } from 'node:path';
import { colorEnabled, makeChalk } from '../platform/terminal/color.js';
import { Output } from '../platform/terminal/output.js';
import { reportError } from '../platform/terminal/report-error.js';
import { loadTableDrawer } from '../platform/terminal/table.js';
import type { CommandSpec, RawInput } from './runner/command-spec.js';

/** Bad usage found by the parser (main.ts): one line (wrapped on a terminal), or the JSON error under --json; exit 2. */
export function reportUsageProblem(message: string, out: { io: Io; json: boolean; env: Env; program: string }) {
  const error = new UsageError(message.trim());
  return reportError(describeFailure(error, { program: out.program }), error, {
    stderr: out.io.stderr,
    chalk: makeChalk(false),
    json: out.json,
    verbose: false,
    columns: stderrColumns(out.io, out.env),
  });
}

/** The width messages on stderr are wrapped to when stderr is a terminal; undefined in a pipe (one line per message). */
function stderrColumns(io: Io, env: Env) {
  return io.stderrIsTTY ? terminalColumns(io.stderr, true, env) : undefined;
}

/** Whether the interrupt that ends a command's clean-up is listened for already. */
let interruptEndsCleanUp = false;

/** The signals that stop a wait or a prompt (the action itself stands), with their exit codes. */
const STOP_SIGNALS = [
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
] as const;

type StopName = (typeof STOP_SIGNALS)[number][0];

/** The stop handlers of the commands running in this process (an embedding or a test runs several at once): one
 * listener a signal while any runs, none once the last has ended. */
const running = new Set<(signal: StopName) => void>();
const dispatch = (signal: StopName) => {
  for (const stop of [...running]) stop(signal);
};

/** Listens for the stop signals for one command; the returned function stops listening. */
function listenForStops(stop: (signal: StopName) => void) {
  if (running.size === 0) for (const [signal] of STOP_SIGNALS) process.on(signal, dispatch);
  running.add(stop);
  return () => {
    running.delete(stop);
    if (running.size === 0) for (const [signal] of STOP_SIGNALS) process.off(signal, dispatch);
  };
}

export async function runInvocation(
  spec: CommandSpec,
  input: RawInput,
  globals: GlobalOptions,
  process_: { io: Io; env: Env; path?: readonly string[] } & Partial<Clock>,
) {
  const { io, env } = process_;
  const now = process_.now ?? Date.now;
  const color = colorEnabled(globals.color, env, io.stdoutIsTTY);
  const chalk = makeChalk(color);
  // A hint names commands to run next: as the user runs hedge, in the same environment (--demo, --profile).
  const report = (error: unknown, hints: GlobalOptions) =>
    reportError(describeFailure(error, hints), error, {
      stderr: io.stderr,
      chalk,
      json: globals.jsonErrors ?? globals.json,
      verbose: globals.verbose,
      columns: stderrColumns(io, env),
    });
  // The one output layer, from the global options; --query is compiled before anything is sent.
  let output;
  let tablesLoaded;
  try {
    const { HEDGE_CONFIG_DIR: dir, HEDGE_FORCE_TTY: tty } = env;
    if (tty && tty !== '0' && tty !== '1')
      throw notAllowed('HEDGE_FORCE_TTY', tty, '1 (the table output even in a pipe) or 0 (plain)');
    // The journal lives there: a relative folder moves with the working folder, and a re-run from another would not find its own action.
    if (dir && !isAbsolute(dir))
      throw new UsageError(
        `HEDGE_CONFIG_DIR: ${quotePath(dir)} is not an absolute path; the journal and profiles in it would move with the working folder. Give the whole path, e.g. ${quotePath(resolve(dir))}.`,
      );
    // Said in one line before anything else (a demo's banner), whatever the command would keep there.
    refuseFileAsFolder(configDir(env), dir ? 'HEDGE_CONFIG_DIR' : undefined);
    // A write's settings, refused before any command sends: a roll or a plan must not stop between its steps.
    repeatWindowMs(env);
    keyLifetimeMs(env);
    const format = globals.format ?? (io.stdoutIsTTY ? 'table' : 'tsv');
    // A screen's cards are drawn synchronously by cli-table3: loaded beside the command's own code.
    if (format === 'table') tablesLoaded = loadTableDrawer();
    output = new Output({
      format,
      chalk,
      streams: io,
      now,
      columns: terminalColumns(io.stdout, io.stdoutIsTTY, env),
      stderrColumns: stderrColumns(io, env),
      fields: globals.fields,
      raw: globals.raw,
      query:
        globals.query === undefined
          ? undefined
          : (await import('../platform/fields/query.js')).compileQuery(globals.query),
      header: globals.header,
      csv: format === 'csv' ? (await import('../platform/terminal/csv.js')).csvText : undefined,
      run: globals,
    });
  } catch (error) {
    return report(error, globals);
  }
  // The first signal aborts what the command is doing (a wait, a prompt) and is reported with its
  // own exit code; a second one exits at once. A command that handles signals itself (keep) is
  // asked first.
  const controller = new AbortController();
  const ctx = new CommandContext({
    io,
    env,
    globals,
    clock: { now, sleep: process_.sleep ?? sleep },
    signal: controller.signal,
    output,
  });
  // A reader that went away (`| head -1`, EPIPE) or a stdout that takes no more (a full disk, ENOSPC; EIO): from then
  // on what is written to stdout is dropped (no second error, no stack trace). A write goes on to its outcome, which its
  // exit code and journal row say; a read stops: 0 when its reader left, else 1, the output lost.
  let stdoutLost: NodeJS.ErrnoException | undefined;
  // The listener stays while the process lives: a late write's error must not crash it.
  io.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (stdoutLost) return;
    stdoutLost = error;
    (io.stdout as { write: unknown }).write = (_chunk: unknown, ...rest: unknown[]) => {
      const done = rest.find((item) => typeof item === 'function') as (() => void) | undefined;
      done?.();
      return true;
    };
    if (spec.tier !== 'write') controller.abort(new Error('stdout was closed by its reader'));
  });
  const readerGone = () => stdoutLost !== undefined && spec.tier !== 'write';
  /** The exit code once stdout was lost: a read's 0 (its reader left) or 1 (its output lost, said); a write's own. */
  const afterLoss = async (code: number) => {
    // A file's failed write (a full disk) is said on the next turn of the event loop, after the command returned.
    if (stdoutLost === undefined) await new Promise((resolve) => setImmediate(resolve));
    if (stdoutLost === undefined || stdoutLost.code === 'EPIPE') return readerGone() ? 0 : code;
    io.stderr.write(
      `hedge: stdout could not be written (${stdoutLost.code ?? 'error'}: ${describeReadError(stdoutLost)}); ${spec.tier === 'write' ? 'what the command did is its exit code and its journal row (hedge journal)' : 'the output was lost'}.\n`,
    );
    return spec.tier === 'write' ? code : 1;
  };
  let stops = 0;
  const stopListening = listenForStops((signal) => {
    const exitCode = STOP_SIGNALS.find(([name]) => name === signal)![1];
    if (ctx.offerSignal(signal)) return;
    if (++stops > 1) process.exit(exitCode);
    controller.abort(new StopSignal(signal, exitCode));
  });
  try {
    const [{ runCommand }] = await Promise.all([import('./runner/run-command.js'), tablesLoaded]);
    const code = await runCommand(ctx, spec, input, process_.path);
    return afterLoss(code);
  } catch (error) {
    if (readerGone()) return afterLoss(0);
    // A prompt or a request saw only its abort: the signal that stopped the command gives the code.
    const stop = controller.signal.reason;
    if (error instanceof InterruptedError && stop instanceof StopSignal) error.exitCode = stop.exitCode;
    return afterLoss(report(error, ctx.globals));
  } finally {
    stopListening();
    // The command is over and only clean-up is left: a Ctrl-C now ends the process at once, with
    // 130 like any other interrupt (not killed by the signal with no exit code).
    if (!interruptEndsCleanUp) {
      // Once per process: main() may run several commands in one process (a test, an embedding).
      interruptEndsCleanUp = true;
      process.once('SIGINT', () => process.exit(130));
    }
    await ctx.dispose();
  }
}
