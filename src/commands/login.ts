// hedge login [--profile NAME] [--base-url URL] [--ca-file FILE] [--key-command CMD | --key-store keyring|file] [--move-key]
// Asks on a terminal (the key hidden), reads the key from stdin otherwise; checks the key with one
// GET /account against that base URL and saves the profile only when the server accepted it. The
// asking is flows/login.ts. The key goes to the OS keyring where one answers, to the 0600 file
// otherwise (said once, here), or is not stored at all when a credential helper gives it
// (`--key-command`); `--move-key` moves a stored key between the file and the keyring.
import { containsKeyShape, redactKey, registerSecret, validateApiKey } from '../security/secrets.js';
import { requestedProfile, type ResolvedCredentials } from '../config/credentials.js';
import { describeKeyLocation, keepKey, keyLocationOf, keyringAccount, readProfileKey, removeFromKeyring, type KeyLocation } from '../config/key-store.js';
import { placeKey } from '../config/login-profile.js';
import { requireProfile } from '../config/profile-view.js';
import type { ProfileStore } from '../config/profile-store.js';
import { checkKey } from '../flows/key-check.js';
import { checkCaFile, checkJournalUrl, defaultBaseUrl, loginProfileName, saveLogin } from '../config/login-profile.js';
import { askLogin } from '../flows/login.js';
import { environmentLabel } from '../ui/profile-view.js';
import type { CommandContext } from '../runtime/context.js';
import type { InputOf } from '../cli/command-spec.js';
import type { LOGIN } from './login.spec.js';
import { ApiError, AuthError, ConfigError, HedgeError, NetworkError, UsageError } from '../errors.js';
import { safeText } from '../security/safe-text.js';
import { redactStoreUrl } from '../security/store-url.js';

export interface LoginOptions {
  /** As typed; checked once the store is read (undefined: not given). */
  baseUrl?: string;
  caFile?: string;
  /** undefined: keep what the profile has; null: back to the local file. */
  journalUrl?: string | null;
  /** A credential helper whose output is the key: stored instead of the key. */
  keyCommand?: string;
  /** Where to keep the key; undefined: the keyring where one answers, the file otherwise. */
  keyStore?: 'keyring' | 'file';
  /** Move the stored key (to keyStore, the keyring by default) instead of logging in. */
  moveKey: boolean;
}

const KEY_STORES = ['keyring', 'file'] as const;

export function parseLoginOptions(input: InputOf<typeof LOGIN>): LoginOptions {
  const { options } = input;
  const keyStore = typeof options.keyStore === 'string' ? options.keyStore.trim() : undefined;
  if (keyStore !== undefined && !(KEY_STORES as readonly string[]).includes(keyStore)) {
    throw new UsageError(`--key-store: "${safeText(keyStore)}" is not a place for the key; expected keyring or file.`);
  }
  let keyCommand: string | undefined;
  if (typeof options.keyCommand === 'string') {
    keyCommand = options.keyCommand.trim();
    if (keyCommand === '') throw new UsageError('--key-command: empty; expected a command whose output is the key, e.g. --key-command \'pass show hedge/desk\'.');
    if (containsKeyShape(keyCommand)) {
      // The key itself on a command line is what the helper is there to avoid (`ps`, shell history).
      registerSecret(keyCommand);
      throw new UsageError('--key-command: the command holds an API key itself; name a command that fetches it (`pass show …`, `op read …`), so the key stays out of the command line and the config file.');
    }
  }
  const moveKey = options.moveKey === true;
  if (keyCommand !== undefined && keyStore !== undefined) {
    throw new UsageError('--key-store: a key from --key-command is not stored by hedge; give one of the two.');
  }
  if (moveKey) {
    const others = (['baseUrl', 'caFile', 'journalUrl', 'keyCommand'] as const).filter((key) => options[key] !== undefined);
    if (others.length > 0) {
      const flag = { baseUrl: '--base-url', caFile: '--ca-file', journalUrl: '--journal-url', keyCommand: '--key-command' }[others[0]!];
      throw new UsageError(`--move-key: moves the stored key only (with --key-store keyring or file); leave out ${flag}.`);
    }
  }
  return {
    baseUrl: typeof options.baseUrl === 'string' ? options.baseUrl : undefined,
    caFile: typeof options.caFile === 'string' ? checkCaFile(options.caFile) : undefined,
    journalUrl: typeof options.journalUrl === 'string' ? checkJournalUrl(options.journalUrl) : undefined,
    keyCommand,
    keyStore: keyStore as LoginOptions['keyStore'],
    moveKey,
  };
}

