// The command tree: collects each command's declaration (its `*.spec.ts` beside the command) and
// imports the command's code lazily, by path, only when it runs. commander is built from it
// (main.ts), the completion files are checked against it (test), and the agent interface describes
// itself from it. Nothing here imports command code: the front (dist/cli.js) bundles only data.
import { OUTPUT_FORMATS } from '../domain/vocabulary.js';
import { command, type CommandSpec, type OptionSpec } from '../runner/command-spec.js';
import { MARKETS } from '../commands/markets.spec.js';
import { PRICE } from '../commands/price.spec.js';
import { QUOTE } from '../commands/quote.spec.js';
import { OPEN } from '../commands/open.spec.js';
import { ADD } from '../commands/add.spec.js';
import { REDUCE } from '../commands/reduce.spec.js';
import { CLOSE } from '../commands/close.spec.js';
import { HEDGES } from '../commands/hedges.spec.js';
import { HISTORY } from '../commands/history.spec.js';
import { POSITIONS } from '../commands/positions.spec.js';
import { ACCOUNT } from '../commands/account.spec.js';
import { LOGIN } from '../commands/login.spec.js';
import { LOGOUT } from '../commands/logout.spec.js';
import { PROFILE_LIST } from '../commands/profile-list.spec.js';
import { PROFILE_USE } from '../commands/profile-use.spec.js';
import { PROFILE_REMOVE } from '../commands/profile-remove.spec.js';
import { PROFILE_RESET_WIRE } from '../commands/profile-reset-wire.spec.js';
import { DOCTOR } from '../commands/doctor.spec.js';
import { WHOAMI } from '../commands/whoami.spec.js';
import { COMPLETION } from '../commands/completion.spec.js';
import { SANDBOX_SERVE } from '../commands/sandbox-serve.spec.js';
import { JOURNAL_LIST } from '../commands/journal-list.spec.js';
import { JOURNAL_SHOW } from '../commands/journal-show.spec.js';
import { JOURNAL_RESOLVE } from '../commands/journal-resolve.spec.js';
import { JOURNAL_MIGRATE } from '../commands/journal-migrate.spec.js';
import { RESUME } from '../commands/resume.spec.js';
import { DEMO_RESET } from '../commands/demo-reset.spec.js';
import { PLAN } from '../commands/plan.spec.js';
import { APPLY } from '../commands/apply.spec.js';
import { KEEP } from '../commands/keep.spec.js';
import { KEEP_STATUS } from '../commands/keep-status.spec.js';
import { EXPOSURES } from '../commands/exposures.spec.js';
import { REPORT } from '../commands/report.spec.js';
import { MATURITIES } from '../commands/maturities.spec.js';
import { ROLL } from '../commands/roll.spec.js';
import { MCP } from '../commands/mcp.spec.js';
import { TOOLS } from '../commands/tools.spec.js';
import { API } from '../commands/api.spec.js';

// Re-exported so that the lazily loaded side (and tests) reach the one front instance of each.
export * from '../commands/spec-parts.js';
export * from '../commands/markets.spec.js';
export * from '../commands/price.spec.js';
export * from '../commands/quote.spec.js';
export * from '../commands/open.spec.js';
export * from '../commands/add.spec.js';
export * from '../commands/reduce.spec.js';
export * from '../commands/close.spec.js';
export * from '../commands/hedges.spec.js';
export * from '../commands/history.spec.js';
export * from '../commands/positions.spec.js';
export * from '../commands/account.spec.js';
export * from '../commands/login.spec.js';
export * from '../commands/logout.spec.js';
export * from '../commands/profile-list.spec.js';
export * from '../commands/profile-use.spec.js';
export * from '../commands/profile-remove.spec.js';
export * from '../commands/profile-reset-wire.spec.js';
export * from '../commands/doctor.spec.js';
export * from '../commands/whoami.spec.js';
export * from '../commands/completion.spec.js';
export * from '../commands/sandbox-serve.spec.js';
export * from '../commands/journal-list.spec.js';
export * from '../commands/journal-show.spec.js';
export * from '../commands/journal-resolve.spec.js';
export * from '../commands/journal-migrate.spec.js';
export * from '../commands/resume.spec.js';
export * from '../commands/demo-reset.spec.js';
export * from '../commands/plan.spec.js';
export * from '../commands/apply.spec.js';
export * from '../commands/keep.spec.js';
export * from '../commands/keep-status.spec.js';
export * from '../commands/exposures.spec.js';
export * from '../commands/report.spec.js';
export * from '../commands/maturities.spec.js';
export * from '../commands/roll.spec.js';
export * from '../commands/mcp.spec.js';
export * from '../commands/tools.spec.js';
export * from '../commands/api.spec.js';

