// The CLI's profile store as the tests see it: the config.json in a config dir, read and written
// directly (to seed profiles or check what a command saved), and a login that feeds it a key.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hedgeIn } from './hedge-cli.js';

export function storeFile(configDir: string) {
  return join(configDir, 'config.json');
}

export function readStore(configDir: string) {
  return JSON.parse(readFileSync(storeFile(configDir), 'utf8'));
}

/** Writes the store the way the CLI keeps it: 0600 in a 0700 folder. */
export function writeStore(configDir: string, data: unknown) {
  if (!existsSync(configDir)) mkdirSync(configDir, { recursive: true, mode: 0o700 });
  writeFileSync(storeFile(configDir), `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
}

/** `hedge login --base-url <server> …` with the key on stdin, in that config dir. */
export function loginWith(
  configDir: string,
  server: { baseUrl: string },
  key: string,
  args: string[] = [],
  env: Record<string, string> = {},
) {
  return hedgeIn(configDir, ['login', '--base-url', server.baseUrl, ...args], { input: `${key}\n`, env });
}
