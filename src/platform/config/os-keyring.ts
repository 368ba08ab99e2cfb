// The OS keyring (macOS Keychain, Windows Credential Manager, the Secret Service on Linux) through @napi-rs/keyring's native binding.
import type { AsyncEntry } from '@napi-rs/keyring';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { within } from '../../core/process/timers.js';
import type { Env } from './env.js';
import { formatSpan } from '../../core/duration.js';

/** Every entry hedge makes is under this service name; the account names the profile and config folder. */
const KEYRING_SERVICE = 'hedge';

/** A keyring that does not answer (a locked Keychain waiting for a click, a stuck D-Bus) ends the command instead of hanging it. */
const KEYRING_BOUND_MS = 10_000;

type KeyringOpening = { ok: true; keyring: ReturnType<typeof wrap> } | { ok: false; reason: string };

/** The binding's file names for this platform, as @napi-rs/keyring's packages name them. */
function bindingFileNames() {
  const { platform, arch } = process;
  if (platform === 'linux') return [`keyring.linux-${arch}-gnu.node`, `keyring.linux-${arch}-musl.node`];
  if (platform === 'win32') return [`keyring.win32-${arch}-msvc.node`];
  if (platform === 'darwin') return [`keyring.darwin-${arch}.node`, 'keyring.darwin-universal.node'];
  return [`keyring.${platform}-${arch}.node`];
}

let opened: KeyringOpening | undefined;

/** How long the session bus may take to answer a greeting before it counts as not there. */
const BUS_PROBE_MS = 3_000;

/** Loads the binding once; never throws (a missing or broken binding is a reason, and the file is the fallback). */
export async function openOsKeyring(env: Env): Promise<KeyringOpening> {
  if (process.platform === 'linux') {
    // The Secret Service is reached over the D-Bus session bus, which the binding connects to synchronously, with no
    // bound: a bus that is not there or does not answer is said first.
    const address = env.DBUS_SESSION_BUS_ADDRESS;
    const silent = address
      ? await busDoesNotAnswer(address)
      : 'no D-Bus session to reach a Secret Service on, DBUS_SESSION_BUS_ADDRESS is not set';
    if (silent) return { ok: false, reason: silent };
  }
  opened ??= open();
  return opened;
}

/** Opens the session bus's socket and starts D-Bus's authentication (a NUL byte, then `AUTH EXTERNAL <uid in hex>`): any answer line means the bus is alive. */
async function busDoesNotAnswer(address: string) {
  const target = socketOf(address);
  if (!target) return;
  const socket = connect(target);
  const answer = new Promise<string | undefined>((resolve) => {
    socket.on('error', (error: NodeJS.ErrnoException) =>
      resolve(`the D-Bus session bus cannot be reached (${error.code ?? error.message})`),
    );
    socket.on('connect', () => {
      const uid = String(process.getuid?.() ?? 0);
      socket.write(`\0AUTH EXTERNAL ${Buffer.from(uid).toString('hex')}\r\n`);
    });
    let heard = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      heard += chunk;
      if (heard.includes('\n')) resolve(undefined);
    });
    socket.on('end', () => resolve('the D-Bus session bus closed the connection'));
  });
  return within(
    answer,
    BUS_PROBE_MS,
    () => new Error(`the D-Bus session bus did not answer within ${formatSpan(BUS_PROBE_MS)}`),
  )
    .catch((late: Error) => late.message)
    .finally(() => socket.destroy());
}

function socketOf(address: string) {
  for (const entry of address.split(';')) {
    const [transport, rest = ''] = entry.split(/:(.*)/s, 2) as [string, string?];
    const { path, abstract, host, port } = Object.fromEntries(
      rest
        .split(',')
        .map((pair) => pair.split('=', 2))
        .map(([key, value]) => [key, decodeURIComponent(value ?? '')]),
    );
    if (transport === 'unix' && (path || abstract)) return { path: path || `\0${abstract}` };
    if (transport === 'tcp' && host && port) return { host, port: Number(port) };
  }
}

function open(): KeyringOpening {
  // The single executable has no dist/ folder: a binding placed beside the executable is used.
  const folders = [dirname(process.execPath)];
  try {
    folders.unshift(dirname(fileURLToPath(import.meta.url)));
  } catch {
    // Not a file on disk (code inside the single executable): only the executable's folder is left.
  }
  let reason = `this build of hedge has no keyring binding for ${process.platform}-${process.arch}`;
  for (const folder of folders)
    for (const name of bindingFileNames()) {
      const path = join(folder, name);
      if (!existsSync(path)) continue;
      try {
        const module = { exports: {} as Parameters<typeof wrap>[0] };
        process.dlopen(module, path);
        return { ok: true, keyring: wrap(module.exports) };
      } catch (error) {
        // A musl binding on glibc (or the reverse) fails to open: the next candidate may fit.
        reason = `the keyring binding could not be loaded (${(error as Error).message.split('\n')[0]})`;
      }
    }
  return { ok: false, reason };
}

/** The keyring's entries under hedge's service; `name` says where the keys go, for messages ("the macOS Keychain", …); `delete` is true when there was an entry to delete. */
function wrap(binding: { AsyncEntry: typeof AsyncEntry }) {
  // On Linux the binding would fall back to the kernel's keyutils store when no Secret Service answers.
  const entry = (account: string) =>
    new binding.AsyncEntry(KEYRING_SERVICE, account, { linux: { store: 'secret-service' } });
  const name =
    { darwin: 'the macOS Keychain', win32: 'the Windows Credential Manager' }[process.platform as string] ??
    'the Secret Service';
  // The binding's AbortSignal only cancels work not yet started; the race ends the wait in any case. The work is
  // started first: the binding may block while it connects, and its time is not the call's.
  const bounded = <T>(work: (signal: AbortSignal) => Promise<T>) =>
    within(
      work(AbortSignal.timeout(KEYRING_BOUND_MS)),
      KEYRING_BOUND_MS,
      () => new Error(`${name} did not answer within ${formatSpan(KEYRING_BOUND_MS)}`),
    );
  return {
    name,
    // async: the entry's constructor throws at once when no keyring answers; a rejection either way.
    get: async (account: string) => bounded((signal) => entry(account).getPassword(signal)),
    set: async (account: string, secret: string) => bounded((signal) => entry(account).setPassword(secret, signal)),
    delete: async (account: string) => {
      const item = entry(account);
      return bounded((signal) => (item.deleteCredential ?? item.deletePassword).call(item, signal));
    },
  };
}
