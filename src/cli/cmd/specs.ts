// Every command's declaration (arguments, options, tier, examples) and the pieces they share. Data
// only, in one module: esbuild splits by file, so a declaration beside its command's code would
// load that code at every start. cli/manifest.ts ties each to its lazily loaded command.
import { DE_DESIGNATION_GROUNDS, HEDGE_STATUSES, OUTPUT_FORMATS, SIDES, TENORS } from '../../core/vocabulary.js';
import { declared, opt, type ArgSpec, type OptionSpec } from '../runner/command-spec.js';
import { SANDBOX_DIALECTS } from '../../sandbox/dialect-names.js';

/**
 * A list of options: shared ones as they are, each other one as its flags, its description and, where the
 * values it takes are known, their list. Typed as `opt` types each: the flags give the key and the kind.
 */
type Listed<T> = T extends `-${string}` ? ReturnType<typeof opt<T>> : Exclude<T, string | readonly string[]>;
const options = <const T extends readonly (string | readonly string[] | OptionSpec)[]>(...entries: T) =>
  entries.flatMap((entry, i) => {
    if (typeof entry !== 'string') return 'flags' in entry ? [entry] : [];
    const values = entries[i + 2];
    return entry.startsWith('-')
      ? [opt(entry, entries[i + 1] as string, Array.isArray(values) ? values : undefined)]
      : [];
  }) as Listed<T[number]>[];

/** The options every command takes (commander's program options). */
export const GLOBAL_OPTIONS = options(
  '--json',
  'one JSON document on stdout; messages on stderr',
  '--raw',
  "with JSON: the server's data, as sent",
  opt('--profile <name>', 'a stored profile (default: the current one)', 'profile'),
  '--demo',
  'a local simulator with test funds: no account',
  '-y, --yes',
  'confirm writes on a live key without asking',
  '--no-input',
  'never prompt; a missing argument is an error',
  '--no-color',
  'no colour (also NO_COLOR=1)',
  '--verbose',
  'log each HTTP request on stderr (keys redacted)',
  '--timeout <seconds>',
  'bound the whole command, waits included',
  '--request-timeout <seconds>',
  'bound each HTTP attempt (default 15)',
  '--format <format>',
  'table, tsv (in a pipe), csv, json or ndjson',
  OUTPUT_FORMATS,
  '--fields <list>',
  'only these fields, in this order (a,b,c)',
  '--query <expr>',
  'a JMESPath expression on the JSON data',
  '--no-header',
  'tsv and csv without their header row',
);

/** Options of every command that sends a write: how it is waited, resumed or only shown. */
export const WRITE_OPTIONS = options(
  '--no-wait',
  'return at `submitted` instead of waiting for the result',
  '--idempotency-key <key>',
  'resume an earlier run whose outcome is unknown (reuses its key)',
  '--new',
  'start a fresh action even if the same one is unresolved in the journal',
  '--dry-run',
  'print the exact request that would be sent, and send nothing',
  '--again',
  'send it even if the same write ended minutes ago',
);

const SKIP_CHECKS = opt('--skip-checks', 'skip the pre-trade checks and let the server decide');
const TENOR_OPTION = opt('-t, --tenor <days>', 'tenor in days: 1, 3 or 7', TENORS.map(String));

/** A required argument, with the values it takes where they are known (`optional()` makes it optional). */
const arg = <const N extends string, const V extends ArgSpec['values'] = never>(
  name: N,
  description: string,
  values?: V,
) => ({ name, required: true, description, ...(values && { values }) }) as const;
const MARKET_ARG = arg('market', 'market, e.g. USDTNGN (from `hedge markets`)', 'market');
const SIDE_ARG = arg(
  'side',
  'buy or sell: buy covers a receivable in the quote currency (NGN for USDTNGN), sell a payable in it, for books in USD',
  SIDES,
);
const notionalArg = (what: string) => arg('notional', `${what} in USD: 10000, 10_000, 10k or 1.5m`);
const optional = <const A extends ArgSpec>(arg: A) => ({
  ...arg,
  required: false,
});

const PROFILE_NAME_ARG = arg('name', 'a stored profile', 'profile');

/** Where `hedge --help` lists a command; a subcommand is listed under its group's command. */
const trading = declared('trading');
const book = declared('book');
const automation = declared('automation');
const setup = declared('setup');
const subcommand = declared();

/**
 * `--until EXPR` on the reads whose data can change (runner/run-until.ts): not on `quote`, a new quote
 * each time. On `history` and `report`, where `--until` is also the close-date bound, a date is that
 * bound and anything else a condition.
 */
const UNTIL_OPTION = opt(
  '--until <expr>',
  'poll until this JMESPath condition over the --json data holds (exit 124 at --timeout, default 120 s; 17 once it can never hold)',
);
const UNTIL_DATE_OR_CONDITION = opt(
  '--until <date|expr>',
  'closed before this date (same forms as --since); anything else is a condition to poll until, as on every read',
);

/** Options of the commands that can keep a view live (`--watch`), and `--until`. */
const WATCH_OPTIONS = options(
  '--watch [seconds]',
  'refresh every few seconds (default 2, at least 1); NDJSON when not a terminal',
  '--alert-pnl <usd>',
  'with --watch: alert when net P&L is at or below this many USD (e.g. -500)',
  '--alert-maturity <duration>',
  'with --watch: alert when a hedge matures within this long (e.g. 6h, 1d)',
  '--exit-on-alert',
  'with --watch: end at the first alert with exit code 10',
  '--count <n>',
  'with --watch: stop after this many refreshes (exit 0)',
  UNTIL_OPTION,
);

/** `--limit` and `--all` of the lists that page (`hedges`, `history`): hedge's own default length otherwise. */
const LIST_LENGTH_OPTIONS = options(
  '--limit <n>',
  "at most this many (1 to 500; default 50, across the server's pages)",
  '--all',
  'every one there is, page after page',
);

/** `--tolerance` of the commands that plan against a target file. */
const TOLERANCE = opt('--tolerance <usd>', 'USD within which a held side is at target (default 0)');

