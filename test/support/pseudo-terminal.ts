// The real binary on a real pseudo-terminal (@lydell/node-pty): what a person at a terminal sees,
// and keys typed into it. Used by the wizard and the interactive login tests.
import pty from '@lydell/node-pty';
import { baseEnv, HEDGE_BIN, ROOT } from './hedge-cli.js';

export const KEYS = { ENTER: '\r', DOWN: '\x1b[B', CTRL_C: '\x03', BACKSPACE: '\x7f' } as const;

/** The text a person reads: no escape sequences (colour, cursor moves, save/restore), no CRs. */
// eslint-disable-next-line no-control-regex
export const stripAnsi = (text: string): string => text.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[78]|\r/g, '');

export interface Terminal {
  /** Resolves once `text` appears on the screen after everything already waited for. */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<void>;
  write(keys: string): void;
  screen(): string;
  /** Every byte the program wrote to the terminal, escape sequences included. */
  raw(): string;
  exitCode: Promise<number>;
  kill(): void;
}

export function spawnInTerminal(options: { configDir: string; args: string[]; env?: Record<string, string>; cols?: number; rows?: number }): Terminal {
  const env = { ...baseEnv(options.configDir), ...options.env, TERM: 'xterm-256color' };
  const term = pty.spawn(process.execPath, [HEDGE_BIN, ...options.args], {
    name: 'xterm-256color',
    cols: options.cols ?? 220,
    rows: options.rows ?? 60,
    cwd: ROOT,
    env,
  });
  let raw = '';
  let consumed = 0;
  let exited = false;
  term.onData((data) => {
    raw += data;
  });
  const exitCode = new Promise<number>((resolve) =>
    term.onExit(({ exitCode: code }) => {
      exited = true;
      resolve(code);
    }),
  );
  return {
    screen: () => stripAnsi(raw),
    raw: () => raw,
    write: (keys) => term.write(keys),
    exitCode,
    kill: () => {
      if (!exited) term.kill('SIGKILL');
    },
    async waitFor(text, timeoutMs = 15_000) {
      const started = Date.now();
      for (;;) {
        const screen = stripAnsi(raw);
        const rest = screen.slice(consumed);
        const index = typeof text === 'string' ? rest.indexOf(text) : rest.search(text);
        if (index >= 0) {
          consumed += index + 1;
          return;
        }
        if (exited || Date.now() - started > timeoutMs) {
          throw new Error(`did not see ${String(text)} on the terminal${exited ? ' (process exited)' : ''}:\n${screen}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
  };
}