/** The demo has no account to log in to; said before any flag is read. */
function refuseDemo(ctx: CommandContext): void {
  if (ctx.globals.demo) {
    throw new UsageError('--demo: the demo needs no login; run `hedge --demo <command>` directly.');
  }
}

export function run(ctx: CommandContext, input: InputOf<typeof LOGIN>): Promise<number> {
  refuseDemo(ctx);
  return runLogin(ctx, parseLoginOptions(input));
}

export async function runLogin(ctx: CommandContext, opts: LoginOptions): Promise<number> {
  refuseDemo(ctx);
  const requested = requestedProfile(ctx.globals.profile, ctx.env);
  const store = await ctx.store();
  // A store that cannot be read is reported before anything is asked.
  const name = loginProfileName(requested, store.read());
  const existing = store.profile(name);
  if (opts.moveKey) return moveKey(ctx, store, name, opts.keyStore ?? 'keyring');
  const { caFile, journalUrl, keyCommand } = opts;
  const offeredBaseUrl = defaultBaseUrl(opts.baseUrl, ctx.env, existing?.base_url);
  const fetchKey = keyCommand === undefined ? undefined : async () => {
    const { runKeyCommand, KEY_COMMAND_BOUND_MS } = await import('../config/key-command.js');
    const timeoutMs = ctx.deadline === undefined ? KEY_COMMAND_BOUND_MS : Math.max(0, Math.min(KEY_COMMAND_BOUND_MS, ctx.deadline - ctx.clock.now()));
    return runKeyCommand(keyCommand, { env: ctx.env, signal: ctx.signal, timeoutMs, owner: '--key-command' });
  };
  const { baseUrl, baseUrlSource, apiKey } = await askLogin(ctx, { name, flagBaseUrl: opts.baseUrl, offeredBaseUrl, fetchKey });
  registerSecret(apiKey);
  const environment = validateApiKey(apiKey, keyCommand !== undefined ? '--key-command' : ctx.io.stdinIsTTY ? 'the prompt' : 'stdin');

  const credentials: ResolvedCredentials = {
    apiKey,
    baseUrl,
    caFile: caFile ?? (ctx.env.HEDGE_CA_FILE || existing?.ca_file || undefined),
    environment,
    profileName: name,
    sources: { apiKey: 'profile', baseUrl: baseUrlSource, profile: requested?.source ?? 'profile' },
  };
  const c = ctx.output.chalk;
  if (!ctx.output.isJson) ctx.output.note(c.dim(`Checking the key against ${baseUrl} …`));
  const check = await checkKey(ctx, credentials);
  if (check.status === 'refused') {
    throw new AuthError(`The server refused this key (${check.code}, ${redactKey(apiKey)}): nothing was saved.`, {
      hint: 'Check the key (copy it again from the partner desk) and that it belongs to this base URL — a test key for the sandbox, a live key for production — then run `hedge login` again.',
    });
  }
  if (check.error instanceof ApiError) {
    const error = check.error;
    throw new ApiError({
      status: error.status,
      code: error.code,
      message: `${error.message} Nothing was saved.`,
      details: error.details,
      requestId: error.requestId,
      endpoint: error.endpoint,
      hint: 'Check the base URL: it is the API address the partner desk gives, ending in its version segment (…/v2).',
    });
  }
  if (check.error instanceof NetworkError) {
    throw new NetworkError(`${check.error.message} Nothing was saved.`, {
      endpoint: check.error.endpoint,
      attempts: check.error.attempts,
      status: check.error.status,
      code: check.error.code,
      hint: check.error.hint ?? 'Check the base URL and the network, then run `hedge login` again.',
      cause: check.error.cause,
    });
  }
  if (check.status !== 'ok') throw check.error ?? new Error(`key check ended ${check.status}`);
  // The team store is checked like the key: reached, and its schema made, before anything is saved.
  const journalShown = journalUrl ? redactStoreUrl(journalUrl) : undefined;
  if (journalUrl) {
    const { journalDir } = await import('../journal/index.js');
    const { openTeamJournal } = await import('../journal/store.js');
    const team = await openTeamJournal({ url: journalUrl, shown: journalShown!, source: '--journal-url', fallbackDir: journalDir(ctx.env), now: ctx.clock.now, log: (line) => ctx.log(line) });
    try {
      await team.migrateSchema();
    } catch (error) {
      if (error instanceof HedgeError) error.message = `${error.message} Nothing was saved.`;
      throw error;
    } finally {
      await team.close?.();
    }
  }

  // Where the key goes: nowhere (a helper gives it), the keyring (written now), or the file.
  let keyAt: KeyLocation;
  let fallbackReason: string | undefined;
  if (keyCommand !== undefined) {
    keyAt = { kind: 'command', command: keyCommand };
  } else {
    const keeping = await keepKey(opts.keyStore ?? 'auto', keyringAccount(name, store.dir), apiKey, ctx.env);
    if (!keeping.ok) {
      throw new ConfigError(`--key-store keyring: ${keeping.reason}; nothing was saved.`, {
        hint: 'Leave out --key-store to keep the key in the 0600 config file instead, or name a credential helper with --key-command.',
      });
    }
    keyAt = keeping.at;
    fallbackReason = keeping.fallbackReason;
  }
  const before = existing ? keyLocationOf(existing) : undefined;
  const saved = await saveLogin(store, { name, baseUrl, apiKey, keyAt, caFile, journalUrl, savedAt: new Date(ctx.clock.now()).toISOString() });
  const profile = saved.data.profiles[name]!;
  // The key now lives in one place: an older keyring entry of this profile goes.
  if (before?.kind === 'keyring' && !(keyAt.kind === 'keyring' && keyAt.account === before.account)) {
    const removal = await removeFromKeyring(before.account, ctx.env);
    if ('error' in removal) ctx.output.warn(`The old key of profile "${name}" could not be removed from the OS keyring (${removal.error}); delete the entry service "hedge", account "${safeText(before.account)}" by hand.`);
  }
  const where = describeKeyLocation(keyAt, store.file);
  if (ctx.output.isJson) {
    ctx.output.json({
      profile: name,
      environment,
      base_url: baseUrl,
      api_key: redactKey(apiKey),
      key_store: keyAt.kind,
      ca_file: profile.ca_file ?? null,
      journal_url: profile.journal_url ? redactStoreUrl(profile.journal_url) : null,
      current: saved.current,
    });
  }
  const label = environmentLabel(environment, c);
  ctx.output.note(
    environment === 'live'
      ? `${label} ${c.red('key accepted: this profile trades in production, with real money.')}`
      : c.green(`✓ Key accepted: a ${label} key (sandbox, test funds).`),
  );
  const shownKey = redactKey(apiKey);
  ctx.output.note(
    keyAt.kind === 'file'
      ? `Saved profile "${name}" (${baseUrl}, key ${shownKey}) in ${store.file}, the key with it in plain text (0600).`
      : keyAt.kind === 'keyring'
        ? `Saved profile "${name}" (${baseUrl}) in ${store.file}; its key ${shownKey} is in the ${where}.`
        : `Saved profile "${name}" (${baseUrl}) in ${store.file}; its key ${shownKey} comes from the ${where} each time it is needed (hedge keeps no copy).`,
  );
  if (fallbackReason) {
    // Said once, at login: later commands read the file without a word.
    ctx.output.note(
      `No OS keyring to keep it in: ${safeText(fallbackReason)}. The key is readable only by you, in plain text; once there is a keyring, move it with \`${ctx.hedgeCommand('login', '--move-key')}\`, or name a credential helper with --key-command.`,
    );
  }
  if (journalShown) ctx.output.note(`Its journal is the team store ${journalShown}: every machine using it sees and guards the same actions.`);
  else if (journalUrl === null) ctx.output.note(`Its journal is this machine's local file again.`);
  if (saved.current) ctx.output.note(`"${name}" is the current profile.`);
  else if (saved.previousCurrent) {
    ctx.output.note(`The current profile stays "${saved.previousCurrent}"; switch with: hedge profile use ${name}`);
  }
  if (ctx.env.HEDGE_API_KEY || ctx.env.HEDGE_BASE_URL) {
    ctx.output.warn('HEDGE_API_KEY / HEDGE_BASE_URL are set in the environment and take precedence over stored profiles.');
  }
  return 0;
}