/** `--adopt` of the commands that plan against a target: a hedge on a row's side under another reference (or none) made the row's. */
const ADOPT = opt(
  '--adopt <ref|id>',
  "make a hedge on a row's side that carries another reference (or none) the row's, to close, reduce or add to (repeatable)",
  undefined,
  'repeatable',
);

/** `--since` of the lists of closed hedges (history, report). */
const CLOSED_SINCE = opt('--since <date>', 'closed on or after: 2026-11-01, an ISO time, or 7d / 2w / 1mo ago');

const JOURNAL_ID = arg('id', 'a journal id (a_…) or a unique part of one (as a table shows it)');

/** `--ref`: wherever a list is shown, only what carries this deal reference (the spec's client_reference). */
const REF_FILTER = opt('--ref <client_reference>', 'only what carries this client reference (your deal id)');

export const MARKETS = trading('markets', 'read', 'Markets: status, price, capacity and daily carry per side', {
  description: 'List the markets open to the account: status, price, capacity and daily carry per side',
  options: [UNTIL_OPTION],
  examples: ['hedge markets', 'hedge markets --json | jq ".[].market"'],
});

export const PRICE = trading('price', 'read', 'The indicative mid price of a market, or of every one', {
  description: 'Show the indicative mid price of a market (every listed market without one)',
  args: [optional(MARKET_ARG)],
  options: WATCH_OPTIONS,
  examples: ['hedge price USDTNGN', 'hedge price --json', 'hedge price USDTNGN --watch'],
});

export const QUOTE = trading('quote', 'read', 'Quote a hedge: price, impact, carry, margin and fee', {
  description: 'Quote a hedge: execution price, impact, carry, margin, fee and maturity (reserves nothing)',
  args: [MARKET_ARG, SIDE_ARG, notionalArg('size')],
  options: [TENOR_OPTION],
  examples: ['hedge quote USDTNGN buy 10000 --tenor 3', 'hedge quote USDTNGN sell 1.5m --tenor 7 --json'],
});

export const OPEN = trading('open', 'write', 'Open a hedge and wait for the fill (a wizard on a terminal)', {
  description: 'Open a hedge and wait for the fill (no arguments on a terminal starts a wizard)',
  args: [optional(MARKET_ARG), optional(SIDE_ARG), optional(notionalArg('size'))],
  options: options(
    TENOR_OPTION,
    '--ref <client_reference>',
    'your own deal id, to find the hedge later with `hedge hedges --ref`',
    '--allow-duplicate-ref',
    'open even if an active hedge already carries this --ref',
    SKIP_CHECKS,
    ...WRITE_OPTIONS,
  ),
  examples: [
    'hedge open USDTNGN buy 10000 --tenor 3 --ref DEAL-42',
    'hedge open',
    'hedge open USDTNGN sell 25k --tenor 7 --no-wait --json',
  ],
});

export const ADD = trading('add', 'write', "Add notional to a side's open hedge (same maturity)", {
  description: 'Add notional to the open hedge on a market and side (same maturity)',
  args: [MARKET_ARG, SIDE_ARG, notionalArg('notional to add')],
  options: [SKIP_CHECKS, ...WRITE_OPTIONS],
  examples: ['hedge add USDTNGN buy 5000'],
});

export const REDUCE = trading('reduce', 'write', "Remove notional from a side's open hedge", {
  description: 'Remove notional from the open hedge on a market and side (margin scales down with it)',
  args: [MARKET_ARG, SIDE_ARG, notionalArg('notional to remove')],
  options: WRITE_OPTIONS,
  examples: ['hedge reduce USDTNGN buy 2500'],
});

export const CLOSE = trading('close', 'write', "Close a side's position and show what it returned", {
  description: 'Close the position on a market and side, and show what it returned',
  args: [MARKET_ARG, SIDE_ARG],
  options: WRITE_OPTIONS,
  examples: ['hedge close USDTNGN buy', 'hedge close USDTNGN sell --yes --json'],
});

export const HEDGES = book('hedges', 'read', 'List hedges, newest first, or show one in full', {
  description: 'List hedges, newest first, or show one hedge in full',
  args: [
    optional(arg('id', 'a hedge id (hdg_…) to show in full, or a unique part of one (as a table shows it)', 'hedge')),
  ],
  options: options(
    '--status <status>',
    'only hedges in this status',
    HEDGE_STATUSES,
    REF_FILTER,
    ...LIST_LENGTH_OPTIONS,
    '--wait',
    'with an ID: poll until the hedge is filled, failed or closed',
    ...WATCH_OPTIONS,
  ),
  examples: [
    'hedge hedges --status filled --limit 20',
    'hedge hedges hdg_01HX… --wait',
    'hedge hedges hdg_01HX… --until "status==\'filled\'" --json',
    'hedge hedges --ref DEAL-42 --json',
  ],
});

export const HISTORY = book('history', 'read', 'Closed hedges: realized P&L, carry and fees, with totals', {
  description: 'List closed hedges with realized P&L, carry and fees, with totals',
  options: [...LIST_LENGTH_OPTIONS, CLOSED_SINCE, UNTIL_DATE_OR_CONDITION, REF_FILTER],
  examples: ['hedge history', 'hedge history --ref DEAL-7', 'hedge history --json | jq "map(.net_pnl_usd) | add"'],
});

export const POSITIONS = book('positions', 'read', 'Open positions: entry, mark, P&L, carry, time to maturity', {
  description: 'Show open positions per side: entry and mark, P&L, carry, fee to close, net margin',
  options: [REF_FILTER, ...WATCH_OPTIONS],
  examples: ['hedge positions', 'hedge positions --json', 'hedge positions --watch 5 --alert-pnl -500'],
});

export const ACCOUNT = book('account', 'read', 'Balance, margin in use, exposure, unrealized P&L, headroom', {
  description: 'Show the account: balance, margin in use, exposure, unrealized P&L and headroom',
  options: WATCH_OPTIONS,
  examples: ['hedge account', 'hedge account --json | jq .available_exposure_usd', 'hedge account --watch'],
});

