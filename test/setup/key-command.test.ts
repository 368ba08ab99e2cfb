// The credential helper (`key_command`) as a unit: real shell commands, no network. Its output's
// first line is the key; a failing, silent, chatty or hanging helper is an AuthError (exit 4) that
// names the profile and shows the helper's last words filtered; it runs without hedge's secrets in
// its environment; and a profile whose key comes from it resolves to that key.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveCredentials, keyLocationOf } from '../../src/platform/config/credentials.js';
import { runKeyCommand } from '../../src/platform/config/key-command.js';
import { ProfileStore } from '../../src/platform/config/profile-store.js';
import { InterruptedError } from '../../src/core/errors.js';
import { childEnvironment } from '../../src/core/process/bounded-child.js';
import { registerSecret } from '../../src/core/security/secrets.js';
import { tempFolders } from '../support/hedge-cli.js';
import { until } from '../support/polling.js';

/** A process that still runs (a zombie waiting to be reaped counts as gone). */
function isRunning(pid: number) {
  try {
    if (process.platform === 'linux') return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const KEY = 'hpk_test_UnitHelperKey000000000001';
const tempFolder = tempFolders('hedge-helper-');
const run = (command: string, extra: Partial<Parameters<typeof runKeyCommand>[1]> = {}) =>
  runKeyCommand(command, { env: { PATH: process.env.PATH }, owner: 'profile "desk"', ...extra });

describe.skipIf(process.platform === 'win32')('runKeyCommand', () => {
  it('a helper that outlasts its bound is stopped with everything it started', async () => {
    const pidFile = join(tempFolder(), 'pid');
    // A grandchild that would outlive the shell by half a minute if only the shell were stopped.
    // A bound the shell outlasts by far, yet long enough for it to start its grandchild on a busy machine.
    const failure = run(`sleep 30 & echo $! > '${pidFile}'; wait`, { timeoutMs: 2_000 });
    await expect(failure).rejects.toThrow('did not finish within 2 s and was stopped');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await until(() => !isRunning(pid), "the helper's grandchild to be gone", { timeoutMs: 10_000 });
  });

  it('no output, or more than a key can be, is refused; Ctrl-C stops it: InterruptedError', async () => {
    await expect(run('true')).rejects.toThrow('printed no key');
    await expect(run('head -c 10000 /dev/zero | tr "\\0" a')).rejects.toThrow('more than 4096 bytes');
    const controller = new AbortController();
    const pending = run('sleep 30', { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(InterruptedError);
  });

  // childEnvironment is the environment of a keeper's --alert-cmd child too.
  it('runs without HEDGE_API_KEY, the store URL, a PostgreSQL password or any registered secret in its environment; proxies kept without their credentials', async () => {
    registerSecret('hpk_live_RegisteredForUnitTest0000001');
    const proxies = {
      HTTP_PROXY: 'http://proxy.example:3128',
      NO_PROXY: 'localhost',
      HTTPS_PROXY: 'http://desk:s3cret@proxy.example:3128',
      http_proxy: 'http://desk:s3cret@proxy.example:3128/',
      ALL_PROXY: 'socks5://desk:s3cret@proxy.example:1080',
      https_proxy: 'not a url desk:s3cret',
    };
    const env = {
      PATH: process.env.PATH,
      HEDGE_API_KEY: KEY,
      PGPASSWORD: 'pw',
      HEDGE_JOURNAL_URL: 'postgres://a@b/c',
      TOKEN: 'x hpk_live_RegisteredForUnitTest0000001',
      // Shaped like a key, never registered.
      LEAKY: 'hpk_live_NotForChildren0000000000001',
      KEEP: 'yes',
      ...proxies,
    };
    expect(childEnvironment(env)).toEqual({
      PATH: process.env.PATH,
      KEEP: 'yes',
      ...proxies,
      HTTPS_PROXY: 'http://proxy.example:3128/',
      http_proxy: 'http://proxy.example:3128/',
      ALL_PROXY: 'socks5://proxy.example:1080',
      https_proxy: '',
    });
    await expect(
      run(`test -z "$HEDGE_API_KEY$PGPASSWORD$TOKEN$LEAKY$HEDGE_JOURNAL_URL" && test "$KEEP" = yes && echo ${KEY}`, {
        env,
      }),
    ).resolves.toBe(KEY);
  });
});

it.skipIf(process.platform === 'win32')(
  "a profile whose key comes from a helper resolves to the helper's key (the helper wins over a stale copy in the file), and says where it came from",
  async () => {
    const store = new ProfileStore(join(tempFolder(), 'cfg'));
    await store.update((data) => {
      data.profiles.desk = {
        base_url: 'https://desk.example/v2',
        key_command: `echo ${KEY}`,
        api_key: 'hpk_test_StaleCopyInTheFile000000001',
      };
      data.current = 'desk';
    });
    expect(keyLocationOf(store.profile('desk'))).toEqual({ kind: 'command', command: `echo ${KEY}` });
    await expect(resolveCredentials({ env: {}, store: () => store })).resolves.toMatchObject({
      apiKey: KEY,
      profileName: 'desk',
      sources: { apiKey: 'profile' },
      keyLocation: { kind: 'command', command: `echo ${KEY}` },
    });
  },
);
