// Profiles as `hedge login`, `logout` and `profile` handle them, apart from the terminal: what login checks and saves,
// and a stored profile as data (the same fields for `profile list`, `login` and `whoami`, the key always redacted).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ChalkInstance } from 'chalk';
import { AuthError, InterruptedError, UsageError } from '../../core/errors.js';
import { environmentOfKey, redactKey, type Environment } from '../../core/security/secrets.js';
import { checkStoreUrl, redactStoreUrl, storeUrlSecrets } from '../../core/security/store-url.js';
import { ReadRefused, readBoundedStream, readCaFile } from '../../core/security/bounded-read.js';
import type { Env } from './env.js';
import type { StoreData, StoredProfile } from './store-schema.js';
import { currentProfile, keyLocationOf, type KeyLocation } from './credentials.js';

/** Profile `hedge login` (and `logout`) acts on when neither --profile nor HEDGE_PROFILE names one and none is current. */
const DEFAULT_PROFILE_NAME = 'default';

/** A key is a line of at most a few hundred characters; more than this on stdin is not a key. */
const MAX_KEY_INPUT_BYTES = 4096;

/** --profile, then HEDGE_PROFILE, then the current profile, then "default". */
export function loginProfileName(requested: { name: string } | undefined, data: StoreData) {
  return requested?.name ?? currentProfile(data) ?? DEFAULT_PROFILE_NAME;
}

/** The base URL to offer or use: --base-url, then HEDGE_BASE_URL, then what the profile has. */
export function defaultBaseUrl(flag: string | undefined, env: Env, stored: string | undefined) {
  return flag?.trim() || env.HEDGE_BASE_URL?.trim() || stored || undefined;
}

/** Checks --ca-file now, so that a typo is a usage error instead of a TLS failure later. */
export function checkCaFile(raw: string) {
  const path = resolve(raw);
  if (!existsSync(path)) throw new UsageError(`--ca-file: no such file "${raw}".`);
  readCaFile(path, '--ca-file');
  return path;
}

/** Checks --journal-url: a postgres:// URL without a password (a command line is seen by `ps` and kept in shell history; the password comes from ~/.pgpass or PGPASSWORD), or `local` to go back to this machine's file. */
export function checkJournalUrl(raw: string) {
  const value = raw.trim();
  if (value === 'local') return null;
  const shown = checkStoreUrl(value, '--journal-url', {
    notStore:
      "is not allowed; expected postgres://USER@HOST:PORT/DATABASE (or postgresql://…), or `local` for this machine's file",
    write: 'postgres://USER@HOST:PORT/DATABASE',
  });
  if (storeUrlSecrets(value).length)
    throw new UsageError(
      `--journal-url: ${shown} carries a password, which a command line shows to \`ps\` and keeps in shell history; nothing was saved. Leave it out and put it in ~/.pgpass or PGPASSWORD (or set HEDGE_JOURNAL_URL in the environment instead).`,
    );
  return value;
}

/** Drops exactly one trailing line break (`echo` adds one); anything else stays and is validated. */
export function trimOneNewline(text: string) {
  return text.replace(/\r?\n$/, '');
}

/** Reads the key from a pipe: `printf %s "$KEY" | hedge login …`. Empty input is refused (exit 4). */
export async function readKeyFromStdin(stdin: NodeJS.ReadableStream, signal: AbortSignal) {
  let bytes;
  try {
    bytes = await readBoundedStream(stdin, { maxBytes: MAX_KEY_INPUT_BYTES, signal });
  } catch (error) {
    if (error instanceof ReadRefused)
      throw new AuthError(`stdin holds more than ${MAX_KEY_INPUT_BYTES} bytes: that is not an API key.`, {
        hint: 'Pipe in the key alone: printf %s "$KEY" | hedge login --profile NAME --base-url URL',
      });
    if (!signal.aborted) throw error;
    throw signal.reason instanceof DOMException && signal.reason.name === 'TimeoutError'
      ? new AuthError('No API key arrived on stdin before --timeout ran out; nothing was saved.', {
          hint: 'Pipe the key in and close the pipe: printf %s "$KEY" | hedge login --profile NAME --base-url URL',
        })
      : new InterruptedError('Interrupted while reading the key from stdin; nothing was saved.');
  }
  const key = trimOneNewline(bytes.toString('utf8'));
  if (key === '')
    throw new AuthError('No API key on stdin: login reads the key from stdin when it cannot ask for it.', {
      hint: 'Pipe the key in: printf %s "$KEY" | hedge login --profile NAME --base-url URL (or run it on a terminal to be asked).',
    });
  return key;
}

/** Records where the key is, and forgets where it was: a profile's key lives in exactly one place. */
export function placeKey(profile: StoredProfile, apiKey: string, at: KeyLocation) {
  delete profile.api_key;
  delete profile.key_keyring;
  delete profile.key_command;
  delete profile.key_shown;
  delete profile.key_environment;
  if (at.kind === 'file') {
    profile.api_key = apiKey;
    return;
  }
  if (at.kind === 'keyring') profile.key_keyring = at.account;
  else profile.key_command = at.command;
  // What `profile list` shows without asking the keyring or running the helper: never the key itself.
  profile.key_shown = redactKey(apiKey);
  const environment = environmentOfKey(apiKey);
  if (environment) profile.key_environment = environment;
}

/** A profile's row: the key redacted, null for what it lacks (logged out: no environment, key or key store). */
export function profileRow(name: string, profile: StoredProfile, current: boolean) {
  // A key in the keyring or behind a helper is described by what login noted of it.
  const location = keyLocationOf(profile);
  const environment =
    location?.kind === 'file'
      ? environmentOfKey(profile.api_key!)
      : location && (profile.key_environment as Environment | undefined);
  return {
    name,
    current,
    environment: environment === 'live' || environment === 'test' ? environment : null,
    base_url: profile.base_url,
    api_key: location?.kind === 'file' ? redactKey(profile.api_key!) : location ? (profile.key_shown ?? '…') : null,
    key_store: location?.kind ?? null,
    ca_file: profile.ca_file ?? null,
    journal_url: profile.journal_url ? redactStoreUrl(profile.journal_url) : null,
    saved_at: profile.saved_at ?? null,
  };
}

export function profileRows(data: StoreData) {
  return Object.keys(data.profiles)
    .sort((a, b) => a.localeCompare(b))
    .map((name) => profileRow(name, data.profiles[name], data.current === name));
}

export function requireProfile(data: StoreData, name: string, argument: string) {
  const profile = data.profiles[name];
  if (!profile) {
    const known = Object.keys(data.profiles).sort();
    throw new UsageError(
      `${argument}: no profile named "${name}" (${known.length ? `profiles: ${known.join(', ')}` : 'none saved yet; run `hedge login`'}).`,
    );
  }
  return profile;
}

/** LIVE in bold red (real money), test in plain words, a dim dash when there is no key. */
export function environmentLabel(environment: Environment | null | undefined, chalk: ChalkInstance) {
  return environment === 'live' ? chalk.bold.red('LIVE') : environment === 'test' ? 'test' : chalk.dim('—');
}