export const LOGIN = setup('login', 'local', 'Save a profile: base URL and API key', {
  description: 'Save a profile: base URL and API key (asked hidden on a terminal, read from stdin otherwise)',
  options: options(
    '--base-url <url>',
    'the API base address, https://…/v2 (the partner desk gives it)',
    '--ca-file <file>',
    'a PEM CA file to trust for this profile (self-signed sandboxes)',
    '--journal-url <url>',
    "the desk's shared journal store, postgres://USER@HOST:PORT/DB (password from ~/.pgpass or PGPASSWORD); `local` for this machine's file",
    '--key-command <command>',
    "take the key from a credential helper each time it is needed: a shell command whose output's first line is the key (`op read …`, `pass show …`); hedge stores the command, not the key",
    '--key-store <where>',
    'where to keep the key: `keyring` (the OS keyring; the default where one answers) or `file` (the 0600 config file; the fallback)',
    ['keyring', 'file'],
    '--move-key',
    "move the profile's stored key to the OS keyring (or, with --key-store file, back to the file); asks nothing, sends nothing",
  ),
  examples: [
    'hedge login --profile desk',
    "hedge login --profile desk --key-command 'pass show hedge/desk'",
    'hedge login --profile desk --move-key',
    'printf %s "$HEDGE_KEY" | hedge login --profile desk --journal-url postgres://desk@db.internal:5432/hedge',
    'printf %s "$HEDGE_KEY" | hedge login --profile desk --base-url https://api.example.com/partners/acme/v2',
  ],
});

export const LOGOUT = setup('logout', 'local', "Remove a profile's stored API key", {
  description: 'Remove the stored API key of a profile (the current one by default)',
  examples: ['hedge logout', 'hedge logout --profile desk'],
});

export const PROFILE_LIST = subcommand(
  'list',
  'local',
  'List profiles: name, environment, base URL, which is current',
  {
    description: 'List profiles: name, environment, base URL, redacted key, which is current',
    examples: ['hedge profile list'],
  },
);

export const PROFILE_USE = subcommand('use', 'local', 'Make a profile the current one', {
  args: [PROFILE_NAME_ARG],
  examples: ['hedge profile use desk'],
});

export const PROFILE_REMOVE = subcommand('remove', 'local', 'Delete a stored profile', {
  args: [PROFILE_NAME_ARG],
  examples: ['hedge profile remove old-desk'],
});

export const PROFILE_RESET_WIRE = subcommand('reset-wire', 'local', 'Forget the wire names learned from the server', {
  description:
    'Forget the wire names hedge learned from the server (page-size parameter, add/reduce amount) for the profile or server in use',
  options: options('--all', 'forget them for every profile and server'),
  examples: ['hedge profile reset-wire', 'hedge --profile desk profile reset-wire', 'hedge profile reset-wire --all'],
});

export const DOCTOR = setup('doctor', 'read', 'Check key, URL, clock and every read; sends no write', {
  description:
    'Check the set-up against the server: key, base URL and TLS, clock, every read, the wire it speaks, rate limits — with next steps; sends no write',
  examples: ['hedge doctor', 'hedge --profile desk doctor --json', 'hedge --demo doctor'],
});

export const WHOAMI = setup('whoami', 'read', 'The profile, environment and key in use, and whether it works', {
  description:
    'Show the profile, environment, base URL and key in use, where each came from, and whether the key works',
  options: [UNTIL_OPTION],
  examples: ['hedge whoami', 'HEDGE_PROFILE=desk hedge whoami --json'],
});

export const SHELL_VALUES = ['bash', 'zsh', 'fish'] as const;

export const COMPLETION = setup('completion', 'local', 'Print the shell completion script (bash, zsh or fish)', {
  prints: 'a shell script',
  description: 'Print the shell completion script for bash, zsh or fish',
  args: [arg('shell', 'bash, zsh or fish', SHELL_VALUES)],
  examples: [
    // Each makes its folder first: a fresh home has none of them.
    'mkdir -p ~/.local/share/bash-completion/completions && hedge completion bash > ~/.local/share/bash-completion/completions/hedge',
    'mkdir -p ~/.zfunc && hedge completion zsh > ~/.zfunc/_hedge',
    'mkdir -p ~/.config/fish/completions && hedge completion fish > ~/.config/fish/completions/hedge.fish',
  ],
});

export const SANDBOX_SERVE = subcommand('serve', 'local', 'Serve the simulator over HTTP(S) on loopback', {
  prints: "the simulator's address as environment lines",
  description: 'Serve the simulator over HTTP(S) on loopback; prints HEDGE_BASE_URL and HEDGE_API_KEY first',
  options: options(
    '--port <n>',
    'port (default: any free port)',
    '--host <host>',
    'loopback address to listen on (127.0.0.1)',
    '--tls',
    'serve HTTPS with a fresh CA (printed as NODE_EXTRA_CA_CERTS)',
    '--fill-delay <ms>',
    'time from submitted to filled (default 2000)',
    '--fail-rate <share>',
    'share of opens that fail on-chain, 0 to 1',
    '--clock-speed <x>',
    'clock speed (3600: an hour a second)',
    '--start <time>',
    'start its clock at this UTC time, not now',
    '--seed <n>',
    'seed of the price path and faults',
    '--fault-5xx <share>',
    'share of requests answered 500/503, 0 to 1',
    '--fault-429 <share>',
    'share of requests answered 429, 0 to 1',
    '--drop-after-commit <share>',
    'share of writes whose connection drops after they took effect',
    '--latency <ms>',
    'added latency per request',
    '--rate-limit <n>',
    'requests per second per key before 429',
    '--dialect <name>',
    "the server's answers where the spec is silent: reference, alpha, beta, gamma, delta or epsilon",
    SANDBOX_DIALECTS,
    '--clock-skew <seconds>',
    "run the Date header this many seconds off this machine's clock (negative: behind)",
    '--hostile-text',
    'seed names, references and messages with terminal escape sequences',
    '--view-lag <seconds>',
    'positions, history, account trail the records',
    '--record-lag <seconds>',
    'a new hedge reads as 404, unlisted, this long',
    '--several-per-side',
    'several hedges per side, in any dialect',
    '--settlement-delay <seconds>',
    'hedges settle this many seconds past maturity',
    '--day <seconds>',
    "a tenor day's length (default 86400)",
  ),
  examples: [
    'hedge sandbox serve',
    'hedge sandbox serve --port 4010 > sandbox.env & sleep 1; set -a; . ./sandbox.env; set +a',
    'hedge sandbox serve --tls --fault-5xx 0.2',
    'hedge sandbox serve --view-lag 3 --several-per-side --day 60',
  ],
});

