// The command tree, declared as data: commander is built from it (src/cli.ts), the completion
// files are checked against it (test), and each command's code is imported only when it runs.
import { HEDGE_STATUSES, SIDES, TENORS } from '../api/vocabulary.js';
import type { CommandContext } from '../context.js';

export const SIDE_VALUES = SIDES;
export const TENOR_VALUES: readonly string[] = TENORS.map(String);
export const STATUS_VALUES = HEDGE_STATUSES;
export const SHELL_VALUES = ['bash', 'zsh', 'fish'] as const;

export interface CommandInput {
  /** Positional arguments by name, as typed (validation is the command's job). */
  args: Record<string, string | undefined>;
  /** The command's own options (camelCase, as commander names them). */
  options: Record<string, unknown>;
}

export interface CommandModule {
  /** Resolves to the exit code (0 when nothing is returned). */
  run(ctx: CommandContext, input: CommandInput): Promise<number | void>;
}

export interface ArgSpec {
  name: string;
  required: boolean;
  description: string;
  /** Fixed values, for help and completion. `profile` completes stored profile names. */
  values?: readonly string[] | 'profile' | 'market';
}

export interface OptionSpec {
  flags: string;
  description: string;
  values?: readonly string[] | 'profile';
}

export interface CommandSpec {
  name: string;
  summary: string;
  args?: ArgSpec[];
  options?: OptionSpec[];
  examples: string[];
  subcommands?: CommandSpec[];
  load?: () => Promise<CommandModule>;
}

const waitOptions: OptionSpec[] = [
  { flags: '--no-wait', description: 'return at `submitted` instead of waiting for the result' },
  { flags: '--idempotency-key <key>', description: 'resume an earlier run whose outcome is unknown (reuses its key)' },
  { flags: '--dry-run', description: 'print the exact request that would be sent, and send nothing' },
];

const marketArg: ArgSpec = { name: 'market', required: true, description: 'market, e.g. USDTNGN (from `hedge markets`)', values: 'market' };
const sideArg: ArgSpec = { name: 'side', required: true, description: 'buy or sell', values: SIDE_VALUES };
const notionalArg = (what: string): ArgSpec => ({
  name: 'notional',
  required: true,
  description: `${what} in USD: 10000, 10_000, 10k or 1.5m`,
});

export const GLOBAL_OPTIONS: OptionSpec[] = [
  { flags: '--json', description: 'print one JSON document on stdout (the API data); messages go to stderr' },
  { flags: '--profile <name>', description: 'use this stored profile (default: HEDGE_PROFILE, then the current one)', values: 'profile' },
  { flags: '--demo', description: 'run against a local simulator with a built-in test key (no account needed)' },
  { flags: '-y, --yes', description: 'confirm state-changing commands on live keys without asking' },
  { flags: '--no-input', description: 'never prompt; missing arguments are an error' },
  { flags: '--no-color', description: 'no colour (also NO_COLOR=1 or TERM=dumb)' },
  { flags: '--verbose', description: 'log each HTTP request to stderr (keys redacted)' },
  { flags: '--timeout <seconds>', description: 'give up after this long, waits included (exit 7 while waiting, 5 on a request)' },
  { flags: '--request-timeout <seconds>', description: 'bound each HTTP attempt (default 15)' },
];

