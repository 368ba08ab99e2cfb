// The command tree: each declaration (cmd/specs.ts, data only) with its command's code, imported lazily by
// path when it runs. Nothing here imports command code: the front bundles only data.
import { OUTPUT_FORMATS } from '../core/vocabulary.js';
import { command, opt, type CommandSpec } from './runner/command-spec.js';
import * as SPECS from './cmd/specs.js';

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

/** Every command with its code (each typed by its declaration), in the order help, completions and the agent's tools list them. */
export const COMMANDS: readonly CommandSpec[] = [
  command(SPECS.MARKETS, () => import('./cmd/book/markets.js')),
  command(SPECS.PRICE, () => import('./cmd/trade/price.js')),
  command(SPECS.QUOTE, () => import('./cmd/trade/quote.js')),
  command(SPECS.OPEN, () => import('./cmd/trade/open.js')),
  command(SPECS.ADD, () => import('./cmd/trade/change.js').then((module) => module.add)),
  command(SPECS.REDUCE, () => import('./cmd/trade/change.js').then((module) => module.reduce)),
  command(SPECS.CLOSE, () => import('./cmd/trade/close.js')),
  command(SPECS.HEDGES, () => import('./cmd/book/hedges.js')),
  command(SPECS.HISTORY, () => import('./cmd/book/history.js')),
  command(SPECS.POSITIONS, () => import('./cmd/book/positions.js')),
  command(SPECS.ACCOUNT, () => import('./cmd/book/account.js')),
  command(SPECS.MATURITIES, () => import('./cmd/book/maturities.js')),
  command(SPECS.ROLL, () => import('./cmd/trade/roll.js')),
  command(SPECS.LOGIN, () => import('./cmd/setup/login.js')),
  command(SPECS.LOGOUT, () => import('./cmd/setup/logout.js')),
  {
    ...SPECS.PROFILE,
    subcommands: [
      command(SPECS.PROFILE_LIST, () => import('./cmd/setup/profile-list.js')),
      command(SPECS.PROFILE_USE, () => import('./cmd/setup/profile-use.js')),
      command(SPECS.PROFILE_REMOVE, () => import('./cmd/setup/profile-remove.js')),
      command(SPECS.PROFILE_RESET_WIRE, () => import('./cmd/setup/profile-reset-wire.js')),
    ],
  },
  command(SPECS.WHOAMI, () => import('./cmd/setup/whoami.js')),
  command(SPECS.DOCTOR, () => import('./cmd/setup/doctor.js')),
  command(SPECS.PLAN, () => import('./cmd/automation/plan.js')),
  command(SPECS.APPLY, () => import('./cmd/automation/apply.js')),
  {
    ...SPECS.KEEP,
    subcommands: [
      command(SPECS.KEEP_RUN, () => import('./cmd/automation/keep.js')),
      command(SPECS.KEEP_STATUS, () => import('./cmd/automation/keep-status.js')),
    ],
  },
  command(SPECS.EXPOSURES, () => import('./cmd/automation/exposures.js')),
  command(SPECS.REPORT, () => import('./cmd/book/report.js')),
  {
    ...SPECS.JOURNAL,
    subcommands: [
      command(SPECS.JOURNAL_LIST, () => import('./cmd/journal/journal-list.js')),
      command(SPECS.JOURNAL_SHOW, () => import('./cmd/journal/journal-show.js')),
      command(SPECS.JOURNAL_RESOLVE, () => import('./cmd/journal/journal-resolve.js')),
      command(SPECS.JOURNAL_MIGRATE, () => import('./cmd/journal/journal-migrate.js')),
    ],
  },
  command(SPECS.RESUME, () => import('./cmd/journal/resume.js')),
  { ...SPECS.DEMO, subcommands: [command(SPECS.DEMO_RESET, () => import('./cmd/tools/demo-reset.js'))] },
  command(SPECS.MCP, () => import('./cmd/tools/mcp.js').then((module) => module.withCommands(COMMANDS))),
  command(SPECS.TOOLS, () => import('./cmd/tools/tools.js').then((module) => module.withCommands(COMMANDS))),
  command(SPECS.API, () => import('./cmd/tools/api.js')),
  command(SPECS.COMPLETION, () => import('./cmd/tools/completion.js')),
  { ...SPECS.SANDBOX, subcommands: [command(SPECS.SANDBOX_SERVE, () => import('./cmd/tools/sandbox-serve.js'))] },
];
