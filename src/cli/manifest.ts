// The command tree: each declaration (commands/specs.ts, data only) with its command's code,
// imported lazily by path when it runs. Nothing here imports command code: the front bundles only data.
import { OUTPUT_FORMATS } from '../core/vocabulary.js';
import { command, opt, type CommandSpec } from './runner/command-spec.js';
import * as spec from './cmd/specs.js';

export * from './cmd/specs.js';

export const GLOBAL_OPTIONS = [
  opt('--json', 'one JSON document on stdout; messages on stderr'),
  opt('--raw', "with JSON: the server's data, as sent"),
  opt('--profile <name>', 'a stored profile (default: the current one)', 'profile'),
  opt('--demo', 'a local simulator with test funds: no account'),
  opt('-y, --yes', 'confirm writes on a live key without asking'),
  opt('--no-input', 'never prompt; a missing argument is an error'),
  opt('--no-color', 'no colour (also NO_COLOR=1)'),
  opt('--verbose', 'log each HTTP request on stderr (keys redacted)'),
  opt('--timeout <seconds>', 'bound the whole command, waits included'),
  opt('--request-timeout <seconds>', 'bound each HTTP attempt (default 15)'),
  opt('--format <format>', 'table, tsv (in a pipe), csv, json or ndjson', OUTPUT_FORMATS),
  opt('--fields <list>', 'only these fields, in this order (a,b,c)'),
  opt('--query <expr>', 'a JMESPath expression on the JSON data'),
  opt('--no-header', 'tsv and csv without their header row'),
];

// `hedge keep FILE` is `hedge keep run FILE` (the default subcommand of `keep`): KEEP without its group.
const { group: _keepGroup, ...KEEP_LEAF } = spec.KEEP;
const KEEP_RUN = { ...KEEP_LEAF, name: 'run', isDefault: true } as const;

export const COMMANDS: readonly CommandSpec[] = [
  command(spec.MARKETS, () => import('./cmd/book/markets.js')),
  command(spec.PRICE, () => import('./cmd/trade/price.js')),
  command(spec.QUOTE, () => import('./cmd/trade/quote.js')),
  command(spec.OPEN, () => import('./cmd/trade/open.js')),
  command(spec.ADD, () => import('./cmd/trade/change.js').then((module) => module.add)),
  command(spec.REDUCE, () => import('./cmd/trade/change.js').then((module) => module.reduce)),
  command(spec.CLOSE, () => import('./cmd/trade/close.js')),
  command(spec.HEDGES, () => import('./cmd/book/hedges.js')),
  command(spec.HISTORY, () => import('./cmd/book/history.js')),
  command(spec.POSITIONS, () => import('./cmd/book/positions.js')),
  command(spec.ACCOUNT, () => import('./cmd/book/account.js')),
  command(spec.MATURITIES, () => import('./cmd/book/maturities.js')),
  command(spec.ROLL, () => import('./cmd/trade/roll.js')),
  command(spec.LOGIN, () => import('./cmd/setup/login.js')),
  command(spec.LOGOUT, () => import('./cmd/setup/logout.js')),
  {
    name: 'profile',
    summary: 'List, switch and remove stored profiles; forget learned wire names',
    group: 'setup',
    examples: ['hedge profile list', 'hedge profile use desk', 'hedge profile reset-wire'],
    subcommands: [
      command(spec.PROFILE_LIST, () => import('./cmd/setup/profile-list.js')),
      command(spec.PROFILE_USE, () => import('./cmd/setup/profile-use.js')),
      command(spec.PROFILE_REMOVE, () => import('./cmd/setup/profile-remove.js')),
      command(spec.PROFILE_RESET_WIRE, () => import('./cmd/setup/profile-reset-wire.js')),
    ],
  },
  command(spec.WHOAMI, () => import('./cmd/setup/whoami.js')),
  command(spec.DOCTOR, () => import('./cmd/setup/doctor.js')),
  command(spec.PLAN, () => import('./cmd/automation/plan.js')),
  command(spec.APPLY, () => import('./cmd/automation/apply.js')),
  {
    // `hedge keep FILE` runs the keeper (the default subcommand, also `hedge keep run FILE`); `hedge keep status` looks at it.
    name: 'keep',
    summary: spec.KEEP.summary,
    description: `${spec.KEEP.description}; \`hedge keep status\` shows the running keeper`,
    group: 'automation',
    examples: [...spec.KEEP.examples, 'hedge keep status'],
    subcommands: [
      command(KEEP_RUN, () => import('./cmd/automation/keep.js')),
      command(spec.KEEP_STATUS, () => import('./cmd/automation/keep-status.js')),
    ],
  },
  command(spec.EXPOSURES, () => import('./cmd/automation/exposures.js')),
  command(spec.REPORT, () => import('./cmd/book/report.js')),
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
      command(spec.JOURNAL_LIST, () => import('./cmd/journal/journal-list.js')),
      command(spec.JOURNAL_SHOW, () => import('./cmd/journal/journal-show.js')),
      command(spec.JOURNAL_RESOLVE, () => import('./cmd/journal/journal-resolve.js')),
      command(spec.JOURNAL_MIGRATE, () => import('./cmd/journal/journal-migrate.js')),
    ],
  },
  command(spec.RESUME, () => import('./cmd/journal/resume.js')),
  {
    name: 'demo',
    summary: 'The --demo simulator: start it afresh',
    group: 'setup',
    examples: ['hedge demo reset'],
    subcommands: [command(spec.DEMO_RESET, () => import('./cmd/tools/demo-reset.js'))],
  },
  // hedge mcp and hedge tools describe every command: the tree is handed to them here, so that the
  // agent never imports the manifest that loads them (no import cycle).
  command(spec.MCP, () => import('./cmd/tools/mcp.js').then((module) => module.withCommands(COMMANDS))),
  command(spec.TOOLS, () => import('./cmd/tools/tools.js').then((module) => module.withCommands(COMMANDS))),
  command(spec.API, () => import('./cmd/tools/api.js')),
  command(spec.COMPLETION, () => import('./cmd/tools/completion.js')),
  {
    name: 'sandbox',
    summary: 'Run the simulator of the API as a local server',
    group: 'setup',
    examples: ['hedge sandbox serve --port 4010'],
    subcommands: [command(spec.SANDBOX_SERVE, () => import('./cmd/tools/sandbox-serve.js'))],
  },
];