export const JOURNAL_LIST = subcommand('list', 'read', 'List the journal of actions, newest first', {
  description: 'List the journal of actions, newest first: every write, by which profile, when, with what outcome',
  isDefault: true,
  options: options(
    '--pending',
    'only actions whose outcome is not known yet (pending, submitted, unknown)',
    '--since <when>',
    'only actions from this time: 2026-11-20, an ISO time, or 30m / 2h / 3d / 1w / 1mo ago',
    '--limit <n>',
    'at most this many (default 50)',
    REF_FILTER,
    UNTIL_OPTION,
  ),
  examples: ['hedge journal', 'hedge journal --pending', 'hedge journal --since 1d --json'],
});

export const JOURNAL_SHOW = subcommand('show', 'read', 'Show one journal entry in full', {
  description: 'Show one journal entry in full: request, idempotency key, outcome',
  options: [UNTIL_OPTION],
  args: [JOURNAL_ID],
  examples: ['hedge journal show a_mwrrf5p1'],
});

export const JOURNAL_RESOLVE = subcommand('resolve', 'local', 'Record by hand whether an action landed', {
  description: 'Record by hand whether an unresolved action landed (when hedge cannot tell); sends nothing',
  args: [JOURNAL_ID],
  options: options(
    '--landed',
    'it happened on the server: record it as done',
    '--not-landed',
    'it did not happen: set it aside (run the command again for a new action)',
  ),
  examples: ['hedge journal resolve a_mwrrf5p1 --landed', 'hedge journal resolve a_mwrrf5p1 --not-landed'],
});

export const JOURNAL_MIGRATE = subcommand('migrate', 'local', "Move this machine's journal into the team store", {
  description: "Move this machine's journal (and fallback records) into the team store; running it again adds nothing",
  examples: [
    'HEDGE_JOURNAL_URL=postgres://desk@db.internal:5432/hedge hedge journal migrate',
    'hedge journal migrate --profile desk --json',
  ],
});

/** A person's word that an action past its key's lifetime did not land: never an agent's (agent/catalogue.ts). */
const RESEND_UNPROVEN = opt(
  '--resend-unproven',
  'send it again with its key although its key may be forgotten and nothing proves it did not land (your word: had it landed, it happens twice)',
);

export const RESUME = automation('resume', 'write', 'Finish an unresolved action with its own idempotency key', {
  description: 'Finish an unresolved action from the journal with its own key (the newest one without an ID)',
  args: [
    optional(
      arg('id', 'a journal id (a_…) or a unique part of one; default: the newest unresolved action of this account'),
    ),
  ],
  options: options('--no-wait', 'return once the server answered, without waiting for the result', RESEND_UNPROVEN),
  examples: ['hedge resume', 'hedge resume a_mwrrf5p1'],
});

export const PLAN = automation('plan', 'read', 'The actions that bring the book to a target file; sends nothing', {
  description:
    'Show the actions that bring the book to a target file (CSV or JSON), their cost and checks; sends nothing',
  args: [arg('file', 'the target file (CSV: market,side,notional_usd,tenor_days[,client_reference]), or - for stdin')],
  options: [TOLERANCE, ADOPT, UNTIL_OPTION],
  // A checkout's sample target (docs/examples/); `# exit 9`: what a plan that has changes to make exits with.
  examples: [
    'hedge plan docs/examples/target.csv   # exit 9: changes to make',
    'hedge plan docs/examples/target.csv --json   # exit 9',
    'cat docs/examples/target.csv | hedge plan -   # exit 9',
  ],
});

export const APPLY = automation('apply', 'write', 'Bring the book to a target file, each action journaled', {
  description:
    'Bring the book to a target file: plan, confirm once, then each action through the journal; re-running is harmless',
  args: [arg('file', 'the target file, or - for stdin')],
  options: options(TOLERANCE, ADOPT, '--dry-run', 'the same as `hedge plan`: show, send nothing'),
  // A checkout's sample target (docs/examples/): the examples run as written from its root.
  // The sample's rows name their own references: hedges opened under others (DEAL-42, DEAL-7) are adopted by name.
  examples: [
    'hedge apply docs/examples/target.csv   # exit 3 where its sides hold hedges under other references',
    'hedge apply docs/examples/target.csv --adopt DEAL-42 --adopt DEAL-7 --yes --json',
  ],
});

// A long-running process, not an agent's tool: started by a person, cron or systemd.
export const KEEP_RUN = subcommand('run', 'local', 'Hold a target book through maturities', {
  prints: "the keeper's events (NDJSON in a pipe)",
  isDefault: true,
  description:
    'Hold the book at a target file through maturities: roll what matures, re-open what settled, report drift',
  args: [arg('file', 'the target file of plan/apply, with optional until and roll_before columns')],
  options: options(
    '--once',
    'run one cycle and exit (for cron or a systemd timer)',
    '--interval <seconds>',
    'seconds between cycles (default 60, at least 2)',
    '--converge',
    'bring a drifted side back to its target (add, reduce or close); default: report only',
    TOLERANCE,
    ADOPT,
    '--alert-cmd <command>',
    'run this shell command with each alert (started, recovered) as JSON on its stdin',
    '--alert-url <url>',
    'POST each alert (started, recovered) as JSON with a Slack-compatible text field',
    '--alert-headroom <usd>',
    "alert when a row's market capacity or the exposure headroom is below this",
    '--metrics <addr>',
    'serve Prometheus /metrics and /healthz on PORT or HOST:PORT (127.0.0.1 by default)',
    '--dry-run',
    'print what one cycle would do, and send nothing',
    '--exposures',
    'FILE is an exposures file: hold the moving target it implies (docs/exposures.md), converging within the band',
    '--policy <file>',
    'with --exposures: the policy file (JSON: ratios, band_pct, sizing, functional, netting)',
  ),
  // A checkout's sample target (docs/examples/): the examples run as written from its root.
  examples: [
    'hedge keep docs/examples/target.csv',
    'hedge keep docs/examples/target.csv --once --json',
    'hedge keep docs/examples/target.csv --interval 300 --alert-cmd "notify-desk"',
  ],
});