export const COMMANDS: CommandSpec[] = [
  {
    name: 'markets',
    summary: 'List the markets open to the account: status, price, capacity and daily carry per side',
    examples: ['hedge markets', 'hedge markets --json | jq ".[].market"'],
    load: () => import('./markets.js'),
  },
  {
    name: 'price',
    summary: 'Show the indicative mid price of a market (every listed market without one)',
    args: [{ ...marketArg, required: false }],
    examples: ['hedge price USDTNGN', 'hedge price --json'],
    load: () => import('./price.js'),
  },
  {
    name: 'quote',
    summary: 'Quote a hedge: execution price, impact, carry, margin, fee and maturity (reserves nothing)',
    args: [marketArg, sideArg, notionalArg('size')],
    options: [{ flags: '-t, --tenor <days>', description: 'tenor in days: 1, 3 or 7', values: TENOR_VALUES }],
    examples: ['hedge quote USDTNGN buy 10000 --tenor 3', 'hedge quote USDTNGN sell 1.5m --tenor 7 --json'],
    load: () => import('./quote.js'),
  },
  {
    name: 'open',
    summary: 'Open a hedge and wait for the fill (no arguments on a terminal starts a wizard)',
    args: [
      { ...marketArg, required: false },
      { ...sideArg, required: false },
      { ...notionalArg('size'), required: false },
    ],
    options: [
      { flags: '-t, --tenor <days>', description: 'tenor in days: 1, 3 or 7', values: TENOR_VALUES },
      { flags: '--ref <client_reference>', description: "your own deal id, to find the hedge later with `hedge hedges --ref`" },
      { flags: '--skip-checks', description: 'skip the pre-trade checks and let the server decide' },
      ...waitOptions,
    ],
    examples: [
      'hedge open USDTNGN buy 10000 --tenor 3 --ref DEAL-42',
      'hedge open',
      'hedge open USDTNGN sell 25k --tenor 7 --no-wait --json',
    ],
    load: () => import('./open.js'),
  },
  {
    name: 'add',
    summary: 'Add notional to the open hedge on a market and side (same maturity)',
    args: [marketArg, sideArg, notionalArg('notional to add')],
    options: [{ flags: '--skip-checks', description: 'skip the pre-trade checks and let the server decide' }, ...waitOptions],
    examples: ['hedge add USDTNGN buy 5000'],
    load: () => import('./add.js'),
  },
  {
    name: 'reduce',
    summary: 'Remove notional from the open hedge on a market and side (margin scales down with it)',
    args: [marketArg, sideArg, notionalArg('notional to remove')],
    options: [...waitOptions],
    examples: ['hedge reduce USDTNGN buy 2500'],
    load: () => import('./reduce.js'),
  },
  {
    name: 'close',
    summary: 'Close the position on a market and side, and show what it returned',
    args: [marketArg, sideArg],
    options: [...waitOptions],
    examples: ['hedge close USDTNGN buy', 'hedge close USDTNGN sell --yes --json'],
    load: () => import('./close.js'),
  },
  {
    name: 'hedges',
    summary: 'List hedges, newest first, or show one hedge in full',
    args: [{ name: 'id', required: false, description: 'a hedge id (hdg_…) to show in full' }],
    options: [
      { flags: '--status <status>', description: 'only hedges in this status', values: STATUS_VALUES },
      { flags: '--ref <client_reference>', description: 'only hedges with this client reference' },
      { flags: '--limit <n>', description: 'at most this many (1 to 500)' },
      { flags: '--wait', description: 'with an ID: poll until the hedge is filled, failed or closed' },
    ],
    examples: ['hedge hedges --status filled --limit 20', 'hedge hedges hdg_01HX… --wait', 'hedge hedges --ref DEAL-42 --json'],
    load: () => import('./hedges.js'),
  },
  {
    name: 'history',
    summary: 'List closed hedges with realized P&L, carry and fees, with totals',
    options: [{ flags: '--limit <n>', description: 'at most this many (1 to 500)' }],
    examples: ['hedge history', 'hedge history --json | jq "map(.net_pnl_usd) | add"'],
    load: () => import('./history.js'),
  },
  {
    name: 'positions',
    summary: 'Show open positions per side: entry and mark, P&L, carry, fee to close, net margin',
    examples: ['hedge positions', 'hedge positions --json'],
    load: () => import('./positions.js'),
  },
  {
    name: 'account',
    summary: 'Show the account: balance, margin in use, exposure, unrealized P&L and headroom',
    examples: ['hedge account', 'hedge account --json | jq .available_exposure_usd'],
    load: () => import('./account.js'),
  },
  {
    name: 'login',
    summary: 'Save a profile: base URL and API key (asked hidden on a terminal, read from stdin otherwise)',
    options: [
      { flags: '--base-url <url>', description: 'the API base address, https://…/v2 (the partner desk gives it)' },
      { flags: '--ca-file <file>', description: 'a PEM CA file to trust for this profile (self-signed sandboxes)' },
    ],
    examples: [
      'hedge login --profile desk',
      'printf %s "$HEDGE_KEY" | hedge login --profile desk --base-url https://api.example.com/partners/acme/v2',
    ],
    load: () => import('./login.js'),
  },
  {
    name: 'logout',
    summary: 'Remove the stored API key of a profile (the current one by default)',
    examples: ['hedge logout', 'hedge logout --profile desk'],
    load: () => import('./logout.js'),
  },
  {
    name: 'profile',
    summary: 'List, switch and remove stored profiles',
    examples: ['hedge profile list', 'hedge profile use desk'],
    subcommands: [
      {
        name: 'list',
        summary: 'List profiles: name, environment, base URL, redacted key, which is current',
        examples: ['hedge profile list'],
        load: () => import('./profile-list.js'),
      },
      {
        name: 'use',
        summary: 'Make a profile the current one',
        args: [{ name: 'name', required: true, description: 'a stored profile', values: 'profile' }],
        examples: ['hedge profile use desk'],
        load: () => import('./profile-use.js'),
      },
      {
        name: 'remove',
        summary: 'Delete a stored profile',
        args: [{ name: 'name', required: true, description: 'a stored profile', values: 'profile' }],
        examples: ['hedge profile remove old-desk'],
        load: () => import('./profile-remove.js'),
      },
    ],
  },
  {
    name: 'whoami',
    summary: 'Show the profile, environment, base URL and key in use, where each came from, and whether the key works',
    examples: ['hedge whoami', 'HEDGE_PROFILE=desk hedge whoami --json'],
    load: () => import('./whoami.js'),
  },
  {
    name: 'completion',
    summary: 'Print the shell completion script for bash, zsh or fish',
    args: [{ name: 'shell', required: true, description: 'bash, zsh or fish', values: SHELL_VALUES }],
    examples: [
      'hedge completion bash > ~/.local/share/bash-completion/completions/hedge',
      'hedge completion zsh > "${fpath[1]}/_hedge"',
      'hedge completion fish > ~/.config/fish/completions/hedge.fish',
    ],
    load: () => import('./completion.js'),
  },
  {
    name: 'sandbox',
    summary: 'Run the local simulator of the API',
    examples: ['hedge sandbox serve --port 4010'],
    subcommands: [
      {
        name: 'serve',
        summary: 'Serve the simulator over HTTP(S) on loopback; prints HEDGE_BASE_URL and HEDGE_API_KEY first',
        options: [
          { flags: '--port <n>', description: 'port (default: any free port)' },
          { flags: '--host <host>', description: 'loopback address to listen on (default 127.0.0.1)' },
          { flags: '--tls', description: 'serve HTTPS with a fresh CA (printed as NODE_EXTRA_CA_CERTS)' },
          { flags: '--fill-delay <ms>', description: 'time from submitted to filled (default 2000)' },
          { flags: '--fail-rate <share>', description: 'share of opens that fail on-chain, 0 to 1' },
          { flags: '--clock-speed <x>', description: 'sandbox clock speed (e.g. 3600: an hour per second)' },
          { flags: '--seed <n>', description: 'seed of the price path and faults' },
          { flags: '--fault-5xx <share>', description: 'share of requests answered 500/503, 0 to 1' },
          { flags: '--fault-429 <share>', description: 'share of requests answered 429, 0 to 1' },
          { flags: '--drop-after-commit <share>', description: 'share of writes whose connection drops after they took effect' },
          { flags: '--latency <ms>', description: 'added latency per request' },
          { flags: '--rate-limit <n>', description: 'requests per second per key before 429' },
        ],
        examples: [
          'hedge sandbox serve',
          'hedge sandbox serve --port 4010 > sandbox.env & sleep 1; set -a; . ./sandbox.env; set +a',
          'hedge sandbox serve --tls --fault-5xx 0.2',
        ],
        load: () => import('./sandbox-serve.js'),
      },
    ],
  },
];
