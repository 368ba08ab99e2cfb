// hedge login [--profile NAME] [--base-url URL] [--ca-file FILE]
// Asks on a terminal (the key hidden), reads the key from stdin otherwise; checks the key with one
// GET /account against that base URL and saves the profile only when the server accepted it. The
// asking is flows/login.ts.
import { redactKey, registerSecret, validateApiKey } from '../security/secrets.js';
import { requestedProfile, type ResolvedCredentials } from '../config/credentials.js';
import { checkKey } from '../flows/key-check.js';
import { checkCaFile, checkJournalUrl, defaultBaseUrl, loginProfileName, saveLogin } from '../config/login-profile.js';
import { askLogin } from '../flows/login.js';
import { environmentLabel } from '../ui/profile-view.js';
import type { CommandContext } from '../runtime/context.js';
import type { InputOf } from '../cli/command-spec.js';
import type { LOGIN } from './login.spec.js';
import { ApiError, AuthError, HedgeError, NetworkError, UsageError } from '../errors.js';
import { redactStoreUrl } from '../security/store-url.js';

export interface LoginOptions {
  /** As typed; checked once the store is read (undefined: not given). */
  baseUrl?: string;
  caFile?: string;
  /** undefined: keep what the profile has; null: back to the local file. */
  journalUrl?: string | null;
}

export function parseLoginOptions(input: InputOf<typeof LOGIN>): LoginOptions {
  return {
    baseUrl: typeof input.options.baseUrl === 'string' ? input.options.baseUrl : undefined,
    caFile: typeof input.options.caFile === 'string' ? checkCaFile(input.options.caFile) : undefined,
    journalUrl: typeof input.options.journalUrl === 'string' ? checkJournalUrl(input.options.journalUrl) : undefined,
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
  const { caFile, journalUrl } = opts;
  const offeredBaseUrl = defaultBaseUrl(opts.baseUrl, ctx.env, existing?.base_url);
  const { baseUrl, baseUrlSource, apiKey } = await askLogin(ctx, { name, flagBaseUrl: opts.baseUrl, offeredBaseUrl });
  registerSecret(apiKey);
  const environment = validateApiKey(apiKey, ctx.io.stdinIsTTY ? 'the prompt' : 'stdin');

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

  const saved = saveLogin(store, { name, baseUrl, apiKey, caFile, journalUrl, savedAt: new Date(ctx.clock.now()).toISOString() });
  const profile = saved.data.profiles[name]!;
  if (ctx.output.isJson) {
    ctx.output.json({
      profile: name,
      environment,
      base_url: baseUrl,
      api_key: redactKey(apiKey),
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
  ctx.output.note(`Saved profile "${name}" (${baseUrl}, key ${redactKey(apiKey)}) in ${store.file}.`);
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