// Reads local state only; started by a person or a monitoring script.
export const KEEP_STATUS = subcommand(
  'status',
  'local',
  "Show this account's keeper: running, hung or dead, its rows and rolls",
  {
    description:
      "Show the keeper of this account from its heartbeat (any terminal of this user, or any machine with the team store): pid, host, since, last cycle, each row's next action, errors, rolls with their carry and fees. Exits 15 when no keeper is running (dead, hung, stopped or never started)",
    // `# exit 15`: what each prints and exits with when no keeper runs (a monitor pages on it).
    examples: [
      'hedge keep status   # exit 15 when no keeper runs',
      'hedge keep status --json   # exit 15 when none runs',
      'hedge keep status || notify-desk "the keeper is down"   # exit 15',
    ],
  },
);

export const EXPOSURES = automation(
  'exposures',
  'read',
  'Receivables and payables to a target book; cost, stress, report',
  {
    description:
      'From an exposures file (receivables and payables by due date) and a hedge-ratio policy to the target book now, its schedule of changes, the projected cost to each due date and a stress table; sends no write',
    args: [
      arg('file', 'the exposures file (CSV or JSON: id,market,type,amount,currency,due[,hedge_ratio]), or - for stdin'),
    ],
    options: options(
      '--policy <file>',
      'a policy file (JSON: ratios, band_pct, sizing, functional, netting); flags win over it',
      '--ratios <buckets>',
      'hedge ratio by days to due, e.g. 30:100,90:75,*:50 (the default)',
      '--band <pct>',
      're-size band, percent of the target (default 5)',
      '--sizing <how>',
      "USD sizing: current (today's price, the default) or fixed (the first cover's)",
      ['current', 'fixed'],
      '--functional <currency>',
      "the currency your books are in: USD (default) or the market's quote currency, e.g. NGN",
      '--no-netting',
      'cover receivables and payables of a market apart (default: net them)',
      '--fee-bps <bps>',
      'the fee per notional traded, in basis points (default: one indicative quote per market)',
      '--show <section>',
      'one section: book (default in tsv/csv), exposures, schedule, cost, stress, policy; with --report coverage, cost, effectiveness',
      ['book', 'exposures', 'schedule', 'cost', 'stress', 'policy', 'coverage', 'effectiveness'],
      '--report',
      'how the book has covered them: coverage per week, cost to date, effectiveness (from history)',
      '--html <file>',
      'with --report: also write a self-contained HTML report (charts) to this file',
    ),
    examples: [
      // The sample files of a checkout (docs/examples/): every example runs as written from its root.
      'hedge exposures docs/examples/exposures.csv',
      'hedge exposures docs/examples/exposures.csv --functional NGN --no-netting',
      'hedge exposures docs/examples/exposures.csv --show cost --format csv',
      'hedge exposures docs/examples/exposures.json --json',
      'hedge exposures docs/examples/exposures.csv --report --html cover.html',
    ],
  },
);

export const REPORT = book('report', 'read', 'P&L by day, week, month, side, tenor, market or deal; CSV, HTML', {
  description:
    'P&L by day, week, month, side, tenor, market, closed hedge or deal reference from history, with unrealized P&L; CSV; --html FILE',
  options: options(
    CLOSED_SINCE,
    UNTIL_DATE_OR_CONDITION,
    '--by <group>',
    'group by day, week, month, side, tenor, market, hedge (a line per closed hedge) or ref (a line per deal reference, across its rolls); default day',
    ['day', 'week', 'month', 'side', 'tenor', 'market', 'hedge', 'ref'],
    REF_FILTER,
    '--html <file>',
    'also write a self-contained HTML report (charts, A4 printable) to this file',
  ),
  examples: [
    'hedge report --by week',
    'hedge report --by hedge --ref DEAL-7',
    'hedge report --since 2026-11-01 --format csv > november.csv',
    'hedge report --by month --html report.html',
  ],
});

export const MATURITIES = book('maturities', 'read', 'What settles when, grouped by day, with countdowns', {
  description: 'Upcoming settlements grouped by day: market, side, notional, maturity and countdown, mark P&L, carry',
  options: options(
    '--within <duration>',
    'only hedges maturing within this long: 12h, 3d, 2w (default: all)',
    REF_FILTER,
    UNTIL_OPTION,
  ),
  examples: ['hedge maturities', 'hedge maturities --within 3d --json'],
});

export const ROLL = trading('roll', 'write', "Close a side's hedge and open it again for a new tenor", {
  description: 'Keep a side covered past its maturity: close the open hedge and open the same notional for a new tenor',
  args: [MARKET_ARG, SIDE_ARG],
  options: options(
    TENOR_OPTION,
    '--ref <client_reference>',
    "the new hedge's deal id (default: the rolled hedge's own, kept through the roll)",
    SKIP_CHECKS,
    ...WRITE_OPTIONS,
  ),
  examples: [
    'hedge roll USDTNGN buy --tenor 7',
    'hedge roll USDTNGN sell --tenor 3 --dry-run',
    'hedge roll USDTNGN buy --tenor 3 --ref DEAL-43',
  ],
});

export const MCP = setup('mcp', 'local', 'Serve the commands as MCP tools over stdio, for an AI agent', {
  prints: 'the MCP protocol (JSON-RPC over stdio)',
  description: 'Serve the commands as Model Context Protocol tools over stdio, for an AI agent',
  options: options(
    '--allow-live',
    'offer write tools on a live key too (each write then needs a confirmation token)',
    opt(
      '--root <dir>',
      'a directory plan and apply may read target files from (repeatable; default the working directory)',
      undefined,
      'repeatable',
    ),
    '--max-notional <usd>',
    'refuse a write tool call that trades more than this many USD (nothing sent)',
    '--max-daily-notional <usd>',
    "refuse a write that would take the agent's trades of the last 24 h (journal, via agent) past this many USD",
    '--markets <list>',
    'the only markets write tools may trade, comma-separated: USDTNGN,USDTKES',
  ),
  examples: [
    'hedge mcp --demo',
    'hedge mcp --profile desk --max-notional 25k --max-daily-notional 100k --markets USDTNGN',
    'hedge mcp --profile desk --root ~/books',
  ],
});

