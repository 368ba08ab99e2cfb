// The real binary on a real pseudo-terminal (@lydell/node-pty): what a person at a terminal sees,
// and keys typed into it. Used by the wizard, the interactive login and the 0-column terminal
// tests. What reaches the terminal is also fed to a terminal emulator of the same size
// (@xterm/headless), so that a test can read the screen as drawn: each line, and whether the
// terminal had to wrap it. A command that reads no keys is drawn in-process instead (drawScreen),
// through the same emulator.
import { execFileSync } from 'node:child_process';
import pty from '@lydell/node-pty';
import xterm from '@xterm/headless';
import { within } from '../../../src/core/process/timers.js';
import { until } from '../polling.js';
import { baseEnv, HEDGE_BIN, ROOT, runHedge, SPAWN_EVERY_RUN } from '../hedge-cli.js';

export const KEYS = { ENTER: '\r', DOWN: '\x1b[B', CTRL_C: '\x03', BACKSPACE: '\x7f' } as const;

/** The text a person reads: no escape sequences (colour, cursor moves, save/restore), no CRs. */

export const stripAnsi = (text: string) => text.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[78]|\r/g, '');

/** A line as the terminal emulator drew it. */
export interface DrawnLine {
  text: string;
  /** The terminal wrapped the line before this one into this one (it was wider than the terminal). */
  wrapped: boolean;
}

/**
 * Words the terminal broke: a line too wide for it continues on the next one, wherever its last
 * column falls. Each is shown as `…end|start…`. (A program that breaks its own lines at the last
 * column leaves no such mark: read its text whole instead, lines joined by a space, where a word
 * it split shows as two.)
 */
export function wordsSplitAtLineEnd(lines: readonly DrawnLine[]) {
  const split: string[] = [];
  for (let index = 1; index < lines.length; index++) {
    const before = lines[index - 1].text;
    const after = lines[index].text;
    if (lines[index].wrapped && /\S$/.test(before) && /^\S/.test(after))
      split.push(`${before.slice(-12)}|${after.slice(0, 12)}`);
  }
  return split;
}

export type Terminal = ReturnType<typeof spawnInTerminal>;

/** A command line on a terminal `cols` × `rows` (default 220 × 60). */
interface TerminalRun {
  configDir: string;
  args: string[];
  env?: Record<string, string>;
  cols?: number;
  rows?: number;
}

/** What a terminal keeps of a program's output for the test to read: a program that floods it must not flood the test. */
const KEPT_BYTES = 1 << 20;

/** Every line the emulator drew, scrolled-off ones included (trailing spaces and empty last lines dropped). */
function drawnBy(emulator: xterm.Terminal) {
  return new Promise<DrawnLine[]>((resolve) => {
    // The emulator parses asynchronously: an empty write's callback comes after everything before it.
    emulator.write('', () => {
      const buffer = emulator.buffer.active;
      const lines = [];
      for (let index = 0; index < buffer.length; index++) {
        const line = buffer.getLine(index)!;
        lines.push({ text: line.translateToString(true), wrapped: line.isWrapped });
      }
      while (lines.length > 0 && lines[lines.length - 1].text === '') lines.pop();
      resolve(lines);
    });
  });
}

/**
 * `cols: 0`: a terminal nobody sized, 0 × 0, as cron, CI and `script` without a terminal give: node-pty
 * refuses that size, so the terminal's own `stty` sets it before hedge starts.
 */
