// hedge whoami — which profile, environment, base URL and key a command would use right now,
// where each came from (flag > environment > profile), and whether the key works (one GET /account).
// Exits 0 when the key works, else as the check's error says: 4 refused, 5 unreachable, 14 an answer it cannot read, 3 other answers.
import { redactKey } from '../../../core/security/secrets.js';
import { checkKey, refusedKeyNext, type CheckPorts } from '../../../features/setup/key-check.js';
import { environmentLabel } from '../../../platform/config/profiles.js';
import { WIRE_SETTING_SOURCES, type WireSettings } from '../../../platform/api/wire/unspecified.js';
import { type CommandContext, HedgeError, safeText } from '../command-input.js';
import { journalDir } from '../../../platform/journal/location.js';
import { describeKeyLocation } from '../../../platform/config/credentials.js';

/** What this command uses of its context. */
export type Options = CheckPorts &
  Pick<CommandContext, 'credentials' | 'globals' | 'hedgeCommand' | 'journalChoice' | 'output' | 'store' | 'wire'>;

export async function run(ctx: Options) {
  const { output } = ctx;
  const c = output.chalk;
  const credentials = await ctx.credentials();
  const check = await checkKey(ctx, credentials);
  const { profileName, environment, baseUrl, caFile, keyLocation, sources: given } = credentials;
  // JSON names where each setting came from; `current` is the store's current profile.
  const sources = {
    profile: given.profile === 'profile' ? 'current' : (given.profile ?? null),
    api_key: given.apiKey,
    base_url: given.baseUrl,
    ca_file: given.caFile ?? null,
  };
  // The answers to the spec's "not shown" request names in use, and where each came from: our
  // guess (default), learned from the server (kept for this profile or server), or set by you.
  const wire = await ctx.wire();
  const { describeScope } = await import('../../../platform/runtime/wire-memory.js');
  const learnedFor = describeScope(wire.scope);
  const wireRows = (Object.keys(WIRE_SETTING_SOURCES) as Array<keyof WireSettings>).map((setting) => ({
    setting,
    value: wire.settings[setting],
    source: wire.sources[setting],
    env: WIRE_SETTING_SOURCES[setting].env,
  }));
  // Which journal guards this command's writes: this machine's file, or the team's store.
  const choice = await ctx.journalChoice();
  const journal =
    choice.kind === 'file'
      ? { store: 'file', location: journalDir(ctx.env), source: null }
      : { store: 'postgres', location: choice.shown, source: choice.source };
  // Where the key lives: the profile's file, OS keyring or credential helper, the demo, or the environment.
  const demo = given.apiKey === 'demo';
  const storeFile = keyLocation && (await ctx.store()).file;
  const keyStore = keyLocation
    ? {
        kind: keyLocation.kind,
        location:
          keyLocation.kind === 'command'
            ? keyLocation.command
            : keyLocation.kind === 'keyring'
              ? `service hedge, account ${keyLocation.account}`
              : storeFile,
      }
    : { kind: demo ? 'demo' : 'environment', location: demo ? null : 'HEDGE_API_KEY' };
  // What the JSON says first; the record gives the key's place in two columns.
  const values = {
    profile: profileName ?? null,
    environment,
    base_url: baseUrl,
    api_key: redactKey(credentials.apiKey),
    key_store: keyStore,
    ca_file: caFile ?? null,
  };

  // One record (a row of TSV/CSV, each setting's source in the column after it), the document JSON gives, and a person's card.
  const pair = (key: keyof typeof sources) => ({ [key]: values[key], [`${key}_source`]: sources[key] });
  const record = {
    ...pair('profile'),
    environment,
    ...pair('base_url'),
    ...pair('api_key'),
    key_store: keyStore.kind,
    key_store_location: keyStore.location,
    ...pair('ca_file'),
    ...Object.fromEntries(
      wireRows.flatMap((row) => [
        [`wire.${row.setting}`, row.value],
        [`wire.${row.setting}_source`, row.source],
      ]),
    ),
    journal: journal.location,
    journal_source: journal.source ?? 'this machine',
    key_check: check.status,
    key_check_code: check.code ?? null,
  };
  output.record(
    record,
    Object.keys(record).map((key) => ({ key, label: key })),
    {
      json: {
        ...values,
        sources,
        wire: Object.fromEntries(
          wireRows.map(({ setting, ...row }) => [
            setting,
            { ...row, ...(row.source === 'learned' && { learned_for: learnedFor }) },
          ]),
        ),
        journal,
        key_check: {
          status: check.status,
          ...(check.code && { code: check.code }),
          ...(check.message && { message: check.message }),
        },
      },
      people: (shown) => {
        const d = shown.chalk;
        // A setting (by its JSON name and card label; its environment variable is HEDGE_ and that name) and, dimmed, where it came from.
        const from = (key: keyof typeof sources, label: string): [string, string] => {
          const source =
            sources[key] &&
            {
              flag: key === 'profile' ? '--profile' : 'flag',
              environment: `HEDGE_${key.toUpperCase()}`,
              current: 'the current profile',
              profile: profileName ? `profile "${profileName}"` : 'the profile',
              demo: '--demo',
            }[sources[key]];
          return [label, `${values[key]} ${d.dim(`(${source ?? '—'})`)}`];
        };
        return shown.card(
          [
            profileName ? from('profile', 'Profile') : ['Profile', d.dim('— (none)')],
            ['Environment', environmentLabel(environment, d)],
            from('base_url', 'Base URL'),
            from('api_key', 'API key'),
            [
              'Key stored in',
              keyLocation
                ? describeKeyLocation(keyLocation, storeFile!)
                : demo
                  ? 'the demo simulator'
                  : 'the environment (HEDGE_API_KEY)',
            ],
            ...(caFile ? [from('ca_file', 'CA file')] : []),
            // A guess at what the spec does not show is the builders' detail: shown with --verbose (and in --json).
            ...wireRows
              .filter((row) => row.source !== 'default' || ctx.globals.verbose)
              .map((row): [string, string] => {
                const value =
                  row.setting === 'cursorParam' && row.value === ''
                    ? 'from the answer (next_cursor → cursor)'
                    : row.value;
                const source =
                  row.source === 'default'
                    ? 'guessed: the spec does not show it'
                    : row.source === 'learned'
                      ? `learned from the server, kept for ${learnedFor}`
                      : row.source;
                return [`Wire ${row.setting}`, `${value} ${d.dim(`(${source}; ${row.env})`)}`];
              }),
            [
              'Journal',
              `${journal.store === 'file' ? '' : 'team store '}${safeText(journal.location)} ${d.dim(`(${journal.source ?? 'this machine'})`)}`,
            ],
            [
              'Key check',
              {
                ok: d.green('ok — the server accepted the key'),
                refused: d.red(`refused (${check.code}) — the server does not accept this key`),
                unreachable: d.yellow(`unreachable — ${check.message ?? 'no answer'}`),
                error: d.yellow(`error (${check.code}) — ${check.message ?? 'unexpected answer'}`),
              }[check.status],
            ],
          ],
          'hedge whoami',
        );
      },
    },
  );
  if (environment === 'live')
    output.tableNote(c.red('LIVE: commands with this key trade in production, with real money.'));
  if (wireRows.some((row) => row.source === 'learned'))
    output.tableNote(
      c.dim(
        `Forget what was learned with \`${ctx.hedgeCommand('profile', 'reset-wire')}\`; \`${ctx.hedgeCommand('doctor')}\` shows what the server answers now.`,
      ),
    );
  if (check.status === 'refused')
    output.note(`${c.red('The server refused this key.')} → ${refusedKeyNext(credentials, 'hedge login')}`);
  else if (check.status !== 'ok') output.note(`The key could not be checked: ${check.message ?? check.status}`);
  return check.error instanceof HedgeError ? check.error.facts().exitCode : 0;
}
