// `hedge login` on a terminal (a real pseudo-terminal, @lydell/node-pty): it asks for the base URL
// (offering the profile's current one) and for the key hidden as it is typed, checks it, and
// saves. The typed key never shows on the screen; a key pasted into the URL prompt is not echoed
// back in the error; and with --no-input on a terminal it refuses instead of asking.
import pty from '@lydell/node-pty';
import { existsSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { baseEnv, HEDGE_BIN, ROOT } from '../helpers/hedge-cli.js';
import { KEY_A, KEY_B, readStore, startKeySandbox, storeFile, tempDir, writeStore } from './profiles-support.js';

const ENTER = '\r';

// eslint-disable-next-line no-control-regex
const stripAnsi = (text: string) => text.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, '');

interface Terminal {
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<void>;
  write(keys: string): void;
  screen(): string;
  exitCode: Promise<number>;
  kill(): void;
}

function spawnInTerminal(configDir: string, args: string[]): Terminal {
  const env = { ...baseEnv(configDir), TERM: 'xterm-256color' };
  const term = pty.spawn(process.execPath, [HEDGE_BIN, ...args], { name: 'xterm-256color', cols: 200, rows: 50, cwd: ROOT, env });
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
    write: (keys) => term.write(keys),
    exitCode,
    kill: () => {
      if (!exited) term.kill('SIGKILL');
    },
    async waitFor(text, timeoutMs = 15_000) {
      const started = Date.now();
      for (;;) {
        const rest = stripAnsi(raw).slice(consumed);
        const index = typeof text === 'string' ? rest.indexOf(text) : rest.search(text);
        if (index >= 0) {
          consumed += index + 1;
          return;
        }
        if (exited || Date.now() - started > timeoutMs) {
          throw new Error(`did not see ${String(text)} on the terminal${exited ? ' (process exited)' : ''}:\n${stripAnsi(raw)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
  };
}

let sandbox: RunningSandbox;
let tmp: { path: string; remove: () => void };
let terminal: Terminal | undefined;

beforeAll(async () => {
  sandbox = await startKeySandbox();
});
afterAll(async () => {
  await sandbox.close();
});
beforeEach(() => {
  tmp = tempDir('hedge-login-tty-');
  sandbox.requestLog.length = 0;
});
afterEach(() => {
  terminal?.kill();
  terminal = undefined;
  tmp.remove();
});

describe('hedge login on a terminal', () => {
  it('asks for the base URL and the key (hidden), checks it and saves the profile', async () => {
    terminal = spawnInTerminal(tmp.path, ['login', '--profile', 'desk']);
    await terminal.waitFor('Base URL');
    // A key pasted into the URL prompt by mistake is refused, with a message that does not repeat it.
    terminal.write(`${KEY_B}${ENTER}`);
    await terminal.waitFor('That is an API key, not a URL');
    terminal.write('\x15'); // Ctrl-U: clear the line
    terminal.write(`${sandbox.baseUrl}${ENTER}`);
    await terminal.waitFor('API key for profile "desk" (hidden)');
    terminal.write(KEY_A);
    terminal.write(ENTER);
    await terminal.waitFor('Saved profile "desk"');
    expect(await terminal.exitCode).toBe(0);

    const screen = terminal.screen();
    expect(screen).not.toContain(KEY_A);
    expect(screen).toContain('test key');
    expect(readStore(tmp.path)).toMatchObject({ current: 'desk', profiles: { desk: { base_url: sandbox.baseUrl, api_key: KEY_A } } });
    expect(sandbox.requestLog.filter((entry) => entry.path === '/account')).toHaveLength(1);
  });

  it("offers the profile's current base URL, and refuses a malformed key as it is typed", async () => {
    writeStore(tmp.path, { current: 'desk', profiles: { desk: { base_url: sandbox.baseUrl, api_key: KEY_B } } });
    terminal = spawnInTerminal(tmp.path, ['login']);
    await terminal.waitFor(sandbox.baseUrl);
    terminal.write(ENTER);
    await terminal.waitFor('API key for profile "desk"');
    terminal.write(`not-a-key${ENTER}`);
    await terminal.waitFor('Expected <prefix>_live_');
    // Clear the hidden answer, then type the real key.
    terminal.write('\x7f'.repeat('not-a-key'.length));
    terminal.write(`${KEY_A}${ENTER}`);
    await terminal.waitFor('Saved profile "desk"');
    expect(await terminal.exitCode).toBe(0);
    expect(terminal.screen()).not.toContain(KEY_A);
    expect(readStore(tmp.path).profiles.desk.api_key).toBe(KEY_A);
  });

  it('--no-input on a terminal refuses to ask (exit 2) and sends nothing', async () => {
    terminal = spawnInTerminal(tmp.path, ['login', '--no-input', '--base-url', sandbox.baseUrl]);
    await terminal.waitFor('--no-input');
    expect(await terminal.exitCode).toBe(2);
    expect(terminal.screen()).toContain('printf %s "$KEY" | hedge login');
    expect(sandbox.requestLog).toHaveLength(0);
    expect(existsSync(storeFile(tmp.path))).toBe(false);
  });
});