export const TOOLS = setup('tools', 'local', 'The tools an agent may call: schemas, risk tiers, errors', {
  description:
    'Describe the commands an agent may call: names, argument schemas, risk tiers and the errors each can return',
  options: options(
    '--errors',
    'print the error catalogue instead: every error code, its exit code, whether and how to retry, what to do',
  ),
  examples: ['hedge tools --json', 'hedge tools --errors --json'],
});

// Not an agent tool: agents get the typed tools, which the caps and the market allowlist govern.
export const API = automation('api', 'local', "Call any endpoint with the profile's key (as gh api)", {
  description:
    "Call any endpoint with the profile's key, as `gh api` does; prints the whole envelope; writes are journaled",
  args: [arg('path', 'relative to the base URL: /hedges, /hedges?status=filled')],
  options: options(
    '-X, --method <method>',
    'GET (default), POST, PUT, PATCH or DELETE; all but GET are journaled writes',
    ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    opt(
      '-f, --raw-field <key=value>',
      'a string parameter: query string of a GET, JSON body otherwise',
      undefined,
      'repeatable',
    ),
    opt(
      '-F, --field <key=value>',
      'a typed parameter: numbers, true, false, null, @file; key[sub]= nests',
      undefined,
      'repeatable',
    ),
    opt('-H, --header <name:value>', 'an extra request header (never Authorization)', undefined, 'repeatable'),
    '--input <file>',
    'the JSON body from this file (- for stdin); -f/-F then go in the query string',
    '--paginate',
    'GET every page of a list and print one envelope of all its rows',
    '-i, --include',
    'print the HTTP status line and the response headers before the body',
    ...WRITE_OPTIONS.slice(1),
    UNTIL_OPTION,
  ),
  examples: [
    'hedge api /markets',
    'hedge api /hedges -f status=filled -F limit=5 --query "data[].id"',
    'hedge api -X POST /hedges/close -f market=USDTNGN -f side=buy',
    'hedge api /hedges --paginate --query "length(data)"',
  ],
});

// A command whose subcommands (given with their code in cli/manifest.ts) do the work (`hedge profile list`): it runs
// nothing itself, so it is no agent's tool (tier local).
export const PROFILE = setup('profile', 'local', 'List, switch and remove stored profiles; forget learned wire names', {
  examples: ['hedge profile list', 'hedge profile use desk', 'hedge profile reset-wire'],
});

// `hedge keep FILE` runs the keeper (the default subcommand, also `hedge keep run FILE`); `hedge keep status` looks at it.
export const KEEP = automation('keep', 'local', KEEP_RUN.summary, {
  description: `${KEEP_RUN.description}; \`hedge keep status\` shows the running keeper`,
  examples: [...KEEP_RUN.examples, 'hedge keep status'],
});

export const JOURNAL = book('journal', 'local', 'The record of every action (this machine or the team store)', {
  description:
    "The record of every action (this machine's, or the team's store): list, show one, resolve one by hand, migrate",
  examples: [
    'hedge journal',
    'hedge journal --pending',
    'hedge journal show a_mwrrf5p1',
    'hedge journal resolve a_mwrrf5p1 --landed',
    'hedge journal migrate',
  ],
});

export const DEMO_RESET = subcommand(
  'reset',
  'local',
  'Start the --demo simulator afresh (deletes its state, test funds only, and its accounting records)',
  {
    examples: ['hedge demo reset'],
  },
);

export const DEMO = setup('demo', 'local', 'The --demo simulator: start it afresh', {
  examples: ['hedge demo reset'],
});

export const SANDBOX = setup('sandbox', 'local', 'Run the simulator of the API as a local server', {
  examples: ['hedge sandbox serve --port 4010'],
});

const RELATIONSHIP_ID = arg('id', 'a relationship id, as designated', 'relationship');
const ACCT_ONE = optional(arg('id', 'a relationship id (default: every relationship)', 'relationship'));
const ACCT_VALUES = opt(
  '--values <file>',
  'with an ID: cumulative fair values since designation from this CSV (date,instrument_value,hedged_item_value[,excluded_value]) instead of rates',
);
const ACCT_PERIOD = opt('--period <period>', 'a month (2026-11), a quarter (2026-Q4) or a year (2026)');
const ACCT_ENTITY = opt(
  '--entity <code>',
  "the entity whose books (a company code the entities file declares): needed where the relationships are in several entities' books",
);
const ACCT_BY = opt('--by <name>', 'who makes the record (default HEDGE_USER or user@host)');
const ACCT_AS_OF = opt(
  '--as-of <date>',
  "the last day: its month an interim period to that day (default today, the server's)",
);

export const ACCT_DESIGNATE = subcommand('designate', 'local', 'Record a relationship (hashed) and print its memo', {
  prints: 'the designation memo',
  description:
    'Record a hedging relationship (a cash-flow, fair-value or net-investment hedge) from a JSON file (append-only, hashed, in the state folder) and print its designation memo; a designation dated before today or naming closed hedges needs --recorded-late',
  args: [arg('file', 'the relationship file (JSON; its fields: docs/accounting.md)')],
  options: options(
    '--recorded-late <reason>',
    'record a designation dated before today (a relationship brought over from elsewhere): the memo says so on its first line',
    '--markdown',
    'print the memo in Markdown',
    '--html <file>',
    'also write the memo as a self-contained HTML page (no script, A4 printable)',
    ACCT_BY,
  ),
  examples: [
    'hedge acct designate docs/examples/relationship.json --recorded-late "brought over from the 2018 spreadsheet"',
  ],
});