export const GLOBAL_OPTIONS = [
  { flags: '--json', key: 'json', kind: 'flag', description: 'one JSON document on stdout; messages on stderr' },
  { flags: '--raw', key: 'raw', kind: 'flag', description: "with JSON: the server's data, as sent" },
  {
    flags: '--profile <name>',
    key: 'profile',
    kind: 'value',
    description: 'a stored profile (default: the current one)',
    values: 'profile',
  },
  { flags: '--demo', key: 'demo', kind: 'flag', description: 'a local simulator with test funds: no account' },
  { flags: '-y, --yes', key: 'yes', kind: 'flag', description: 'confirm writes on a live key without asking' },
  { flags: '--no-input', key: 'input', kind: 'negatable', description: 'never prompt; a missing argument is an error' },
  { flags: '--no-color', key: 'color', kind: 'negatable', description: 'no colour (also NO_COLOR=1)' },
  { flags: '--verbose', key: 'verbose', kind: 'flag', description: 'log each HTTP request on stderr (keys redacted)' },
  {
    flags: '--timeout <seconds>',
    key: 'timeout',
    kind: 'value',
    description: 'bound the whole command, waits included',
  },
  {
    flags: '--request-timeout <seconds>',
    key: 'requestTimeout',
    kind: 'value',
    description: 'bound each HTTP attempt (default 15)',
  },
  {
    flags: '--format <format>',
    key: 'format',
    kind: 'value',
    description: 'table, tsv (in a pipe), csv, json or ndjson',
    values: OUTPUT_FORMATS,
  },
  { flags: '--fields <list>', key: 'fields', kind: 'value', description: 'only these fields, in this order (a,b,c)' },
  { flags: '--query <expr>', key: 'query', kind: 'value', description: 'a JMESPath expression on the JSON data' },
  { flags: '--no-header', key: 'header', kind: 'negatable', description: 'tsv and csv without their header row' },
] as const satisfies readonly OptionSpec[];

// `hedge keep FILE` is `hedge keep run FILE` (the default subcommand of `keep`): KEEP without its group.
const { group: _keepGroup, ...KEEP_LEAF } = KEEP;
const KEEP_RUN = { ...KEEP_LEAF, name: 'run', isDefault: true } as const;

export const COMMANDS: readonly CommandSpec[] = [
  command(MARKETS, () => import('../commands/markets.js')),
  command(PRICE, () => import('../commands/price.js')),
  command(QUOTE, () => import('../commands/quote.js')),
  command(OPEN, () => import('../commands/open.js')),
  command(ADD, () => import('../commands/add.js')),
  command(REDUCE, () => import('../commands/reduce.js')),
  command(CLOSE, () => import('../commands/close.js')),
  command(HEDGES, () => import('../commands/hedges.js')),
  command(HISTORY, () => import('../commands/history.js')),
  command(POSITIONS, () => import('../commands/positions.js')),
  command(ACCOUNT, () => import('../commands/account.js')),
  command(MATURITIES, () => import('../commands/maturities.js')),
  command(ROLL, () => import('../commands/roll.js')),
  command(LOGIN, () => import('../commands/login.js')),
  command(LOGOUT, () => import('../commands/logout.js')),
  {
    name: 'profile',
    summary: 'List, switch and remove stored profiles; forget learned wire names',
    group: 'setup',
    examples: ['hedge profile list', 'hedge profile use desk', 'hedge profile reset-wire'],
    subcommands: [
      command(PROFILE_LIST, () => import('../commands/profile-list.js')),
      command(PROFILE_USE, () => import('../commands/profile-use.js')),
      command(PROFILE_REMOVE, () => import('../commands/profile-remove.js')),
      command(PROFILE_RESET_WIRE, () => import('../commands/profile-reset-wire.js')),
    ],
  },
  command(WHOAMI, () => import('../commands/whoami.js')),
  command(DOCTOR, () => import('../commands/doctor.js')),
  command(PLAN, () => import('../commands/plan.js')),
  command(APPLY, () => import('../commands/apply.js')),
  {
    // `hedge keep FILE` runs the keeper (the default subcommand, also `hedge keep run FILE`); `hedge keep status` looks at it.
    name: 'keep',
    summary: KEEP.summary,
    description: `${KEEP.description}; \`hedge keep status\` shows the running keeper`,
    group: 'automation',
    examples: [...KEEP.examples, 'hedge keep status'],
    subcommands: [
      command<typeof KEEP_RUN>(KEEP_RUN, () => import('../commands/keep.js')),
      command(KEEP_STATUS, () => import('../commands/keep-status.js')),
    ],
  },
  command(EXPOSURES, () => import('../commands/exposures.js')),
  command(REPORT, () => import('../commands/report.js')),
  {
    name: 'journal',
    summary: 'The record of every action (this machine or the team store)',
    description:
      "The record of every action (this machine's, or the team's store): list, show one, resolve one by hand, migrate",
    group: 'book',
    examples: [
      'hedge journal',
      'hedge journal --pending',
      'hedge journal show a_mwrrf5p1',
      'hedge journal resolve a_mwrrf5p1 --landed',
      'hedge journal migrate',
    ],
    subcommands: [
      command(JOURNAL_LIST, () => import('../commands/journal-list.js')),
      command(JOURNAL_SHOW, () => import('../commands/journal-show.js')),
      command(JOURNAL_RESOLVE, () => import('../commands/journal-resolve.js')),
      command(JOURNAL_MIGRATE, () => import('../commands/journal-migrate.js')),
    ],
  },
  command(RESUME, () => import('../commands/resume.js')),
  {
    name: 'demo',
    summary: 'The --demo simulator: start it afresh',
    group: 'setup',
    examples: ['hedge demo reset'],
    subcommands: [command(DEMO_RESET, () => import('../commands/demo-reset.js'))],
  },
  // hedge mcp and hedge tools describe every command: the tree is handed to them here, so that the
  // agent never imports the manifest that loads them (no import cycle).
  command(MCP, () => import('../commands/mcp.js').then((module) => module.withCommands(COMMANDS))),
  command(TOOLS, () => import('../commands/tools.js').then((module) => module.withCommands(COMMANDS))),
  command(API, () => import('../commands/api.js')),
  command(COMPLETION, () => import('../commands/completion.js')),
  {
    name: 'sandbox',
    summary: 'Run the simulator of the API as a local server',
    group: 'setup',
    examples: ['hedge sandbox serve --port 4010'],
    subcommands: [command(SANDBOX_SERVE, () => import('../commands/sandbox-serve.js'))],
  },
];
