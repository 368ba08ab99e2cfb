// hedge whoami — which profile, environment, base URL and key a command would use right now,
// where each came from (flag > environment > profile), and whether the key works (one GET /account).
// Exits 0 when the key works, 4 when the server refuses it, 5 when it cannot be reached.
import { redactKey } from '../../../core/security/secrets.js';
import type { Source } from '../../../platform/config/credentials.js';
import { checkKey, type KeyStatus } from '../../../features/setup/key-check.js';
import { environmentLabel } from '../../../features/setup/profile-view.js';
import {
  resolveWireSettings,
  WIRE_SETTING_SOURCES,
  type WireSettings,
} from '../../../platform/api/wire/unspecified.js';
import type { CommandContext } from '../../../platform/runtime/context.js';
import { journalDir } from '../../../platform/journal/location.js';
import { describeKeyLocation } from '../../../platform/config/key-store.js';
import { safeText } from '../../../core/security/safe-text.js';

const EXIT_FOR_STATUS: Record<KeyStatus, number> = { ok: 0, refused: 4, unreachable: 5, error: 3 };

/** JSON names where each setting came from; `current` is the store's current profile. */
type ShownSource = 'flag' | 'environment' | 'profile' | 'current' | 'demo';

function describeSource(source: ShownSource | null, variable: string, profile: string | undefined) {
  switch (source) {
    case 'flag':
      return variable === 'HEDGE_PROFILE' ? '--profile' : 'flag';
    case 'environment':
      return variable;
    case 'current':
      return 'the current profile';
    case 'profile':
      return profile ? `profile "${profile}"` : 'the profile';
    case 'demo':
      return '--demo';
    default:
      return '—';
  }
}

export async function run(ctx: CommandContext) {
  const facts = await gatherWhoami(ctx);
  const { check, wireRows } = facts;
  if (ctx.output.isJson) showJson(ctx, facts);
  else if (ctx.output.isHuman) showCard(ctx, facts);
  else showRecord(ctx, facts);
  if (ctx.output.isHuman && wireRows.some((row) => row.source === 'learned')) {
    ctx.output.note(
      ctx.output.chalk.dim(
        `Forget what was learned with \`${ctx.hedgeCommand('profile', 'reset-wire')}\`; \`${ctx.hedgeCommand('doctor')}\` shows what the server answers now.`,
      ),
    );
  }
  if (check.status === 'refused') {
    ctx.output.note(
      ctx.output.chalk.red('The server refused this key.') + ' → Check it, or save a new one with `hedge login`.',
    );
  } else if (check.status !== 'ok') {
    ctx.output.note(`The key could not be checked: ${check.message ?? check.status}`);
  }
  return EXIT_FOR_STATUS[check.status];
}

type Credentials = Awaited<ReturnType<CommandContext['credentials']>>;

interface WireRow {
  setting: keyof WireSettings;
  value: string;
  source: string;
  variable: string;
}

/** What whoami shows, in every output mode. */
interface WhoamiFacts {
  credentials: Credentials;
  check: Awaited<ReturnType<typeof checkKey>>;
  sources: Record<string, ShownSource | null>;
  wireRows: WireRow[];
  /** The profile or server the learned wire names are kept for. */
  learnedFor: string;
  journal: { store: string; location: string; source: string | null };
  keyStore: { kind: string; location: string | null };
  keyStoreText: string;
}

async function gatherWhoami(ctx: CommandContext) {
  const credentials = await ctx.credentials();
  const check = await checkKey(ctx, credentials);
  const profileSource: ShownSource | null =
    credentials.sources.profile === undefined
      ? null
      : credentials.sources.profile === 'profile'
        ? 'current'
        : credentials.sources.profile;
  const sources: Record<string, ShownSource | null> = {
    profile: profileSource,
    api_key: credentials.sources.apiKey,
    base_url: credentials.sources.baseUrl,
    ca_file: (credentials.sources.caFile as Source | undefined) ?? null,
  };
  // The answers to the spec's "not shown" request names in use, and where each came from: our
  // guess (default), learned from the server (kept for this profile or server), or set by you.
  const learned = await (await ctx.wireMemory()).read();
  const { describeScope } = await import('../../../platform/runtime/wire-memory.js');
  const learnedFor = describeScope(learned.scope);
  const wire = resolveWireSettings(ctx.env, credentials.profileWire, learned.names);
  const wireRows = (Object.keys(WIRE_SETTING_SOURCES) as Array<keyof WireSettings>).map((key) => ({
    setting: key,
    value: wire.settings[key],
    source: wire.sources[key],
    variable: WIRE_SETTING_SOURCES[key].env,
  }));
  // Which journal guards this command's writes: this machine's file, or the team's store.
  const choice = await ctx.journalChoice();
  const journal =
    choice.kind === 'file'
      ? { store: 'file', location: journalDir(ctx.env), source: null }
      : { store: 'postgres', location: choice.shown, source: choice.source };
  // Where the key lives: the environment, the demo, or the profile's file, OS keyring or credential helper.
  const keyStore = credentials.keyLocation
    ? {
        kind: credentials.keyLocation.kind,
        location:
          credentials.keyLocation.kind === 'command'
            ? credentials.keyLocation.command
            : credentials.keyLocation.kind === 'keyring'
              ? `service hedge, account ${credentials.keyLocation.account}`
              : (await ctx.store()).file,
      }
    : {
        kind: credentials.sources.apiKey === 'demo' ? 'demo' : 'environment',
        location: credentials.sources.apiKey === 'demo' ? null : 'HEDGE_API_KEY',
      };
  const keyStoreText = credentials.keyLocation
    ? describeKeyLocation(credentials.keyLocation, (await ctx.store()).file)
    : keyStore.kind === 'demo'
      ? 'the demo simulator'
      : 'the environment (HEDGE_API_KEY)';
  return { credentials, check, sources, wireRows, learnedFor, journal, keyStore, keyStoreText };
}

