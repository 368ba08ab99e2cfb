// The command tree, declared as data: commander is built from it (main.ts), the completion files
// are checked against it (test), the agent interface describes itself from it, and each command's
// code is imported only when it runs. Each declaration is a named constant so that its command
// file can type its input from it (`InputOf<typeof QUOTE>`, see command-spec.ts).
import { HEDGE_STATUSES, OUTPUT_FORMATS, SIDES, TENORS } from '../domain/vocabulary.js';
import { command, declare, type ArgSpec, type CommandSpec, type OptionSpec } from './command-spec.js';

export const SIDE_VALUES = SIDES;
export const TENOR_VALUES: readonly string[] = TENORS.map(String);
export const STATUS_VALUES = HEDGE_STATUSES;
export const SHELL_VALUES = ['bash', 'zsh', 'fish'] as const;
export const FORMAT_VALUES = OUTPUT_FORMATS;
export const DIALECT_VALUES = ['reference', 'alpha', 'beta'] as const;

/** Options of every command that sends a write: how it is waited, resumed or only shown. */
const WRITE_OPTIONS = [
  { flags: '--no-wait', key: 'wait', kind: 'negatable', description: 'return at `submitted` instead of waiting for the result' },
  { flags: '--idempotency-key <key>', key: 'idempotencyKey', kind: 'value', description: 'resume an earlier run whose outcome is unknown (reuses its key)' },
  { flags: '--new', key: 'new', kind: 'flag', description: 'start a fresh action even if the same one is unresolved in the journal' },
  { flags: '--dry-run', key: 'dryRun', kind: 'flag', description: 'print the exact request that would be sent, and send nothing' },
] as const satisfies readonly OptionSpec[];

const SKIP_CHECKS = { flags: '--skip-checks', key: 'skipChecks', kind: 'flag', description: 'skip the pre-trade checks and let the server decide' } as const;
const TENOR_OPTION = { flags: '-t, --tenor <days>', key: 'tenor', kind: 'value', description: 'tenor in days: 1, 3 or 7', values: TENOR_VALUES } as const;

const MARKET_ARG = { name: 'market', required: true, description: 'market, e.g. USDTNGN (from `hedge markets`)', values: 'market' } as const satisfies ArgSpec;
const SIDE_ARG = { name: 'side', required: true, description: 'buy or sell', values: SIDE_VALUES } as const satisfies ArgSpec;
const notionalArg = <const W extends string>(what: W) =>
  ({ name: 'notional', required: true, description: `${what} in USD: 10000, 10_000, 10k or 1.5m` }) as const;
const optional = <const A extends ArgSpec>(arg: A): Omit<A, 'required'> & { readonly required: false } => ({ ...arg, required: false });

export const GLOBAL_OPTIONS = [
  { flags: '--json', key: 'json', kind: 'flag', description: 'print one JSON document on stdout (the API data); messages go to stderr' },
  { flags: '--profile <name>', key: 'profile', kind: 'value', description: 'use this stored profile (default: HEDGE_PROFILE, then the current one)', values: 'profile' },
  { flags: '--demo', key: 'demo', kind: 'flag', description: 'run against a local simulator with a built-in test key (no account needed)' },
  { flags: '-y, --yes', key: 'yes', kind: 'flag', description: 'confirm state-changing commands on live keys without asking' },
  { flags: '--no-input', key: 'input', kind: 'negatable', description: 'never prompt; missing arguments are an error' },
  { flags: '--no-color', key: 'color', kind: 'negatable', description: 'no colour (also NO_COLOR=1 or TERM=dumb)' },
  { flags: '--verbose', key: 'verbose', kind: 'flag', description: 'log each HTTP request to stderr (keys redacted)' },
  { flags: '--timeout <seconds>', key: 'timeout', kind: 'value', description: 'give up after this long, waits included (exit 7 while waiting, 5 on a request)' },
  { flags: '--request-timeout <seconds>', key: 'requestTimeout', kind: 'value', description: 'bound each HTTP attempt (default 15)' },
  { flags: '--format <format>', key: 'format', kind: 'value', description: 'table (default on a terminal), tsv (default in a pipe), csv, json or ndjson', values: FORMAT_VALUES },
  { flags: '--fields <list>', key: 'fields', kind: 'value', description: 'only these fields, in this order: --fields market,side,notional_usd' },
  { flags: '--query <expr>', key: 'query', kind: 'value', description: 'a JMESPath expression applied to the JSON data (implies --format json)' },
  { flags: '--no-header', key: 'header', kind: 'negatable', description: 'tsv and csv without their header row' },
] as const satisfies readonly OptionSpec[];

