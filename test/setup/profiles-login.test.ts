// `hedge login` without a terminal: the key comes from stdin, is checked with exactly one
// GET /account against the sandbox, and only then saved (file 0600 in a 0700 folder). A malformed
// key is refused before any request; a key the server refuses is reported and nothing is saved.
// On a terminal (a real pseudo-terminal, @lydell/node-pty) it asks for the base URL (offering the
// profile's current one) and for the key hidden as it is typed: the typed key never shows on the
// screen, a key pasted into the URL prompt is not echoed back, and --no-input refuses to ask.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type RunningSandbox } from '../../src/sandbox/http/server.js';
import { hedgeIn } from '../support/hedge-cli.js';
import { loginWith, readStore, storeFile, writeStore } from '../support/config-store.js';
import { KEY_A, KEY_B, KEY_C, LIVE_KEY, UNKNOWN_KEY } from '../support/keys.js';
import { useProfileSuite, type TempDir } from '../support/profile-suite.js';
import { withSimulator } from '../support/simulator.js';
import { ok, okJson, exits } from '../support/cli-runs.js';
import { KEYS, spawnInTerminal, type Terminal } from '../support/servers/pseudo-terminal.js';
import { startLiveKeyProxy } from '../support/servers/field-proxy.js';

let sandbox: RunningSandbox;
let tmp: TempDir;
let configDir: string;

const suite = useProfileSuite('hedge-login-');
beforeEach(() => {
  ({ sandbox, tmp } = suite);
  // A folder that does not exist yet: login must create it, private.
  configDir = join(tmp.path, 'nested', 'hedge');
});

const { nothingSent } = suite;
/** `hedge login --base-url <the simulator> ARGS`, the key on stdin, in the folder login must make. */
const login = (key: string, ...args: string[]) => loginWith(configDir, sandbox, key, args);
/** The store in `dir` holds KEY_A for the simulator in profile desk, the current one. */
const deskSaved = (dir: string) =>
  expect(readStore(dir)).toMatchObject({
    current: 'desk',
    profiles: { desk: { base_url: sandbox.baseUrl, api_key: KEY_A } },
  });

describe('hedge login (key from stdin)', () => {
  it('refuses a malformed key or empty stdin with exit 4, a missing base URL with exit 2 (reading no key), before any request, and a key the sandbox rejects (401, or a live key) with exit 4, saying so: nothing saved, a stored profile as it was; a good key: checked with one GET /account, the profile saved and made current; the base URL from HEDGE_BASE_URL when --base-url is not given', async () => {
    for (const key of ['not-a-key', 'hpk_prod_abcdefghijklmnopqrstuvwx', `${KEY_A} trailing`]) {
      const { stderr } = exits(await login(key, '--profile', 'desk'), 4, 'malformed');
      expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
    }
    for (const input of ['', '\n']) {
      exits(await hedgeIn(configDir, `login --base-url ${sandbox.baseUrl}`, { input }), 4, 'No API key on stdin');
    }
    exits(await hedgeIn(configDir, 'login --profile desk', { input: KEY_A }), 2, '--base-url');
    nothingSent();
    expect(existsSync(storeFile(configDir))).toBe(false);

    const refused = exits(await login(UNKNOWN_KEY, '--profile', 'desk'), 4, 'refused this key');
    // The hint repeats the flag that chose the profile.
    expect(refused.stderr).toContain('run `hedge --profile desk login` again');
    expect(suite.simulator.requests('GET', '/account')).toHaveLength(1);
    expect([sandbox.requestLog[0]?.status, existsSync(storeFile(configDir))]).toEqual([401, false]);
    expect(refused.stderr).not.toContain(UNKNOWN_KEY);

    const result = exits(await login(KEY_A, '--profile', 'desk'), 0, 'test key');
    expect(sandbox.requestLog.map((entry) => [entry.path, entry.status])).toEqual([
      ['/account', 401],
      ['/account', 200],
    ]);
    // Its modes (0600 in a 0700 folder made for it): test/reliability/config-stress.test.ts.
    // The trailing newline of `echo` is not part of the key.
    deskSaved(configDir);
    expect(`${result.stdout}${result.stderr}`).not.toContain(KEY_A);

    expect(okJson(await hedgeIn(configDir, 'whoami --json'))).toMatchObject({
      profile: 'desk',
      environment: 'test',
      key_check: { status: 'ok' },
    });
    ok(await hedgeIn(configDir, 'login --profile env', { input: KEY_A, env: { HEDGE_BASE_URL: sandbox.baseUrl } }));
    expect(readStore(configDir).profiles.env.base_url).toBe(sandbox.baseUrl);
    // A live key to a plain http:// base URL is refused before its check is sent (exit 2); over https, refused by the
    // sandbox, exit 4: the stored profile stays as it was either way.
    const sent = sandbox.requestLog.length;
    exits(
      await login(LIVE_KEY, '--profile', 'desk'),
      2,
      `Refusing plain http:// to 127.0.0.1 (from --base-url) with a live key: a live key goes only over https://`,
    );
    expect(sandbox.requestLog).toHaveLength(sent);
    const https = await startLiveKeyProxy(sandbox, { served: false });
    onTestFinished(https.close);
    exits(await loginWith(configDir, https, LIVE_KEY, ['--profile', 'desk'], https.env), 4, 'live_key_refused');
    expect(sandbox.requestLog.map((entry) => [entry.path, entry.status]).slice(sent)).toEqual([['/account', 401]]);
    expect(readStore(configDir).profiles.desk.api_key).toBe(KEY_A);
  });

  it('names a first profile "default"; saves a second beside it, not current; a bare login renews the current one', async () => {
    ok(await login(KEY_A));
    const second = exits(await login(KEY_B, '--profile', 'other', '--json'), 0, 'hedge profile use other');
    // --json: the saved profile, its key redacted.
    const saved = JSON.parse(second.stdout);
    expect(saved).toMatchObject({ profile: 'other', environment: 'test', base_url: sandbox.baseUrl, current: false });
    expect([saved.api_key === KEY_B, KEY_B.startsWith(saved.api_key.split('…')[0])]).toEqual([false, true]);
    expect(second.stdout).not.toContain(KEY_B);
    ok(await hedgeIn(configDir, 'login', { input: KEY_C }));
    const store = readStore(configDir);
    expect(Object.keys(store.profiles).sort()).toEqual(['default', 'other']);
    expect(store).toMatchObject({
      current: 'default',
      profiles: { default: { api_key: KEY_C, base_url: sandbox.baseUrl }, other: { api_key: KEY_B } },
    });
  });
});