function showJson(
  ctx: CommandContext,
  { credentials, check, sources, wireRows, learnedFor, journal, keyStore }: WhoamiFacts,
) {
  ctx.output.json({
    profile: credentials.profileName ?? null,
    environment: credentials.environment,
    base_url: credentials.baseUrl,
    api_key: redactKey(credentials.apiKey),
    key_store: keyStore,
    ca_file: credentials.caFile ?? null,
    sources,
    wire: Object.fromEntries(
      wireRows.map((row) => [
        row.setting,
        {
          value: row.value,
          source: row.source,
          env: row.variable,
          ...(row.source === 'learned' ? { learned_for: learnedFor } : {}),
        },
      ]),
    ),
    journal,
    key_check: {
      status: check.status,
      ...(check.code ? { code: check.code } : {}),
      ...(check.message ? { message: check.message } : {}),
    },
  });
}

function showCard(
  ctx: CommandContext,
  { credentials, check, sources, wireRows, learnedFor, journal, keyStoreText }: WhoamiFacts,
) {
  const c = ctx.output.chalk;
  const from = (key: string, variable: string) =>
    describeSource(sources[key] ?? null, variable, credentials.profileName);
  const statusText: Record<KeyStatus, string> = {
    ok: c.green('ok — the server accepted the key'),
    refused: c.red(`refused (${check.code}) — the server does not accept this key`),
    unreachable: c.yellow(`unreachable — ${check.message ?? 'no answer'}`),
    error: c.yellow(`error (${check.code}) — ${check.message ?? 'unexpected answer'}`),
  };
  const sourceText = (row: WireRow) =>
    row.source === 'default'
      ? 'guessed: the spec does not show it'
      : row.source === 'learned'
        ? `learned from the server, kept for ${learnedFor}`
        : row.source;
  const shownValue = (row: WireRow) =>
    row.setting === 'cursorParam' && row.value === '' ? 'from the answer (next_cursor → cursor)' : row.value;
  const rows: Array<[string, string]> = [
    [
      'Profile',
      credentials.profileName
        ? `${credentials.profileName} ${c.dim(`(${from('profile', 'HEDGE_PROFILE')})`)}`
        : c.dim('— (none)'),
    ],
    ['Environment', environmentLabel(credentials.environment, c)],
    ['Base URL', `${credentials.baseUrl} ${c.dim(`(${from('base_url', 'HEDGE_BASE_URL')})`)}`],
    ['API key', `${redactKey(credentials.apiKey)} ${c.dim(`(${from('api_key', 'HEDGE_API_KEY')})`)}`],
    ['Key stored in', keyStoreText],
  ];
  if (credentials.caFile)
    rows.push(['CA file', `${credentials.caFile} ${c.dim(`(${from('ca_file', 'HEDGE_CA_FILE')})`)}`]);
  // A guess at what the spec does not show is the builders' detail: shown with --verbose (and in --json).
  for (const row of wireRows.filter((row) => row.source !== 'default' || ctx.globals.verbose))
    rows.push([`Wire ${row.setting}`, `${shownValue(row)} ${c.dim(`(${sourceText(row)}; ${row.variable})`)}`]);
  rows.push([
    'Journal',
    journal.store === 'file'
      ? `${safeText(journal.location)} ${c.dim('(this machine)')}`
      : `team store ${safeText(journal.location)} ${c.dim(`(${journal.source})`)}`,
  ]);
  rows.push(['Key check', statusText[check.status]]);
  ctx.output.write(ctx.output.card(rows, 'hedge whoami'));
  if (credentials.environment === 'live')
    ctx.output.note(c.red('LIVE: commands with this key trade in production, with real money.'));
}

/** TSV/CSV: one record, a header row of keys; each setting's source in the column after it. */
function showRecord(ctx: CommandContext, { credentials, check, sources, wireRows, journal, keyStore }: WhoamiFacts) {
  const record: Record<string, unknown> = {
    profile: credentials.profileName ?? null,
    profile_source: sources.profile,
    environment: credentials.environment,
    base_url: credentials.baseUrl,
    base_url_source: sources.base_url,
    api_key: redactKey(credentials.apiKey),
    api_key_source: sources.api_key,
    key_store: keyStore.kind,
    key_store_location: keyStore.location,
    ca_file: credentials.caFile ?? null,
    ca_file_source: sources.ca_file,
  };
  for (const row of wireRows) {
    record[`wire.${row.setting}`] = row.value;
    record[`wire.${row.setting}_source`] = row.source;
  }
  record.journal = journal.location;
  record.journal_source = journal.source ?? 'this machine';
  record.key_check = check.status;
  record.key_check_code = check.code ?? null;
  ctx.output.record(
    record,
    Object.keys(record).map((key) => ({ key, label: key })),
  );
}