/** `--ref`: wherever a list is shown, only what carries this deal reference (the spec's client_reference). */
const REF_FILTER = { flags: '--ref <client_reference>', key: 'ref', kind: 'value', description: 'only what carries this client reference (your deal id)' } as const satisfies OptionSpec;

/** Options of the commands that can keep a view live (`--watch`). */
const WATCH_OPTIONS = [
  { flags: '--watch [seconds]', key: 'watch', kind: 'optional-value', description: 'refresh every few seconds (default 2, at least 1); NDJSON when not a terminal' },
  { flags: '--alert-pnl <usd>', key: 'alertPnl', kind: 'value', description: 'with --watch: alert when net P&L is at or below this many USD (e.g. -500)' },
  { flags: '--alert-maturity <duration>', key: 'alertMaturity', kind: 'value', description: 'with --watch: alert when a hedge matures within this long (e.g. 6h, 1d)' },
  { flags: '--exit-on-alert', key: 'exitOnAlert', kind: 'flag', description: 'with --watch: end at the first alert with exit code 10' },
] as const satisfies readonly OptionSpec[];

export const MARKETS = declare({
  name: 'markets',
  summary: 'List the markets open to the account: status, price, capacity and daily carry per side',
  tier: 'read',
  examples: ['hedge markets', 'hedge markets --json | jq ".[].market"'],
});

export const PRICE = declare({
  name: 'price',
  summary: 'Show the indicative mid price of a market (every listed market without one)',
  tier: 'read',
  args: [optional(MARKET_ARG)],
  options: [...WATCH_OPTIONS],
  examples: ['hedge price USDTNGN', 'hedge price --json', 'hedge price USDTNGN --watch'],
});

export const QUOTE = declare({
  name: 'quote',
  summary: 'Quote a hedge: execution price, impact, carry, margin, fee and maturity (reserves nothing)',
  tier: 'read',
  args: [MARKET_ARG, SIDE_ARG, notionalArg('size')],
  options: [TENOR_OPTION],
  examples: ['hedge quote USDTNGN buy 10000 --tenor 3', 'hedge quote USDTNGN sell 1.5m --tenor 7 --json'],
});

export const OPEN = declare({
  name: 'open',
  summary: 'Open a hedge and wait for the fill (no arguments on a terminal starts a wizard)',
  tier: 'write',
  args: [optional(MARKET_ARG), optional(SIDE_ARG), optional(notionalArg('size'))],
  options: [
    TENOR_OPTION,
    { flags: '--ref <client_reference>', key: 'ref', kind: 'value', description: 'your own deal id, to find the hedge later with `hedge hedges --ref`' },
    { flags: '--allow-duplicate-ref', key: 'allowDuplicateRef', kind: 'flag', description: 'open even if an active hedge already carries this --ref' },
    SKIP_CHECKS,
    ...WRITE_OPTIONS,
  ],
  examples: [
    'hedge open USDTNGN buy 10000 --tenor 3 --ref DEAL-42',
    'hedge open',
    'hedge open USDTNGN sell 25k --tenor 7 --no-wait --json',
  ],
});

