// Runs one parsed command: builds its context from the process, installs the Ctrl-C handling,
// reports the outcome and releases what the command opened.
import { setFlagsFromString } from 'node:v8';
import { CommandContext, type GlobalOptions, type Io } from './context.js';
import type { CommandInput, CommandSpec } from './commands/manifest.js';
import { colorEnabled, makeChalk } from './ui/color.js';
import { Output } from './ui/output.js';
import { reportError } from './ui/report-error.js';

function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * undici parses HTTP with a WebAssembly module, which V8 compiles twice: quickly (Liftoff), then
 * again with its optimising compiler in the background. A CLI run making a few requests never
 * profits from the second, which costs ~60 ms of CPU and ~35 MB of peak memory, and holds the
 * exit back ~90 ms after the last output (bench/results.md). Set here, not in the launcher:
 * changing a V8 flag makes Node recompile its own modules loaded afterwards, which `hedge --help`
 * should not pay.
 */
function compileWebAssemblyForShortRuns(): void {
  setFlagsFromString('--liftoff-only');
}

export async function runInvocation(
  spec: CommandSpec,
  input: CommandInput,
  globals: GlobalOptions,
  process_: { io: Io; env: Record<string, string | undefined> },
): Promise<number> {
  const { io, env } = process_;
  compileWebAssemblyForShortRuns();
  const color = colorEnabled({ flag: globals.color, env, stdoutIsTTY: io.stdoutIsTTY });
  const chalk = makeChalk(color);
  const output = new Output({
    mode: globals.json ? 'json' : io.stdoutIsTTY ? 'table' : 'plain',
    chalk,
    streams: io,
    now: Date.now,
  });
  // The first Ctrl-C aborts what the command is doing (a wait, a prompt); a second one exits at once.
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130);
    controller.abort(new Error('interrupted'));
  };
  process.on('SIGINT', onSigint);
  const ctx = new CommandContext({
    io,
    env,
    globals,
    clock: { now: Date.now, sleep: realSleep },
    signal: controller.signal,
    output,
  });
  try {
    const module = await spec.load!();
    const result = await module.run(ctx, input);
    return typeof result === 'number' ? result : 0;
  } catch (error) {
    return reportError(error, { stderr: io.stderr, chalk, json: globals.json, verbose: globals.verbose });
  } finally {
    process.off('SIGINT', onSigint);
    // The command is over and only clean-up is left: a Ctrl-C now ends the process at once, with
    // 130 like any other interrupt (not killed by the signal with no exit code).
    process.once('SIGINT', () => process.exit(130));
    await ctx.dispose();
  }
}
