// Keys at rest: a profile's key from a credential helper (`key_command`), and the 0600
// file as the fallback where no OS keyring answers. The built binary runs against the simulator,
// and what happened is judged by the simulator's request log (a request made with a wrong key is
// a 401 there; a command that sent nothing left no entry) and by the files hedge left behind. The
// test environment has no D-Bus session, so no keyring answers here; keys-keyring.test.ts runs the
// keyring path against a real Secret Service.
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { type RunningSandbox } from '../../src/sandbox/http/server.js';
import { loginWith, readStore, storeFile, writeStore } from '../support/config-store.js';
import { KEY_A, UNKNOWN_KEY, piecesShown } from '../support/keys.js';
import { useProfileSuite } from '../support/profile-suite.js';
import type { Simulator } from '../support/simulator.js';
import { ok, okJson, exits } from '../support/cli-runs.js';

let simulator: Simulator;
let sandbox: RunningSandbox;
let configDir: string;
let keyFile: string;
let helper: string;

const suite = useProfileSuite('hedge-keys-');
beforeEach(() => {
  ({
    simulator,
    sandbox,
    tmp: { path: configDir },
  } = suite);
  keyFile = join(configDir, 'key.txt');
  // `pass show` prints the key on the first line and notes after it: only the first line is the key.
  writeFileSync(keyFile, `${KEY_A}\nurl: partner desk\n`, { mode: 0o600 });
  helper = `cat '${keyFile}'`;
});

/** Every file under a folder, as text: where a key must never be. */
function everyFileText(dir: string) {
  let text = '';
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    text += statSync(path).isDirectory() ? everyFileText(path) : `${readFileSync(path, 'latin1')}\n`;
  }
  return text;
}

const { run, nothingSent } = suite;
/** Empties the sandbox's request log. */
const forget = () => (sandbox.requestLog.length = 0);
/** `hedge login --profile desk ARGS` with KEY_A on stdin. */
const loginDesk = (args = '', env?: Record<string, string>) =>
  loginWith(configDir, sandbox, KEY_A, `--profile desk ${args}`.trim().split(' '), env);
const loginWithHelper = (command: string) =>
  run(['login', '--base-url', sandbox.baseUrl, '--profile', 'desk', '--key-command', command]);

/** Logged in with the working helper, then the profile's helper changed to `command`; the request log cleared. */
async function savedHelper(command: string) {
  ok(await loginWithHelper(helper));
  const store = readStore(configDir);
  store.profiles.desk.key_command = command;
  writeStore(configDir, store);
  forget();
}