export const ADD = declare({
  name: 'add',
  summary: 'Add notional to the open hedge on a market and side (same maturity)',
  tier: 'write',
  args: [MARKET_ARG, SIDE_ARG, notionalArg('notional to add')],
  options: [SKIP_CHECKS, ...WRITE_OPTIONS],
  examples: ['hedge add USDTNGN buy 5000'],
});

export const REDUCE = declare({
  name: 'reduce',
  summary: 'Remove notional from the open hedge on a market and side (margin scales down with it)',
  tier: 'write',
  args: [MARKET_ARG, SIDE_ARG, notionalArg('notional to remove')],
  options: [...WRITE_OPTIONS],
  examples: ['hedge reduce USDTNGN buy 2500'],
});

export const CLOSE = declare({
  name: 'close',
  summary: 'Close the position on a market and side, and show what it returned',
  tier: 'write',
  args: [MARKET_ARG, SIDE_ARG],
  options: [...WRITE_OPTIONS],
  examples: ['hedge close USDTNGN buy', 'hedge close USDTNGN sell --yes --json'],
});

export const HEDGES = declare({
  name: 'hedges',
  summary: 'List hedges, newest first, or show one hedge in full',
  tier: 'read',
  args: [{ name: 'id', required: false, description: 'a hedge id (hdg_…) to show in full' }],
  options: [
    { flags: '--status <status>', key: 'status', kind: 'value', description: 'only hedges in this status', values: STATUS_VALUES },
    REF_FILTER,
    { flags: '--limit <n>', key: 'limit', kind: 'value', description: 'at most this many (1 to 500)' },
    { flags: '--wait', key: 'wait', kind: 'flag', description: 'with an ID: poll until the hedge is filled, failed or closed' },
    ...WATCH_OPTIONS,
  ],
  examples: ['hedge hedges --status filled --limit 20', 'hedge hedges hdg_01HX… --wait', 'hedge hedges --ref DEAL-42 --json'],
});

export const HISTORY = declare({
  name: 'history',
  summary: 'List closed hedges with realized P&L, carry and fees, with totals',
  tier: 'read',
  options: [
    { flags: '--limit <n>', key: 'limit', kind: 'value', description: 'at most this many (1 to 500)' },
    { flags: '--since <date>', key: 'since', kind: 'value', description: 'closed on or after: 2026-11-01, an ISO time, or 7d / 2w / 1m ago' },
    { flags: '--until <date>', key: 'until', kind: 'value', description: 'closed before this date (same forms)' },
    REF_FILTER,
  ],
  examples: ['hedge history', 'hedge history --json | jq "map(.net_pnl_usd) | add"'],
});

export const POSITIONS = declare({
  name: 'positions',
  summary: 'Show open positions per side: entry and mark, P&L, carry, fee to close, net margin',
  tier: 'read',
  options: [REF_FILTER, ...WATCH_OPTIONS],
  examples: ['hedge positions', 'hedge positions --json', 'hedge positions --watch 5 --alert-pnl -500'],
});

export const ACCOUNT = declare({
  name: 'account',
  summary: 'Show the account: balance, margin in use, exposure, unrealized P&L and headroom',
  tier: 'read',
  options: [...WATCH_OPTIONS],
  examples: ['hedge account', 'hedge account --json | jq .available_exposure_usd', 'hedge account --watch'],
});

export const LOGIN = declare({
  name: 'login',
  summary: 'Save a profile: base URL and API key (asked hidden on a terminal, read from stdin otherwise)',
  tier: 'local',
  options: [
    { flags: '--base-url <url>', key: 'baseUrl', kind: 'value', description: 'the API base address, https://…/v2 (the partner desk gives it)' },
    { flags: '--ca-file <file>', key: 'caFile', kind: 'value', description: 'a PEM CA file to trust for this profile (self-signed sandboxes)' },
  ],
  examples: [
    'hedge login --profile desk',
    'printf %s "$HEDGE_KEY" | hedge login --profile desk --base-url https://api.example.com/partners/acme/v2',
  ],
});

