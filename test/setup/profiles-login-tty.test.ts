// `hedge login` on a terminal (a real pseudo-terminal, @lydell/node-pty): it asks for the base URL
// (offering the profile's current one) and for the key hidden as it is typed, checks it, and
// saves. The typed key never shows on the screen; a key pasted into the URL prompt is not echoed
// back in the error; and with --no-input on a terminal it refuses instead of asking.
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { KEYS, spawnInTerminal as spawnTerminal, type Terminal } from '../support/servers/pseudo-terminal.js';
import { readStore, storeFile, writeStore } from '../support/config-store.js';
import { KEY_A, KEY_B } from '../support/keys.js';
import { useProfileSuite, type TempDir } from '../support/profile-suite.js';

const { ENTER } = KEYS;

const spawnInTerminal = (configDir: string, args: string[]) => spawnTerminal({ configDir, args, cols: 200, rows: 50 });

let terminal: Terminal | undefined;

let sandbox: RunningSandbox;
let tmp: TempDir;
const suite = useProfileSuite('hedge-login-tty-');
beforeEach(() => ({ sandbox, tmp } = suite));
afterEach(() => {
  terminal?.kill();
  terminal = undefined;
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
    expect(readStore(tmp.path)).toMatchObject({
      current: 'desk',
      profiles: { desk: { base_url: sandbox.baseUrl, api_key: KEY_A } },
    });
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
