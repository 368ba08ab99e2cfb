import type { Env } from '../config/env.js';
import { displayWidth } from './width.js';
// The process's streams and what they are connected to: everything that prints or prompts gets these injected, so a test runs any command with fake streams and TTY on or off.
export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
}

const DEFAULT_COLUMNS = 80;
// Below 20 nothing readable fits; above 500 a value is more likely garbage than a real terminal.
const MIN_COLUMNS = 20;
const MAX_COLUMNS = 500;

/** The width the stream reports, when it reports one: a terminal nobody sized (cron, CI, `script` without a terminal) reports 0. */
function reportedColumns(stream: NodeJS.WritableStream) {
  const own = (stream as { columns?: unknown }).columns;
  return typeof own === 'number' && Number.isInteger(own) && own > 0 ? own : undefined;
}

/** The width to lay text out for on `stream` — the one place it is read: the stream's own when it is a terminal, else `COLUMNS` when that is a positive integer (a pipe into `less`, a script that wants a width), else 80; clamped to 20..500. */
export function terminalColumns(stream: NodeJS.WritableStream, isTTY: boolean, env: Env) {
  const own = isTTY ? reportedColumns(stream) : undefined;
  const fromEnv = /^\s*\d+\s*$/.test(env.COLUMNS ?? '') ? Number(env.COLUMNS) : 0;
  const chosen = own ?? (fromEnv > 0 ? fromEnv : DEFAULT_COLUMNS);
  return Math.min(MAX_COLUMNS, Math.max(MIN_COLUMNS, chosen));
}

/**
 * Whether what is drawn on `stream` may be redrawn in place (a spinner, a live view): a terminal,
 * and when it is a real one, one that reports its width. Redrawing divides by the width (ora counts
 * the lines to clear as text ÷ columns): on 0 columns it clears lines without end and starves the
 * process of its signals and timers, so such a terminal gets plain lines, as a pipe does.
 */
export function redrawsInPlace(stream: NodeJS.WritableStream, isTTY: boolean) {
  if (!isTTY) return false;
  return (stream as { isTTY?: boolean }).isTTY !== true || reportedColumns(stream) !== undefined;
}

/**
 * What log-update draws on: `stream`, wrapped at the width hedge lays out for. A forced terminal
 * (HEDGE_FORCE_TTY on a pipe) has no size of its own: log-update would wrap at 80 and keep 24 rows.
 */
function redrawTarget(stream: NodeJS.WritableStream, columns: () => number) {
  const target = {
    write: (chunk: string) => stream.write(chunk),
    get columns() {
      return columns();
    },
    get rows() {
      return (stream as { rows?: number }).rows ?? Infinity;
    },
  };
  // log-update uses write, columns and rows alone.
  return target as unknown as NodeJS.WriteStream;
}

/** log-update's erase: `count` lines up from the cursor's, the cursor left at the start of the top one. */
const eraseLines = (count: number) => `${'\u001b[2K\u001b[1A'.repeat(count - 1)}\u001b[2K\u001b[G`;

/**
 * A screen redrawn in place (log-update, at the width hedge lays out for) that leaves no debris. A
 * terminal re-wraps what it shows when it narrows, so a frame drawn at another width first erases the
 * rows the one before takes now; the last frame (`end`) is drawn whole over the screen as it is, the
 * `^C` a Ctrl-C echoed below the frame included.
 */
export async function liveScreen(
  stream: NodeJS.WritableStream,
  columns: () => number,
  options: { showCursor?: boolean } = {},
) {
  const { createLogUpdate } = await import('log-update');
  const target = redrawTarget(stream, columns);
  let draw = createLogUpdate(target, options);
  let shown: { text: string; width: number } | undefined;
  const eraseShown = () => {
    if (shown === undefined) return;
    const width = columns();
    let rows = 1;
    for (const line of shown.text.split('\n')) rows += Math.max(1, Math.ceil(displayWidth(line) / width));
    stream.write(eraseLines(rows));
    draw = createLogUpdate(target, options);
  };
  return {
    draw(text: string) {
      if (shown !== undefined && shown.width !== columns()) eraseShown();
      draw(text);
      shown = { text, width: columns() };
    },
    /** The last frame: nothing is drawn after it (the cursor shown again). */
    end(text: string) {
      eraseShown();
      draw(text);
      draw.done();
      shown = undefined;
    },
  };
}
