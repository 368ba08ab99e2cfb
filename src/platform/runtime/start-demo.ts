// `--demo`: the simulator in this very process, on a local socket of its own, with a built-in test key.
import { join } from 'node:path';
import { ConfigError } from '../../core/errors.js';
import type { ResolvedCredentials } from '../config/credentials.js';
import { lockFile } from '../../core/files/file-lock.js';
import { registerSecret } from '../../core/security/secrets.js';
import { messageOf } from '../../core/security/safe-text.js';
import { makePrivateDir } from '../../core/security/bounded-read.js';

/** Not a secret: the demo sandbox accepts this one key, on its own local socket only. */
export const DEMO_API_KEY = 'hpk_test_DemoLocalSimulatorKey0001';
/** accountIdFor(DEMO_API_KEY), worked out once so a `--demo` command need not load node:crypto to hash a constant. */
const DEMO_ACCOUNT_ID = 'acct_1b263bc3f88d3352';
export const DEMO_STATE_FILE = 'demo-state.json';
/** Long enough to see `submitted` then `filled`, short enough not to bore anyone. */
export const DEMO_FILL_DELAY_MS = 1500;

/** The demo state's lock: a run killed holding it (it stopped refreshing it) is taken over after 10 s. */
export const lockDemoState = (path: string) => lockFile(path, { staleMs: 10_000 });

let socketsStarted = 0;

/** A local socket for this process's simulator: a loopback TCP port would run Node's costly IP address code. */
export function demoSocketPath(platform: NodeJS.Platform = process.platform) {
  const name = `hedge-demo-${process.pid}-${++socketsStarted}-${Math.random().toString(36).slice(2, 10)}`;
  if (platform === 'linux') return `\0${name}`;
  if (platform === 'win32') return `\\\\.\\pipe\\${name}`;
  return join(process.getBuiltinModule('node:os').tmpdir(), `${name}.sock`);
}

export async function startDemo(configDir: string) {
  // The config folder, as every command uses it: this user's, closed to others.
  makePrivateDir(configDir);
  // The sandbox is only ever loaded here, so commands without --demo never pay for it.
  const { startSandbox } = await import('../../sandbox/http/server.js');
  const stateFile = join(configDir, DEMO_STATE_FILE);
  const socketPath = demoSocketPath();
  let sandbox;
  try {
    sandbox = await startSandbox({
      socketPath,
      apiKeys: [DEMO_API_KEY],
      knownAccountIds: { [DEMO_API_KEY]: DEMO_ACCOUNT_ID },
      stateFile,
      stateFileLock: lockDemoState,
      fillDelayMs: DEMO_FILL_DELAY_MS,
    });
  } catch (error) {
    throw new ConfigError(`The demo simulator could not start: ${messageOf(error)}`, {
      hint: `Delete ${stateFile} to start the demo afresh (it only holds demo test funds).`,
      cause: error,
    });
  }
  registerSecret(sandbox.apiKey);
  const credentials: ResolvedCredentials = {
    apiKey: sandbox.apiKey,
    baseUrl: sandbox.baseUrl,
    localSocket: socketPath,
    environment: 'test',
    profileName: 'demo',
    sources: { apiKey: 'demo', baseUrl: 'demo', profile: 'demo' },
  };
  const notice = sandbox.startedAfresh
    ? `The demo starts afresh: ${stateFile} was written by an earlier hedge, in another format.`
    : undefined;
  return { credentials, notice, close: () => sandbox.close() };
}