export const ACCT_RATES = subcommand('rates', 'local', "Import, record or list a market's dated rates", {
  description:
    "Import a market's dated rates (CSV date,spot,forward,discount_factor,source; no gap, no date twice, no other market), or with --record today's mid price from the API with its source and the server's time and the carry its open hedges have accrued (a read); with --market alone, list what is recorded",
  args: [optional(arg('file', 'the rates file (CSV), or - for stdin'))],
  options: options(
    '--market <market>',
    'the market the rates are of, e.g. EURUSD or USDTNGN',
    '--quote <direction>',
    'how the FILE\'s rates read, once: "USD per EUR", "NGN per USDT" (--record takes the server\'s)',
    '--record',
    "record today's mid price of --market from the API instead of a file",
    '--correct',
    "correct the file's dates recorded already with other figures (an appended correction; needs --reason)",
    '--reason <text>',
    'with --correct: why the recorded rates are wrong',
    ACCT_BY,
  ),
  examples: [
    'hedge acct rates docs/examples/rates-eurusd.csv --market EURUSD --quote "USD per EUR"',
    'hedge acct rates docs/examples/rates-eurusd-restated.csv --market EURUSD --quote "USD per EUR" --correct --reason "the bank restated its fixing"',
  ],
});

export const ACCT_TEST = subcommand('test', 'read', 'Effectiveness per relationship and month', {
  description:
    "Test each relationship's effectiveness per period up to --as-of: the instrument's and the hedged item's cumulative changes, the offset ratio (or regression), the IFRS 9 6.5.11 lower of, the effective part to its balance (as its row of the rules table says) and the rest to P&L, the excluded part; hedge never concludes that hedge accounting applies",
  args: [ACCT_ONE],
  options: options(ACCT_AS_OF, ACCT_PERIOD, ACCT_ENTITY, ACCT_VALUES, UNTIL_OPTION),
  examples: [
    'hedge acct test --as-of 2019-02-01 --json',
    'hedge acct test EUR-SALE-1 --values docs/examples/values-eurusd.csv',
  ],
});

export const ACCT_EVENT = subcommand('event', 'local', 'Record an event: occurred, disposed, de-designated, …', {
  description:
    "Record an event of a relationship's life, appended with its date: its transaction or a net investment's disposal (a part with --share or --amount: that part of the balance reclassified), a de-designation (on its --ground), a rebalancing (IFRS 9) or the instrument's termination",
  args: [RELATIONSHIP_ID],
  options: options(
    '--occurred <date>',
    'the hedged transaction happened on this date (all that is left of it, unless --share or --amount)',
    '--disposed <date>',
    "a net investment's operation was disposed of on this date (all, unless --share)",
    '--share <share>',
    'with --occurred or --disposed: a share of it, e.g. 0.25',
    '--amount <amount>',
    'with --occurred or --disposed: an amount of the item',
    '--de-designate <date>',
    'end hedge accounting on this date (needs --reason)',
    '--ground <ground>',
    'with --de-designate: its ground (IFRS 9 needs one)',
    DE_DESIGNATION_GROUNDS,
    '--not-expected',
    'with --de-designate: the transaction is no longer expected, so the reserve goes to P&L at once',
    '--rebalance <date>',
    'IFRS 9: change the designated share of the instrument from this date (needs --ratio and --reason)',
    '--ratio <ratio>',
    'with --rebalance: the new designated share',
    '--terminate <date>',
    'the instrument was terminated and settled in cash on this date (needs --reason)',
    '--reason <text>',
    'why (a de-designation, rebalancing, termination or correction)',
    '--correct <record>',
    'replace the event of this record (hedge acct log ID) with this one; --reason says why',
    ACCT_BY,
  ),
  examples: [
    'hedge acct event EUR-SALE-1 --de-designate 2019-01-15 --ground objective-changed --reason "the retailer pays half in dollars"',
    'hedge acct event EUR-SALE-1 --occurred 2019-02-01 --share 0.5',
    'hedge acct event EUR-SALE-1 --occurred 2019-02-01 --share 0.6 --correct 5 --reason "60 % was delivered, not half"',
  ],
});

export const ACCT_LOG = subcommand('log', 'local', 'The audit trail: who made each record, when, why', {
  description:
    "The accounting records of this environment in the order they were made: who (the profile), when, what (a designation, an event, rates, an entity declared, a close, a correction) and why (a correction's reason, a late designation's); with an id, that relationship's or that market's alone",
  args: [optional(arg('id', 'a relationship id or a market (default: every record)'))],
  examples: ['hedge acct log', 'hedge acct log EUR-SALE-1 --json'],
});

export const ACCT_RESERVE = subcommand('reserve', 'read', "Each hedge's balance rolled forward", {
  description:
    "The roll-forward per relationship and period of the balance its effective part goes to (the cash-flow hedge reserve, the hedged item's adjustment or the translation reserve): open, effective, reclassified, adjustment, close (open + effective − reclassified + adjustment = close on every row), and the cost of hedging reserve's",
  args: [ACCT_ONE],
  options: [ACCT_AS_OF, ACCT_PERIOD, ACCT_ENTITY, ACCT_VALUES, UNTIL_OPTION],
  examples: ['hedge acct reserve --period 2019-Q1', 'hedge acct reserve --period 2019 --json'],
});

export const ACCT_JOURNAL = subcommand('journal', 'read', 'Balanced entries; the ERP posting file (--gl)', {
  description:
    'Balanced journal entries per relationship and period (entry, relationship, hedges, date, role, GL account, debit, credit, currency, rate and its source); with --gl the posting file an ERP imports (--format csv)',
  args: [ACCT_ONE],
  options: options(
    ACCT_AS_OF,
    ACCT_PERIOD,
    ACCT_ENTITY,
    '--accounts <file>',
    'a JSON map of each role to its GL account, e.g. {"cash_flow_hedge_reserve": "3510"}',
    '--gl',
    "the posting file an ERP imports: a line per posting with its document, period, company code (the relationship's entity), ledger and GL account (needs --accounts naming every role posted to)",
    '--ledger <name>',
    'with --gl: the ledger the lines post to (default IFRS, or USGAAP under ASC 815)',
    ACCT_VALUES,
    UNTIL_OPTION,
  ),
  examples: [
    'hedge acct journal --period 2019-02 --accounts docs/examples/gl-accounts.json',
    'hedge acct journal --format csv > entries.csv',
    'hedge acct journal --period 2019-02 --gl --accounts docs/examples/gl-accounts.json --entity US01 --format csv > postings.csv',
  ],
});