it('hedge login --ca-file (an HTTPS sandbox with its own CA): fails on an untrusted certificate without the CA, then trusts it with --ca-file and keeps it in the profile', () =>
  withSimulator({ preset: 'keys', tls: true, seed: 12, apiKeys: [KEY_A] }, async ({ sandbox: tlsSandbox }) => {
    exits(await loginWith(configDir, tlsSandbox, KEY_A, ['--profile', 'tls']), 5, 'not trusted', 'Nothing was saved');
    expect(existsSync(storeFile(configDir))).toBe(false);

    ok(await loginWith(configDir, tlsSandbox, KEY_A, ['--profile', 'tls', '--ca-file', tlsSandbox.caFile!]));
    expect(readStore(configDir).profiles.tls).toMatchObject({
      base_url: tlsSandbox.baseUrl,
      ca_file: tlsSandbox.caFile,
    });

    // Later commands use the profile's CA without being told again.
    expect(okJson(await hedgeIn(configDir, 'whoami --json'))).toMatchObject({
      ca_file: tlsSandbox.caFile,
      sources: { ca_file: 'profile' },
      key_check: { status: 'ok' },
    });
  }));

describe('hedge login on a terminal', () => {
  const { ENTER } = KEYS;
  let terminal: Terminal | undefined;
  const spawnIn = (args: string[]) => (terminal = spawnInTerminal({ configDir: tmp.path, args, cols: 200, rows: 50 }));
  /** Waits for `text` on the screen, then types each of `keys` in turn. */
  async function after(text: string, ...keys: string[]) {
    await terminal!.waitFor(text);
    for (const typed of keys) terminal!.write(typed);
  }
  /** Waits for the saved profile and exit 0. */
  async function saved() {
    await after('Saved profile "desk"');
    expect(await terminal!.exitCode).toBe(0);
  }
  afterEach(() => {
    terminal?.kill();
    terminal = undefined;
  });

  it('asks for the base URL and the key (hidden), checks it and saves the profile; a key pasted into the base URL prompt is wiped from the screen with its refusal, and the URL typed next is taken as it is', async () => {
    const terminal = spawnIn(['login', '--profile', 'desk']);
    await after('Base URL', `${KEY_B}${ENTER}`);
    await after('That is an API key, not a URL');
    // As drawn: the echo of its typing is erased with the line.
    const drawn = async () => (await terminal.drawn()).map((line) => line.text).join('\n');
    expect(await drawn()).not.toContain(KEY_B.slice(9));
    // No Ctrl-U: the line is empty already.
    terminal.write(`${sandbox.baseUrl}${ENTER}`);
    await after('API key for profile "desk" (hidden)', `${KEY_A}${ENTER}`);
    await saved();
    expect(await drawn()).not.toContain(KEY_B.slice(9));
    const screen = terminal.screen();
    expect(screen).not.toContain(KEY_A);
    expect(screen).toContain('test key');
    deskSaved(tmp.path);
    expect(sandbox.requestLog.filter((entry) => entry.path === '/account')).toHaveLength(1);
  });

  it("offers the profile's current base URL, and refuses a malformed key as it is typed", async () => {
    writeStore(tmp.path, { current: 'desk', profiles: { desk: { base_url: sandbox.baseUrl, api_key: KEY_B } } });
    const terminal = spawnIn(['login']);
    await after(sandbox.baseUrl, ENTER);
    await after('API key for profile "desk"', `not-a-key${ENTER}`);
    // Clear the hidden answer, then type the real key.
    await after('Expected <prefix>_live_', '\x7f'.repeat('not-a-key'.length), `${KEY_A}${ENTER}`);
    await saved();
    expect(terminal.screen()).not.toContain(KEY_A);
    expect(readStore(tmp.path).profiles.desk.api_key).toBe(KEY_A);
  });

  it('--no-input on a terminal refuses to ask (exit 2) and sends nothing', async () => {
    const terminal = spawnIn(['login', '--no-input', '--base-url', sandbox.baseUrl]);
    await after('--no-input');
    expect(await terminal.exitCode).toBe(2);
    expect(terminal.screen()).toContain('printf %s "$KEY" | hedge login');
    nothingSent();
    expect(existsSync(storeFile(tmp.path))).toBe(false);
  });
});
