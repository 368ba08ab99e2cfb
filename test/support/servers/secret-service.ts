// A real Secret Service for the keyring tests: gnome-keyring-daemon on a private D-Bus session
// (dbus-run-session), its keyring files in a temporary home and unlocked with a password on stdin.
// Nothing of the machine's own keyring or session is touched. `stop()` closes the session, and the
// daemon leaves with its bus. Where the tools are absent, `secretServiceMissing()` says which.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../hedge-cli.js';
import { hasTool } from './tools.js';

const TOOLS = ['dbus-run-session', 'gnome-keyring-daemon', 'secret-tool'] as const;

/** Why the keyring tests cannot run here (the Debian packages to install), or undefined when they can. */
export function secretServiceMissing() {
  if (process.platform !== 'linux') return `the Secret Service tests run on Linux (this is ${process.platform})`;
  const absent = TOOLS.filter((tool) => !hasTool(tool));
  return absent.length > 0
    ? `${absent.join(', ')} not installed (apt-get install gnome-keyring dbus libsecret-tools)`
    : undefined;
}

export type SecretService = Awaited<ReturnType<typeof startSecretService>>;

const SESSION_SCRIPT = [
  // The password that creates and unlocks the test's login keyring, on stdin as the daemon wants it.
  'printf %s test-keyring-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1 || exit 3',
  'echo "BUS=$DBUS_SESSION_BUS_ADDRESS"',
  // The session lasts until the test closes this stdin.
  'exec cat >/dev/null',
].join('\n');

export async function startSecretService() {
  const home = tempDir('hedge-keyring-home-');
  const runtime = join(home.path, 'run');
  mkdirSync(runtime, { mode: 0o700 });
  const base = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home.path,
    XDG_RUNTIME_DIR: runtime,
    XDG_DATA_HOME: join(home.path, 'share'),
    LANG: 'C.UTF-8',
  };
  const child = spawn('dbus-run-session', ['--', 'sh', '-c', SESSION_SCRIPT], { env: base });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  const ended = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const address = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      stdout += chunk;
      const match = /^BUS=(.+)$/m.exec(stdout);
      if (match) resolve(match[1]);
    });
    child.on('close', (code) =>
      reject(new Error(`the D-Bus session ended (${code}) before the keyring started: ${stderr}`)),
    );
  });
  return {
    /** DBUS_SESSION_BUS_ADDRESS for a process that should reach it. */
    env: { DBUS_SESSION_BUS_ADDRESS: address },
    /** What the keyring holds for service "hedge" and this account, read with secret-tool (null: nothing). */
    lookup(account: string) {
      const result = spawnSync('secret-tool', ['lookup', 'service', 'hedge', 'username', account], {
        env: { ...base, DBUS_SESSION_BUS_ADDRESS: address },
        encoding: 'utf8',
        // A real bound (secret-tool asks the daemon over D-Bus), far past its answer on a loaded machine.
        timeout: 30_000,
      });
      return result.status === 0 ? result.stdout : null;
    },
    async stop() {
      child.stdin.end();
      await ended;
      home.remove();
    },
  };
}