describe('a credential helper (key_command)', () => {
  it('login runs it, checks its key with one GET /account, stores the command, never the key; every command runs it again; logout forgets it', async () => {
    const result = exits(await loginWithHelper(helper), 0, 'credential helper');
    expect(simulator.requests('GET', '/account').map((entry) => entry.status)).toEqual([200]);

    const profile = readStore(configDir).profiles.desk;
    expect(profile).toMatchObject({
      base_url: sandbox.baseUrl,
      key_command: helper,
      key_shown: 'hpk_test…0001',
      key_environment: 'test',
    });
    expect(profile.api_key).toBeUndefined();
    expect(readFileSync(storeFile(configDir), 'utf8')).not.toContain(KEY_A);
    expect(`${result.stdout}${result.stderr}`).not.toContain(KEY_A);

    // Every command runs the helper again: whoami says where the key lives, a trade goes out with it, no file holds it.
    expect(okJson(await run('whoami --json'))).toMatchObject({
      profile: 'desk',
      key_store: { kind: 'command', location: helper },
      key_check: { status: 'ok' },
    });
    const card = await run('whoami', { env: { HEDGE_FORCE_TTY: '1', COLUMNS: '120' } });
    expect(card.stdout).toMatch(/Key stored in\s+│?\s*credential helper `cat '/);

    forget();
    ok(await run('open USDTNGN buy 1000 --tenor 3 --json'));
    expect(simulator.requests('POST', '/hedges').map((entry) => entry.status)).toEqual([200]);
    // The journal, the config store and everything else hedge wrote under its home: no key in any of it.
    const written = everyFileText(configDir).replaceAll(readFileSync(keyFile, 'latin1'), '');
    expect(written).toContain(simulator.writes().find((entry) => entry.path === '/hedges')!.idempotencyKey!);
    expect(written).not.toContain(KEY_A);

    // The helper now gives a key the server does not know: the next command sends that one.
    writeFileSync(keyFile, `${UNKNOWN_KEY}\n`);
    forget();
    exits(await run('positions'), 4);
    expect(simulator.requests().map((entry) => [entry.path, entry.errorCode])).toEqual([
      ['/positions', 'unauthorized'],
    ]);

    // Logout forgets the helper (its store keeps the key), and the next command sends nothing.
    const logout = exits(await run('logout --json'), 0, "The key itself stays in that helper's store").stdout;
    expect(JSON.parse(logout)).toEqual({ profile: 'desk', logged_out: true, key_store: 'command' });
    for (const name of ['key_command', 'key_shown'])
      expect(readStore(configDir).profiles.desk).not.toHaveProperty(name);
    forget();
    exits(await run('positions'), 4, 'logged out');
    nothingSent();
  });

  it('a helper that prints something that is not a key: exit 4, nothing sent, and none of it shown — not even its first or last characters; one that fails: exit 4, its last line shown safely', async () => {
    const notAKey = 'MyBankPassw0rd-Qz7xVw3kPj9931';
    const wrongFile = join(configDir, 'wrong.txt');
    writeFileSync(wrongFile, `${notAKey}\nnotes\n`, { mode: 0o600 });

    const login = exits(
      await loginWithHelper(`cat '${wrongFile}'`),
      4,
      'The API key from --key-command is malformed: expected <prefix>_live_<...> or <prefix>_test_<...>; what came is 29 characters with no _live_ or _test_ part (none of it is shown).',
    );
    expect(piecesShown(`${login.stdout}${login.stderr}`, notAKey)).toEqual([]);

    // A saved profile whose helper starts printing something else: the same, on every command.
    await savedHelper(`cat '${wrongFile}'`);
    for (const args of [['positions'], ['positions', '--json', '--verbose']]) {
      const result = exits(await run(args), 4, 'is malformed');
      expect(piecesShown(`${result.stdout}${result.stderr}`, notAKey)).toEqual([]);
    }
    nothingSent();

    // A helper that fails: exit 4 with its last line shown safely, and nothing is sent.
    await savedHelper(`printf 'gpg: decryption failed \\033[31mred\\n' >&2; exit 2`);
    const result = exits(
      await run('positions'),
      4,
      'The key command of profile "desk" exited 2: gpg: decryption failed \\x1b[31mred; nothing was sent.',
    );
    expect(result.stderr).not.toContain('\u001b');
    nothingSent();
  });

  // The helper sees none of hedge's secrets in its environment: key-command.test.ts (runKeyCommand, which every helper runs through).
  it('HEDGE_API_KEY still wins over the profile, and the helper is then not run', async () => {
    const marker = join(configDir, 'ran.txt');
    ok(await loginWithHelper(`touch '${marker}'; cat '${keyFile}'`));
    rmSync(marker);
    forget();
    ok(await run('positions --json', { env: { HEDGE_API_KEY: KEY_A } }));
    expect(existsSync(marker)).toBe(false);
    // The positions list, then the sides' hedge records (every filled one, the newest page): all with the environment's key.
    expect(simulator.requests().map((entry) => [entry.path, entry.status])).toEqual([
      ['/positions', 200],
      ['/hedges', 200],
      ['/hedges', 200],
    ]);
  });
});

describe('no OS keyring: the 0600 file is the fallback', () => {
  it('login keeps the key in the file and says so once; later commands and whoami say nothing of a keyring; --key-store keyring and --move-key refuse and change nothing, --key-store file is taken', async () => {
    exits(await loginDesk('--key-store keyring'), 1, '--key-store keyring:', 'nothing was saved');
    expect(existsSync(storeFile(configDir))).toBe(false);
    const login = ok(await loginDesk());
    expect(login.stderr).toContain('No OS keyring to keep it in');
    expect(login.stderr).toMatch(/no D-Bus session .*`hedge --profile desk login --move-key`/s);
    expect(readStore(configDir).profiles.desk).toMatchObject({ api_key: KEY_A });
    // Its mode, 0600: test/reliability/config-stress.test.ts.

    expect(ok(await run('positions')).stderr).not.toMatch(/keyring/i);
    expect(okJson(await run('whoami --json')).key_store).toEqual({ kind: 'file', location: storeFile(configDir) });

    const before = readFileSync(storeFile(configDir), 'utf8');
    forget();
    exits(await run('login --profile desk --move-key'), 1, 'the key stays where it was');
    expect(readFileSync(storeFile(configDir), 'utf8')).toBe(before);
    nothingSent();
    ok(await loginDesk('--key-store file'));
  });

  it('a session bus that accepts and never answers is no keyring: login falls back, a keyring profile fails, neither hangs', async () => {
    const busPath = join(configDir, 'silent-bus.sock');
    const held: Socket[] = [];
    const bus = createServer((socket) => held.push(socket)).listen(busPath);
    try {
      const env = { DBUS_SESSION_BUS_ADDRESS: `unix:path=${busPath}` };
      const login = ok(await loginDesk('', env));
      expect(login.stderr).toContain('No OS keyring to keep it in: the D-Bus session bus did not answer within 3 s.');
      expect(readStore(configDir).profiles.desk.api_key).toBe(KEY_A);

      const store = readStore(configDir);
      store.profiles.desk = { base_url: sandbox.baseUrl, key_keyring: `desk@${configDir}` };
      writeStore(configDir, store);
      forget();
      exits(
        await run('positions', { env }),
        4,
        'is in the OS keyring, but the D-Bus session bus did not answer within 3 s; nothing was sent.',
      );
      nothingSent();
    } finally {
      for (const socket of held) socket.destroy();
      bus.close();
    }
  });
});