export const LOGOUT = declare({
  name: 'logout',
  summary: 'Remove the stored API key of a profile (the current one by default)',
  tier: 'local',
  examples: ['hedge logout', 'hedge logout --profile desk'],
});

const PROFILE_NAME_ARG = { name: 'name', required: true, description: 'a stored profile', values: 'profile' } as const;

export const PROFILE_LIST = declare({
  name: 'list',
  summary: 'List profiles: name, environment, base URL, redacted key, which is current',
  tier: 'local',
  examples: ['hedge profile list'],
});

export const PROFILE_USE = declare({
  name: 'use',
  summary: 'Make a profile the current one',
  tier: 'local',
  args: [PROFILE_NAME_ARG],
  examples: ['hedge profile use desk'],
});

export const PROFILE_REMOVE = declare({
  name: 'remove',
  summary: 'Delete a stored profile',
  tier: 'local',
  args: [PROFILE_NAME_ARG],
  examples: ['hedge profile remove old-desk'],
});

export const WHOAMI = declare({
  name: 'whoami',
  summary: 'Show the profile, environment, base URL and key in use, where each came from, and whether the key works',
  tier: 'read',
  examples: ['hedge whoami', 'HEDGE_PROFILE=desk hedge whoami --json'],
});

export const COMPLETION = declare({
  name: 'completion',
  summary: 'Print the shell completion script for bash, zsh or fish',
  tier: 'local',
  args: [{ name: 'shell', required: true, description: 'bash, zsh or fish', values: SHELL_VALUES }],
  examples: [
    'hedge completion bash > ~/.local/share/bash-completion/completions/hedge',
    'hedge completion zsh > "${fpath[1]}/_hedge"',
    'hedge completion fish > ~/.config/fish/completions/hedge.fish',
  ],
});

export const SANDBOX_SERVE = declare({
  name: 'serve',
  summary: 'Serve the simulator over HTTP(S) on loopback; prints HEDGE_BASE_URL and HEDGE_API_KEY first',
  tier: 'local',
  options: [
    { flags: '--port <n>', key: 'port', kind: 'value', description: 'port (default: any free port)' },
    { flags: '--host <host>', key: 'host', kind: 'value', description: 'loopback address to listen on (default 127.0.0.1)' },
    { flags: '--tls', key: 'tls', kind: 'flag', description: 'serve HTTPS with a fresh CA (printed as NODE_EXTRA_CA_CERTS)' },
    { flags: '--fill-delay <ms>', key: 'fillDelay', kind: 'value', description: 'time from submitted to filled (default 2000)' },
    { flags: '--fail-rate <share>', key: 'failRate', kind: 'value', description: 'share of opens that fail on-chain, 0 to 1' },
    { flags: '--clock-speed <x>', key: 'clockSpeed', kind: 'value', description: 'sandbox clock speed (e.g. 3600: an hour per second)' },
    { flags: '--seed <n>', key: 'seed', kind: 'value', description: 'seed of the price path and faults' },
    { flags: '--fault-5xx <share>', key: 'fault5xx', kind: 'value', description: 'share of requests answered 500/503, 0 to 1' },
    { flags: '--fault-429 <share>', key: 'fault429', kind: 'value', description: 'share of requests answered 429, 0 to 1' },
    { flags: '--drop-after-commit <share>', key: 'dropAfterCommit', kind: 'value', description: 'share of writes whose connection drops after they took effect' },
    { flags: '--latency <ms>', key: 'latency', kind: 'value', description: 'added latency per request' },
    { flags: '--rate-limit <n>', key: 'rateLimit', kind: 'value', description: 'requests per second per key before 429' },
    { flags: '--dialect <name>', key: 'dialect', kind: 'value', description: 'how the server answers what the spec leaves open: reference, alpha or beta', values: DIALECT_VALUES },
    { flags: '--hostile-text', key: 'hostileText', kind: 'flag', description: 'seed names, references and messages with terminal escape sequences' },
  ],
  examples: [
    'hedge sandbox serve',
    'hedge sandbox serve --port 4010 > sandbox.env & sleep 1; set -a; . ./sandbox.env; set +a',
    'hedge sandbox serve --tls --fault-5xx 0.2',
  ],
});