export const ACCT_CLOSE = subcommand('close', 'local', 'Close a period: its figures kept as they are', {
  description:
    "Close a period of the books: every relationship's test rows, reserve and journal entries for it are recorded, and test, reserve and journal print them as closed from then on; what later changes in it (a late rate, an event) posts adjusting entries in the first open period; refused while the period has not ended or a rate it needs is missing",
  options: options(
    '--period <period>',
    'the period to close: a month (2026-11), or a quarter (2026-Q4) or a year (2026): each of its months still open, in order',
    ACCT_ENTITY,
    opt(
      '--values <id=file>',
      'a relationship kept on fair values: ID=FILE, its cumulative values since designation (repeatable)',
      undefined,
      'repeatable',
    ),
    ACCT_BY,
  ),
  examples: [
    'hedge acct close --period 2018-10',
    'hedge acct close --period 2018-Q4 --values EUR-SALE-1=docs/examples/values-eurusd.csv',
  ],
});

export const ACCT_APPROVE = subcommand('approve', 'local', 'Approve or reject a pending record (four eyes)', {
  description:
    'Approve a record four eyes holds pending (a designation, a correction, a de-designation, a close, an entity declared, turning four eyes off) so that it counts: an approval record of its own in the same chain, by another person than the one who made it; with --reject, it never counts (the maker may withdraw their own)',
  args: [arg('record', 'the pending record’s number (hedge acct log shows it)')],
  options: options(
    '--reject',
    'reject it instead: it never counts (needs --reason)',
    '--reason <text>',
    'with --reject: why',
    ACCT_BY,
  ),
  examples: [
    'hedge acct policy --four-eyes on --by "Ada Obi"',
    'hedge acct close --period 2018-10 --by "Ada Obi"',
    'hedge acct approve 5 --by "Bola Ade"',
  ],
});

export const ACCT_POLICY = subcommand('policy', 'local', 'Four eyes: a second person approves what counts', {
  description:
    'Show the records policy, or set it: with four eyes on, a designation, a correction, a de-designation, a close and an entity declared are recorded pending and count once another person approves them (hedge acct approve); turning it off is approved the same way',
  options: options(
    '--four-eyes <on|off>',
    'turn four eyes on (at once) or off (once approved)',
    ['on', 'off'],
    ACCT_BY,
  ),
  examples: ['hedge acct policy --four-eyes on', 'hedge acct policy --json'],
});

export const ACCT_DISCLOSE = subcommand('disclose', 'read', "A period's disclosures (IFRS 7, ASC 815)", {
  description:
    "A period's hedge-accounting disclosures from one entity's books, a line per figure with its paragraph, by risk category and type of hedge (each by its row of the rules table: a cash-flow hedge's reserve, a net investment's translation reserve, a fair-value hedge's adjustment of the hedged item, never summed): IFRS 7 23B and 24A–24F (the instruments' carrying and nominal amounts and where they sit, the changes used to measure ineffectiveness, ineffectiveness and reclassifications and their lines, the reserves reconciled, the timing profile with average rates), or ASC 815's tabular disclosures",
  options: options(
    '--period <period>',
    'a month (2026-11), a quarter (2026-Q4) or a year (2026)',
    ACCT_ENTITY,
    '--accounts <file>',
    'a JSON map of each role to its GL account: the line items are named by them',
    '--html <file>',
    'also write them as a self-contained HTML page (no script, A4 printable)',
  ),
  examples: [
    'hedge acct disclose --period 2019-Q1',
    'hedge acct disclose --period 2018 --json',
    'hedge acct disclose --period 2019-Q1 --accounts docs/examples/gl-accounts.json --format csv > disclosures.csv',
    'hedge acct disclose --period 2019-Q1 --html disclosures.html',
  ],
});

export const ACCT_LIST = subcommand('list', 'local', 'Each relationship, its status and reserve', {
  description:
    "List the relationships recorded: id, entity, kind of hedge, framework, hedged item, instrument, status (designated, or how and when it ended) and the balance as its entity's last closed period left it, in its currency; with --entity, that entity's alone",
  options: options(ACCT_ENTITY),
  examples: ['hedge acct list', 'hedge acct list --entity US01 --json'],
});

export const ACCT_ENTITIES = subcommand('entities', 'local', "Declare the group's entities, or list them", {
  description:
    'Declare the group\'s entities from a JSON file ({"entities": [{"code", "name", "functional_currency", "default"}]}): each once, never edited, one of them the default that holds the relationships naming none; without a file, list those declared',
  args: [optional(arg('file', 'the entities file (JSON; its fields: docs/accounting.md)'))],
  options: options(ACCT_BY),
  examples: ['hedge acct entities docs/examples/entities.json', 'hedge acct entities --json'],
});

export const ACCT_SHOW = subcommand('show', 'local', "A relationship's memo reprinted, with its events", {
  description: "Reprint a relationship's designation memo as it was recorded, with its events since",
  args: [RELATIONSHIP_ID],
  options: options('--markdown', 'print the memo in Markdown'),
  examples: ['hedge acct show EUR-SALE-1'],
});

export const ACCT = book('acct', 'local', 'Hedge accounting: designation, effectiveness, reserve, entries', {
  description:
    'Hedge accounting for cash-flow, fair-value and net-investment hedges (IFRS 9, IAS 39, ASC 815), by entity: designate, import rates, test, roll balances forward, post balanced entries; never sends a write',
  examples: [
    'hedge acct rates docs/examples/rates-eurusd.csv --market EURUSD --quote "USD per EUR"',
    'hedge acct designate docs/examples/relationship.json --recorded-late "brought over from the 2018 spreadsheet"',
    'hedge acct test EUR-SALE-1 --as-of 2019-02-01',
    'hedge acct event EUR-SALE-1 --occurred 2019-02-01',
    'hedge acct journal --period 2019-02',
  ],
});
