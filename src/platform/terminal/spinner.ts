import type { Output } from './output.js';
import { safeStyled } from '../../core/security/safe-text.js';
import { redrawsInPlace, terminalColumns } from './terminal.js';
import { displayWidth, wrapWords } from './width.js';
import type { Env } from '../config/env.js';

/** `refresh` re-reads the text now (it is also re-read every second while spinning); `stop` clears the spinner line (a final message, if any, is the caller's to print). */
const silent = { refresh() {}, stop() {} };

/** `label` says what is pending ("Submitted 0x12ab…6c1f, waiting for the fill"); the spinner shows it with the seconds elapsed since `since` (clock time), which is how long the action has been pending. */
export async function startProgress(
  // What a spinner needs from the running command (the flows hand it over; ui knows no context).
  ctx: {
    quiet: boolean;
    stderrIsTTY: boolean;
    stderr: NodeJS.WritableStream;
    env: Env;
    output: Output;
    now(): number;
    onDispose(stop: () => void): void;
  },
  rawLabel: string,
  since: number,
) {
  const label = safeStyled(rawLabel);
  if (ctx.quiet) return silent;
  // Loaded before the width is read: no await falls between that reading and the first draw.
  const ora = ctx.stderrIsTTY ? (await import('ora')).default : undefined;
  const plain = () => ctx.output.note(`${label}…`);
  if (!ora || !redrawsInPlace(ctx.stderr, ctx.stderrIsTTY)) {
    plain();
    return silent;
  }
  // One line, always: a spinner line that wraps leaves a copy of itself behind at every redraw.
  const columns = terminalColumns(ctx.stderr, true, ctx.env);
  // Less the frame and its space (2), the seconds (` 9999s`: 6) and the last column (1).
  const room = Math.max(10, columns - 9);
  let shown = label;
  if (displayWidth(label) > room) {
    ctx.stderr.write(`${wrapWords(label, columns)}\n`);
    shown = 'waiting';
  }
  const text = () => `${shown} ${Math.max(0, Math.floor((ctx.now() - since) / 1000))}s`;
  const spinner = ora({
    text: text(),
    stream: ctx.stderr,
    color: ctx.output.chalk.level > 0 ? 'cyan' : false,
    // Leave stdin alone: Ctrl-C must reach the process as SIGINT (run.ts turns it into an abort).
    discardStdin: false,
  }).start();
  let stopped = false;
  const refresh = () => {
    if (!stopped) spinner.text = text();
  };
  const timer = setInterval(refresh, 1000);
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    ctx.stderr.off('resize', unsized);
    spinner.stop();
  };
  // A terminal resized to no width (`stty cols 0`) is told before ora draws again: from then on, plain lines.
  const unsized = () => {
    if (redrawsInPlace(ctx.stderr, true)) return;
    stop();
    plain();
  };
  ctx.stderr.on('resize', unsized);
  // Whatever way the command ends, the terminal line is cleaned up and no timer keeps it alive.
  ctx.onDispose(stop);
  return { refresh, stop };
}