export const JOURNAL_LIST = declare({
  name: 'list',
  summary: 'List the journal of actions, newest first: every write, by which profile, when, with what outcome',
  tier: 'read',
  isDefault: true,
  options: [
    { flags: '--pending', key: 'pending', kind: 'flag', description: 'only actions whose outcome is not known yet (pending, submitted, unknown)' },
    { flags: '--since <when>', key: 'since', kind: 'value', description: 'only actions from this time: 2026-11-20, an ISO time, or 2h / 3d / 1w ago' },
    { flags: '--limit <n>', key: 'limit', kind: 'value', description: 'at most this many (default 50)' },
    REF_FILTER,
  ],
  examples: ['hedge journal', 'hedge journal --pending', 'hedge journal --since 1d --json'],
});

export const JOURNAL_SHOW = declare({
  name: 'show',
  summary: 'Show one journal entry in full: request, idempotency key, outcome',
  tier: 'read',
  args: [{ name: 'id', required: true, description: 'a journal id (a_…) or a unique prefix of one' }],
  examples: ['hedge journal show a_mwrrf5p1'],
});

export const RESUME = declare({
  name: 'resume',
  summary: 'Finish an unresolved action from the journal with its own key (the newest one without an ID)',
  tier: 'write',
  args: [{ name: 'id', required: false, description: 'a journal id (a_…) or a unique prefix; default: the newest unresolved action' }],
  options: [{ flags: '--no-wait', key: 'wait', kind: 'negatable', description: 'return once the server answered, without waiting for the result' }],
  examples: ['hedge resume', 'hedge resume a_mwrrf5p1'],
});

export const DEMO_RESET = declare({
  name: 'reset',
  summary: 'Start the --demo simulator afresh (deletes its state: test funds only)',
  tier: 'local',
  examples: ['hedge demo reset'],
});

export const PLAN = declare({
  name: 'plan',
  summary: 'Show the actions that bring the book to a target file (CSV or JSON), their cost and checks; sends nothing',
  tier: 'read',
  args: [{ name: 'file', required: true, description: 'the target file (CSV: market,side,notional_usd,tenor_days[,client_reference]), or - for stdin' }],
  options: [{ flags: '--tolerance <usd>', key: 'tolerance', kind: 'value', description: 'treat differences up to this many USD as at target (default 0)' }],
  examples: ['hedge plan target.csv', 'hedge plan target.csv --json', 'cat target.csv | hedge plan -'],
});

export const APPLY = declare({
  name: 'apply',
  summary: 'Bring the book to a target file: plan, confirm once, then each action through the journal; re-running is harmless',
  tier: 'write',
  args: [{ name: 'file', required: true, description: 'the target file, or - for stdin' }],
  options: [
    { flags: '--tolerance <usd>', key: 'tolerance', kind: 'value', description: 'treat differences up to this many USD as at target (default 0)' },
    { flags: '--dry-run', key: 'dryRun', kind: 'flag', description: 'the same as `hedge plan`: show, send nothing' },
  ],
  examples: ['hedge apply target.csv', 'hedge apply target.csv --yes --json'],
});

