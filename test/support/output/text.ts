// Reading what the CLI printed: its lines, the line that reports how a command ended, the
// idempotency key a write printed to resume with, and the shape of a stack trace (never printed).

/** A stack frame line as Node prints them: "    at fn (file:line:col)". */
export const STACK_FRAME = /^\s+at .+(\(|:\d+:\d+)/m;

/** The lines that hold something (blank ones dropped): what a person reading stderr would count. */
export function lines(text: string) {
  return text.split('\n').filter((line) => line.trim() !== '');
}

/** Every printed line, blank ones kept, without the empty one after the final newline: a table as printed. */
export function printedLines(text: string) {
  return text.split('\n').filter((line, index, all) => !(line === '' && index === all.length - 1));
}

export function firstLine(text: string, max = 160) {
  const line = lines(text)[0] ?? '';
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/**
 * The line that reports how the command ended: the last one not indented (the report's details
 * and its "→ what to do" are indented; progress notes come before it).
 */
export function errorLine(text: string) {
  const found = lines(text)
    .filter((line) => !/^\s/.test(line))
    .at(-1);
  return found ? firstLine(found, 200) : '';
}

/** The idempotency key a write printed when its outcome is unknown. */
export function resumeKeyFrom(stderr: string) {
  return /--idempotency-key ([0-9a-f-]{36})/.exec(stderr)?.[1];
}

/** The shape of the idempotency keys the CLI makes (a UUID). */
export const IDEMPOTENCY_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
