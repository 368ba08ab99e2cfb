// The profile is saved only once the server accepted the key (one GET /account against that base URL).
// The key goes to the OS keyring where one answers, else to the 0600 file, or nowhere with `--key-command`.
import { containsKeyShape, registerSecret } from '../../../core/security/secrets.js';
import { requestedProfile, describeKeyLocation } from '../../../platform/config/credentials.js';
import {
  checkCaFile,
  checkJournalUrl,
  defaultBaseUrl,
  environmentLabel,
  loginProfileName,
} from '../../../platform/config/profiles.js';
import { askLogin, keyFromCommand } from '../../../features/setup/login.js';
import {
  checkAndSaveLogin,
  loginCredentials,
  moveProfileKey,
  type LoginFlags,
} from '../../../features/setup/login-save.js';
import { type CommandContext, firstGiven, type In, safeText, UsageError } from '../command-input.js';

/** What this command uses of its context. */
export type Options = Pick<
  CommandContext,
  | 'clientFor'
  | 'clock'
  | 'deadline'
  | 'env'
  | 'globals'
  | 'hedgeCommand'
  | 'io'
  | 'log'
  | 'output'
  | 'prompter'
  | 'signal'
  | 'store'
>;

function parseLoginOptions({ options }: In<'LOGIN'>) {
  const keyStore = options.keyStore?.trim();
  if (keyStore !== undefined && !['keyring', 'file'].includes(keyStore))
    throw new UsageError(`--key-store: "${safeText(keyStore)}" is not a place for the key; expected keyring or file.`);
  const keyCommand = options.keyCommand?.trim();
  if (keyCommand === '')
    throw new UsageError(
      "--key-command: empty; expected a command whose output is the key, e.g. --key-command 'pass show hedge/desk'.",
    );
  if (keyCommand !== undefined && containsKeyShape(keyCommand)) {
    // The key itself on a command line is what the helper is there to avoid (`ps`, shell history).
    registerSecret(keyCommand);
    throw new UsageError(
      '--key-command: the command holds an API key itself; name a command that fetches it (`pass show …`, `op read …`), so the key stays out of the command line and the config file.',
    );
  }
  const moveKey = options.moveKey === true;
  if (keyCommand !== undefined && keyStore !== undefined)
    throw new UsageError('--key-store: a key from --key-command is not stored by hedge; give one of the two.');
  const other = firstGiven(options, 'baseUrl caFile journalUrl keyCommand');
  if (moveKey && other)
    throw new UsageError(
      `--move-key: moves the stored key only (with --key-store keyring or file); leave out ${other}.`,
    );
  return {
    baseUrl: options.baseUrl,
    caFile: options.caFile === undefined ? undefined : checkCaFile(options.caFile),
    journalUrl: options.journalUrl === undefined ? undefined : checkJournalUrl(options.journalUrl),
    keyCommand,
    keyStore: keyStore as LoginFlags['keyStore'],
    moveKey,
  };
}

export async function run(ctx: Options, input: In<'LOGIN'>) {
  // The demo has no account to log in to; said before any flag is read.
  if (ctx.globals.demo) throw new UsageError('--demo: the demo needs no login; run `hedge --demo <command>` directly.');
  const { output } = ctx;
  const opts = parseLoginOptions(input);
  const requested = requestedProfile(ctx.globals.profile, ctx.env);
  const store = await ctx.store();
  const storeFile = store.file;
  // A store that cannot be read is reported before anything is asked.
  const name = loginProfileName(requested, store.read());
  const existing = store.profile(name);
  if (opts.moveKey) {
    // Said: that the key was already there, or where it went from and to.
    const move = await moveProfileKey(ctx, store, name, opts.keyStore ?? 'keyring');
    if (move.moved && move.oldKeyringLeft)
      output.warn(
        `The key is in the file now, but its keyring entry could not be removed (${move.oldKeyringLeft.error}); delete service "hedge", account "${safeText(move.oldKeyringLeft.account)}" by hand.`,
      );
    output.document({ profile: name, key_store: (move.moved ? move.to : move.at).kind, moved: move.moved });
    output.note(
      move.moved
        ? `Moved the key of profile "${name}" from the ${describeKeyLocation(move.from, storeFile)} to the ${describeKeyLocation(move.to, storeFile)}.`
        : `The key of profile "${name}" is already in the ${describeKeyLocation(move.at, storeFile)}: nothing to move.`,
    );
    return 0;
  }
  const offeredBaseUrl = defaultBaseUrl(opts.baseUrl, ctx.env, existing?.base_url);
  const fetchKey = opts.keyCommand === undefined ? undefined : keyFromCommand(ctx, opts.keyCommand);
  const answers = await askLogin(ctx, { name, flagBaseUrl: opts.baseUrl, offeredBaseUrl, fetchKey });
  const given = { ...opts, name, requested, existing };
  const credentials = loginCredentials(ctx, answers, given);
  output.textNote(output.chalk.dim(`Checking the key against ${credentials.baseUrl} …`));
  const saved = await checkAndSaveLogin(ctx, store, credentials, given);
  // What a saved login says: the profile as data with --json, the key's environment and place, what comes next.
  const { environment, baseUrl, shownKey, keyAt } = saved;
  const c = output.chalk;
  if (saved.oldKeyringLeft)
    output.warn(
      `The old key of profile "${name}" could not be removed from the OS keyring (${saved.oldKeyringLeft.error}); delete the entry service "hedge", account "${safeText(saved.oldKeyringLeft.account)}" by hand.`,
    );
  const where = describeKeyLocation(keyAt, storeFile);
  output.document({
    profile: name,
    environment,
    base_url: baseUrl,
    api_key: shownKey,
    key_store: keyAt.kind,
    ca_file: saved.caFile,
    journal_url: saved.journalShown,
    current: saved.current,
  });
  const label = environmentLabel(environment, c);
  output.note(
    environment === 'live'
      ? `${label} ${c.red('key accepted: this profile trades in production, with real money.')}`
      : c.green(`✓ Key accepted: a ${label} key (sandbox, test funds).`),
  );
  output.note(
    keyAt.kind === 'file'
      ? `Saved profile "${name}" (${baseUrl}, key ${shownKey}) in ${storeFile}, the key with it in plain text (0600).`
      : `Saved profile "${name}" (${baseUrl}) in ${storeFile}; its key ${shownKey} ${keyAt.kind === 'keyring' ? `is in the ${where}` : `comes from the ${where} each time it is needed (hedge keeps no copy)`}.`,
  );
  // Said once, at login: later commands read the file without a word.
  if (saved.keyringFallback)
    output.note(
      `No OS keyring to keep it in: ${safeText(saved.keyringFallback)}. The key is readable only by you, in plain text; once there is a keyring, move it with \`${ctx.hedgeCommand('login', '--move-key')}\`, or name a credential helper with --key-command.`,
    );
  if (opts.journalUrl)
    output.note(
      `Its journal is the team store ${saved.journalShown}: every machine using it sees and guards the same actions.`,
    );
  else if (opts.journalUrl === null) output.note(`Its journal is this machine's local file again.`);
  if (saved.current) output.note(`"${name}" is the current profile.`);
  else if (saved.previousCurrent)
    output.note(`The current profile stays "${saved.previousCurrent}"; switch with: hedge profile use ${name}`);
  if (ctx.env.HEDGE_API_KEY || ctx.env.HEDGE_BASE_URL)
    output.warn('HEDGE_API_KEY / HEDGE_BASE_URL are set in the environment and take precedence over stored profiles.');
  return 0;
}