export const REPORT = declare({
  name: 'report',
  summary: 'P&L by day, week, month, side, tenor or market from history, with unrealized P&L; CSV; --html FILE',
  tier: 'read',
  options: [
    { flags: '--since <date>', key: 'since', kind: 'value', description: 'closed on or after: 2026-11-01, an ISO time, or 7d / 2w / 1m ago' },
    { flags: '--until <date>', key: 'until', kind: 'value', description: 'closed before this date (same forms)' },
    { flags: '--by <group>', key: 'by', kind: 'value', description: 'group by day, week, month, side, tenor, market or hedge (a line per deal; default day)', values: ['day', 'week', 'month', 'side', 'tenor', 'market', 'hedge'] },
    REF_FILTER,
    { flags: '--html <file>', key: 'html', kind: 'value', description: 'also write a self-contained HTML report (charts, A4 printable) to this file' },
  ],
  examples: ['hedge report --by week', 'hedge report --since 2026-11-01 --format csv > november.csv', 'hedge report --by month --html report.html'],
});

export const MATURITIES = declare({
  name: 'maturities',
  summary: 'Upcoming settlements grouped by day: market, side, notional, maturity and countdown, mark P&L, carry',
  tier: 'read',
  options: [{ flags: '--within <duration>', key: 'within', kind: 'value', description: 'only hedges maturing within this long: 12h, 3d, 2w (default: all)' }, REF_FILTER],
  examples: ['hedge maturities', 'hedge maturities --within 3d --json'],
});

export const ROLL = declare({
  name: 'roll',
  summary: "Keep a side covered past its maturity: close the open hedge and open the same notional for a new tenor",
  tier: 'write',
  args: [MARKET_ARG, SIDE_ARG],
  options: [TENOR_OPTION, SKIP_CHECKS, ...WRITE_OPTIONS],
  examples: ['hedge roll USDTNGN buy --tenor 7', 'hedge roll USDTNGN sell --tenor 3 --dry-run'],
});

export const MCP = declare({
  name: 'mcp',
  summary: 'Serve the commands as Model Context Protocol tools over stdio, for an AI agent',
  tier: 'local',
  options: [
    { flags: '--allow-live', key: 'allowLive', kind: 'flag', description: 'offer write tools on a live key too (each write then needs a confirmation token)' },
  ],
  examples: ['hedge mcp --demo', 'hedge mcp --profile desk', 'hedge mcp --profile live-desk --allow-live'],
});

export const TOOLS = declare({
  name: 'tools',
  summary: 'Describe the commands an agent may call: names, argument schemas and safety tiers',
  tier: 'local',
  examples: ['hedge tools --json'],
});

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
    summary: 'List, switch and remove stored profiles',
    examples: ['hedge profile list', 'hedge profile use desk'],
    subcommands: [
      command(PROFILE_LIST, () => import('../commands/profile-list.js')),
      command(PROFILE_USE, () => import('../commands/profile-use.js')),
      command(PROFILE_REMOVE, () => import('../commands/profile-remove.js')),
    ],
  },
  command(WHOAMI, () => import('../commands/whoami.js')),
  command(PLAN, () => import('../commands/plan.js')),
  command(APPLY, () => import('../commands/apply.js')),
  command(REPORT, () => import('../commands/report.js')),
  {
    name: 'journal',
    summary: 'The local record of every action: list, show one',
    examples: ['hedge journal', 'hedge journal --pending', 'hedge journal show a_mwrrf5p1'],
    subcommands: [command(JOURNAL_LIST, () => import('../commands/journal-list.js')), command(JOURNAL_SHOW, () => import('../commands/journal-show.js'))],
  },
  command(RESUME, () => import('../commands/resume.js')),
  {
    name: 'demo',
    summary: 'The --demo simulator',
    examples: ['hedge demo reset'],
    subcommands: [command(DEMO_RESET, () => import('../commands/demo-reset.js'))],
  },
  command(MCP, () => import('../commands/mcp.js')),
  command(TOOLS, () => import('../commands/tools.js')),
  command(COMPLETION, () => import('../commands/completion.js')),
  {
    name: 'sandbox',
    summary: 'Run the local simulator of the API',
    examples: ['hedge sandbox serve --port 4010'],
    subcommands: [command(SANDBOX_SERVE, () => import('../commands/sandbox-serve.js'))],
  },
];
