import type { Env } from '../config/env.js';
// The process's streams and what they are connected to: everything that prints or prompts gets these injected, so a test runs any command with fake streams and TTY on or off.
export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
}

/** The width the stream reports, when it reports one: a terminal nobody sized (cron, CI, `script` without a terminal) reports 0. */
function reportedColumns(stream: NodeJS.WritableStream) {
  const own = (stream as { columns?: unknown }).columns;
  return typeof own === 'number' && Number.isInteger(own) && own > 0 ? own : undefined;
}

/** The width to lay text out for on `stream` — the one place it is read: the stream's own when it is a terminal, else `COLUMNS` when that is a positive integer (a pipe into `less`, a script that wants a width), else 80; clamped to 20..500. */
export function terminalColumns(stream: NodeJS.WritableStream, isTTY: boolean, env: Env) {
  const own = isTTY ? reportedColumns(stream) : undefined;
  const fromEnv = /^\s*\d+\s*$/.test(env.COLUMNS ?? '') ? Number(env.COLUMNS) : 0;
  // Below 20 nothing readable fits; above 500 a value is more likely garbage than a real terminal.
  return Math.min(500, Math.max(20, own ?? (fromEnv || 80)));
}

/**
 * Whether what is drawn on `stream` may be redrawn in place (a spinner, a live view): a terminal,
 * and when it is a real one, one that reports its width. Redrawing divides by the width (ora counts
 * the lines to clear as text ÷ columns): on 0 columns it clears lines without end and starves the
 * process of its signals and timers, so such a terminal gets plain lines, as a pipe does.
 */
export function redrawsInPlace(stream: NodeJS.WritableStream, isTTY: boolean) {
  return isTTY && ((stream as { isTTY?: boolean }).isTTY !== true || reportedColumns(stream) !== undefined);
}