/**
 * `hedge login --move-key [--key-store keyring|file]`: the profile's stored key moves, without
 * asking for it or sending anything (it was checked when it was saved). From the file to the
 * keyring by default; back to the file with `--key-store file`.
 */
async function moveKey(ctx: CommandContext, store: ProfileStore, name: string, target: 'keyring' | 'file'): Promise<number> {
  const profile = requireProfile(store.read(), name, '--profile');
  const from = keyLocationOf(profile);
  if (!from) throw new UsageError(`--move-key: profile "${name}" has no stored key (logged out); log in first with \`hedge login --profile ${name}\`.`);
  if (from.kind === 'command') {
    throw new UsageError(`--move-key: the key of profile "${name}" comes from its credential helper, and hedge keeps no copy to move; run \`hedge login --profile ${name}\` to store one instead.`);
  }
  const fromWhere = describeKeyLocation(from, store.file);
  if (from.kind === target) {
    if (ctx.output.isJson) ctx.output.json({ profile: name, key_store: from.kind, moved: false });
    ctx.output.note(`The key of profile "${name}" is already in the ${fromWhere}: nothing to move.`);
    return 0;
  }
  const apiKey = await readProfileKey(name, profile, { env: ctx.env, signal: ctx.signal });
  if (!apiKey) throw new UsageError(`--move-key: profile "${name}" has no stored key (logged out).`);
  registerSecret(apiKey);
  let to: KeyLocation;
  if (target === 'keyring') {
    const keeping = await keepKey('keyring', keyringAccount(name, store.dir), apiKey, ctx.env);
    if (!keeping.ok) {
      throw new ConfigError(`--move-key: ${keeping.reason}; the key stays where it was (the ${fromWhere}).`, {
        hint: 'Start or unlock the OS keyring (on Linux a Secret Service such as gnome-keyring or KeePassXC), then try again; or name a credential helper with `hedge login --key-command`.',
      });
    }
    to = keeping.at;
  } else {
    to = { kind: 'file' };
  }
  await store.update((data) => {
    const latest = data.profiles[name];
    if (latest) placeKey(latest, apiKey, to);
  });
  if (from.kind === 'keyring') {
    const removal = await removeFromKeyring(from.account, ctx.env);
    if ('error' in removal) ctx.output.warn(`The key is in the file now, but its keyring entry could not be removed (${removal.error}); delete service "hedge", account "${safeText(from.account)}" by hand.`);
  }
  if (ctx.output.isJson) ctx.output.json({ profile: name, key_store: to.kind, moved: true });
  ctx.output.note(`Moved the key of profile "${name}" from the ${fromWhere} to the ${describeKeyLocation(to, store.file)}.`);
  return 0;
}