export function spawnInTerminal(options: TerminalRun) {
  const env = { ...baseEnv(options.configDir), ...options.env, TERM: 'xterm-256color' };
  const unsized = options.cols === 0;
  const command = [process.execPath, HEDGE_BIN, ...options.args];
  const [file, ...argv] = unsized ? ['/bin/sh', '-c', 'stty cols 0 rows 0 && exec "$@"', 'sh', ...command] : command;
  const cols = unsized ? 80 : (options.cols ?? 220);
  const rows = unsized ? 24 : (options.rows ?? 60);
  const term = pty.spawn(file, argv, { name: 'xterm-256color', cols, rows, cwd: ROOT, env });
  let raw = '';
  let bytes = 0;
  let consumed = 0;
  let exited = false;
  const emulator = new xterm.Terminal({ cols, rows, scrollback: 10_000, allowProposedApi: true });
  term.onData((data) => {
    bytes += Buffer.byteLength(data);
    if (raw.length >= KEPT_BYTES) return;
    raw += data;
    emulator.write(data);
  });
  const exitCode = new Promise<number>((resolve) =>
    term.onExit(({ exitCode: code }) => {
      exited = true;
      resolve(code);
    }),
  );
  return {
    screen: () => stripAnsi(raw),
    /** Every line the terminal emulator drew, scrolled-off ones included (trailing spaces dropped). */
    drawn: () => drawnBy(emulator),
    /** Every byte the program wrote to the terminal, escape sequences included (the first MiB of a flood). */
    raw: () => raw,
    /** How many bytes the program wrote to the terminal, all of a flood counted. */
    bytes: () => bytes,
    /** Sizes the terminal as `stty` does, 0 included (node-pty refuses it): the program gets SIGWINCH. */
    setSize: (width: number, height: number) => {
      const slave = (term as unknown as { ptsName: string }).ptsName;
      execFileSync('stty', ['-F', slave, 'cols', String(width), 'rows', String(height)]);
    },
    write: (keys: string) => term.write(keys),
    /** Resizes the terminal as a person does: the emulator first (it reflows what it shows), then the pty (SIGWINCH). */
    resize: (cols: number, rows: number) => {
      emulator.resize(cols, rows);
      term.resize(cols, rows);
    },
    exitCode,
    /** The program's exit code, or a failure naming `what` when it has not exited within `ms`. */
    exitWithin: (ms: number, what: string) =>
      within(exitCode, ms, () => new Error(`${what}: not exited after ${ms} ms (${bytes} bytes written)`)),
    /** Sends the program `name` (SIGTERM, SIGHUP). */
    signal: (name: NodeJS.Signals) => term.kill(name),
    kill: () => {
      if (!exited) term.kill('SIGKILL');
      emulator.dispose();
    },
    /** Resolves once `text` appears on the screen after everything already waited for (a hang fails at `timeoutMs`). */
    async waitFor(text: string | RegExp, timeoutMs = 45_000) {
      let index = -1;
      const seen = () => {
        const rest = stripAnsi(raw).slice(consumed);
        index = typeof text === 'string' ? rest.indexOf(text) : rest.search(text);
        return index >= 0;
      };
      await until(() => seen() || exited, `${String(text)} on the terminal`, timeoutMs).catch(() => undefined);
      if (index < 0)
        throw new Error(
          `did not see ${String(text)} on the terminal${exited ? ' (process exited)' : ''}:\n${stripAnsi(raw)}`,
        );
      consumed += index + 1;
    },
  };
}

/**
 * A command that reads no keys on a terminal `cols` × `rows`: run in-process as on a terminal
 * (HEDGE_FORCE_TTY=1 and COLUMNS, src/cli/main.ts; stdout and stderr one stream of that size), its
 * output drawn by the same emulator. `real`, or every run spawned (HEDGE_TEST_SPAWN_EVERY_RUN=1):
 * on a pseudo-terminal, for what only a real one shows (the width read from the terminal itself).
 */
export async function drawScreen(options: TerminalRun & { real?: boolean }) {
  const cols = options.cols ?? 220;
  const rows = options.rows ?? 60;
  if (options.real || SPAWN_EVERY_RUN) {
    const terminal = spawnInTerminal({ ...options, cols, rows });
    try {
      const code = await terminal.exitCode;
      return { code, raw: terminal.raw(), screen: terminal.screen(), drawn: await terminal.drawn() };
    } finally {
      terminal.kill();
    }
  }
  const { code, stdout } = await runHedge(options.args, {
    configDir: options.configDir,
    env: { ...options.env, TERM: 'xterm-256color' },
    screen: { columns: cols, rows },
  });
  // A terminal turns each newline into CR LF (its line discipline's onlcr).
  const emulator = new xterm.Terminal({ cols, rows, scrollback: 10_000, allowProposedApi: true, convertEol: true });
  try {
    emulator.write(stdout);
    return { code: code!, raw: stdout, screen: stripAnsi(stdout), drawn: await drawnBy(emulator) };
  } finally {
    emulator.dispose();
  }
}
