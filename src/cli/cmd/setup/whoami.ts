// hedge whoami — which profile, environment, base URL and key a command would use right now,
// where each came from (flag > environment > profile), and whether the key works (one GET /account).
// Exits 0 when the key works, 4 when the server refuses it, 5 when it cannot be reached.
import { redactKey } from '../../../core/security/secrets.js';
import { checkKey, refusedKeyNext, type KeyStatus } from '../../../features/setup/key-check.js';
import { environmentLabel } from '../../../features/setup/profile-view.js';
import {
  resolveWireSettings,
  WIRE_SETTING_SOURCES,
  type WireSettings,
} from '../../../platform/api/wire/unspecified.js';
import type { CommandContext } from '../command-input.js';
import type { Output } from '../../../platform/terminal/output.js';
import { journalDir } from '../../../platform/journal/location.js';
import { describeKeyLocation } from '../../../platform/config/key-store.js';
import { safeText } from '../../../core/security/safe-text.js';

const EXIT_FOR_STATUS: Record<KeyStatus, number> = { ok: 0, refused: 4, unreachable: 5, error: 3 };

/** JSON names where each setting came from; `current` is the store's current profile. */
type ShownSource = 'flag' | 'environment' | 'profile' | 'current' | 'demo';

function describeSource(source: ShownSource | null, variable: string, profile: string | undefined) {
  if (source === null) return '—';
  return {
    flag: variable === 'HEDGE_PROFILE' ? '--profile' : 'flag',
    environment: variable,
    current: 'the current profile',
    profile: profile ? `profile "${profile}"` : 'the profile',
    demo: '--demo',
  }[source];
}

export async function run(ctx: CommandContext) {
  const { output } = ctx;
  const facts = await gatherWhoami(ctx);
  const { check, wireRows } = facts;
  show(ctx, facts);
  if (wireRows.some((row) => row.source === 'learned'))
    output.tableNote(
      output.chalk.dim(
        `Forget what was learned with \`${ctx.hedgeCommand('profile', 'reset-wire')}\`; \`${ctx.hedgeCommand('doctor')}\` shows what the server answers now.`,
      ),
    );
  if (check.status === 'refused')
    output.note(
      `${output.chalk.red('The server refused this key.')} → ${refusedKeyNext(facts.credentials, 'hedge login')}`,
    );
  else if (check.status !== 'ok') output.note(`The key could not be checked: ${check.message ?? check.status}`);
  return EXIT_FOR_STATUS[check.status];
}

async function gatherWhoami(ctx: CommandContext) {
  const credentials = await ctx.credentials();
  const check = await checkKey(ctx, credentials);
  const sources: Record<string, ShownSource | null> = {
    profile: credentials.sources.profile === 'profile' ? 'current' : (credentials.sources.profile ?? null),
    api_key: credentials.sources.apiKey,
    base_url: credentials.sources.baseUrl,
    ca_file: credentials.sources.caFile ?? null,
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

/** What whoami shows: one record (a row of TSV/CSV, each setting's source in the column after it), the document JSON gives, and a person's card. */
function show(ctx: CommandContext, facts: Awaited<ReturnType<typeof gatherWhoami>>) {
  const { output } = ctx;
  const { credentials, check, sources, wireRows, learnedFor, journal, keyStore } = facts;
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
  output.record(
    record,
    Object.keys(record).map((key) => ({ key, label: key })),
    {
      json: {
        profile: record.profile,
        environment: record.environment,
        base_url: record.base_url,
        api_key: record.api_key,
        key_store: keyStore,
        ca_file: record.ca_file,
        sources,
        wire: Object.fromEntries(
          wireRows.map((row) => [
            row.setting,
            {
              value: row.value,
              source: row.source,
              env: row.variable,
              ...(row.source === 'learned' && { learned_for: learnedFor }),
            },
          ]),
        ),
        journal,
        key_check: {
          status: check.status,
          ...(check.code ? { code: check.code } : {}),
          ...(check.message ? { message: check.message } : {}),
        },
      },
      people: (shown) => whoamiCard(ctx, shown, facts),
    },
  );
  if (credentials.environment === 'live')
    output.tableNote(output.chalk.red('LIVE: commands with this key trade in production, with real money.'));
}

function whoamiCard(ctx: CommandContext, output: Output, facts: Awaited<ReturnType<typeof gatherWhoami>>) {
  const { credentials, check, sources, wireRows, learnedFor, journal } = facts;
  const c = output.chalk;
  // A setting and, dimmed, where it came from.
  const from = (value: string, key: string, variable: string) =>
    `${value} ${c.dim(`(${describeSource(sources[key] ?? null, variable, credentials.profileName)})`)}`;
  const statusText: Record<KeyStatus, string> = {
    ok: c.green('ok — the server accepted the key'),
    refused: c.red(`refused (${check.code}) — the server does not accept this key`),
    unreachable: c.yellow(`unreachable — ${check.message ?? 'no answer'}`),
    error: c.yellow(`error (${check.code}) — ${check.message ?? 'unexpected answer'}`),
  };
  const rows: Array<[string, string]> = [
    [
      'Profile',
      credentials.profileName ? from(credentials.profileName, 'profile', 'HEDGE_PROFILE') : c.dim('— (none)'),
    ],
    ['Environment', environmentLabel(credentials.environment, c)],
    ['Base URL', from(credentials.baseUrl, 'base_url', 'HEDGE_BASE_URL')],
    ['API key', from(redactKey(credentials.apiKey), 'api_key', 'HEDGE_API_KEY')],
    ['Key stored in', facts.keyStoreText],
  ];
  if (credentials.caFile) rows.push(['CA file', from(credentials.caFile, 'ca_file', 'HEDGE_CA_FILE')]);
  // A guess at what the spec does not show is the builders' detail: shown with --verbose (and in --json).
  for (const row of wireRows.filter((row) => row.source !== 'default' || ctx.globals.verbose)) {
    const value =
      row.setting === 'cursorParam' && row.value === '' ? 'from the answer (next_cursor → cursor)' : row.value;
    const source =
      row.source === 'default'
        ? 'guessed: the spec does not show it'
        : row.source === 'learned'
          ? `learned from the server, kept for ${learnedFor}`
          : row.source;
    rows.push([`Wire ${row.setting}`, `${value} ${c.dim(`(${source}; ${row.variable})`)}`]);
  }
  rows.push(
    [
      'Journal',
      journal.store === 'file'
        ? `${safeText(journal.location)} ${c.dim('(this machine)')}`
        : `team store ${safeText(journal.location)} ${c.dim(`(${journal.source})`)}`,
    ],
    ['Key check', statusText[check.status]],
  );
  return output.card(rows, 'hedge whoami');
}
