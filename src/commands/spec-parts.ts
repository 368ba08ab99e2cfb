// The pieces several command declarations share (the `*.spec.ts` files beside each command): option
// and argument fragments, and the fixed values they complete. Data only: the front bundles it.
import { HEDGE_STATUSES, SIDES, TENORS } from '../domain/vocabulary.js';
import type { ArgSpec, OptionSpec } from '../runner/command-spec.js';

export const SIDE_VALUES = SIDES;
export const TENOR_VALUES: readonly string[] = TENORS.map(String);
export const STATUS_VALUES = HEDGE_STATUSES;

/** Options of every command that sends a write: how it is waited, resumed or only shown. */
export const WRITE_OPTIONS = [
  {
    flags: '--no-wait',
    key: 'wait',
    kind: 'negatable',
    description: 'return at `submitted` instead of waiting for the result',
  },
  {
    flags: '--idempotency-key <key>',
    key: 'idempotencyKey',
    kind: 'value',
    description: 'resume an earlier run whose outcome is unknown (reuses its key)',
  },
  {
    flags: '--new',
    key: 'new',
    kind: 'flag',
    description: 'start a fresh action even if the same one is unresolved in the journal',
  },
  {
    flags: '--dry-run',
    key: 'dryRun',
    kind: 'flag',
    description: 'print the exact request that would be sent, and send nothing',
  },
  { flags: '--again', key: 'again', kind: 'flag', description: 'send it even if the same write ended minutes ago' },
] as const satisfies readonly OptionSpec[];

export const SKIP_CHECKS = {
  flags: '--skip-checks',
  key: 'skipChecks',
  kind: 'flag',
  description: 'skip the pre-trade checks and let the server decide',
} as const;
export const TENOR_OPTION = {
  flags: '-t, --tenor <days>',
  key: 'tenor',
  kind: 'value',
  description: 'tenor in days: 1, 3 or 7',
  values: TENOR_VALUES,
} as const;

export const MARKET_ARG = {
  name: 'market',
  required: true,
  description: 'market, e.g. USDTNGN (from `hedge markets`)',
  values: 'market',
} as const satisfies ArgSpec;
export const SIDE_ARG = {
  name: 'side',
  required: true,
  description: 'buy or sell',
  values: SIDE_VALUES,
} as const satisfies ArgSpec;
export const notionalArg = <const W extends string>(what: W) =>
  ({ name: 'notional', required: true, description: `${what} in USD: 10000, 10_000, 10k or 1.5m` }) as const;
export const optional = <const A extends ArgSpec>(arg: A): Omit<A, 'required'> & { readonly required: false } => ({
  ...arg,
  required: false,
});

export const PROFILE_NAME_ARG = {
  name: 'name',
  required: true,
  description: 'a stored profile',
  values: 'profile',
} as const;

/** Options of the commands that can keep a view live (`--watch`). */
export const WATCH_OPTIONS = [
  {
    flags: '--watch [seconds]',
    key: 'watch',
    kind: 'optional-value',
    description: 'refresh every few seconds (default 2, at least 1); NDJSON when not a terminal',
  },
  {
    flags: '--alert-pnl <usd>',
    key: 'alertPnl',
    kind: 'value',
    description: 'with --watch: alert when net P&L is at or below this many USD (e.g. -500)',
  },
  {
    flags: '--alert-maturity <duration>',
    key: 'alertMaturity',
    kind: 'value',
    description: 'with --watch: alert when a hedge matures within this long (e.g. 6h, 1d)',
  },
  {
    flags: '--exit-on-alert',
    key: 'exitOnAlert',
    kind: 'flag',
    description: 'with --watch: end at the first alert with exit code 10',
  },
  {
    flags: '--count <n>',
    key: 'count',
    kind: 'value',
    description: 'with --watch: stop after this many refreshes (exit 0)',
  },
] as const satisfies readonly OptionSpec[];

/**
 * `--until EXPR` on every read command (runner/run-until.ts runs the command again until the condition
 * holds). On `history` and `report`, where `--until` was already the close-date bound, a value that
 * reads as a date stays that bound and anything else is a condition (no date is valid JMESPath).
 */
export const UNTIL_OPTION = {
  flags: '--until <expr>',
  key: 'until',
  kind: 'value',
  description:
    'poll until this JMESPath condition over the --json data holds, e.g. "status==\'filled\'" (exit 124 at --timeout, default 120 s)',
} as const satisfies OptionSpec;
export const UNTIL_DATE_OR_CONDITION = {
  flags: '--until <date|expr>',
  key: 'until',
  kind: 'value',
  description:
    'closed before this date (same forms as --since); anything else is a condition to poll until, as on every read',
} as const satisfies OptionSpec;

/** `--ref`: wherever a list is shown, only what carries this deal reference (the spec's client_reference). */
/** `--limit` and `--all` of the lists that page (`hedges`, `history`): hedge's own default length otherwise. */
export const LIST_LENGTH_OPTIONS = [
  {
    flags: '--limit <n>',
    key: 'limit',
    kind: 'value',
    description: "at most this many (1 to 500; default 50, across the server's pages)",
  },
  { flags: '--all', key: 'all', kind: 'flag', description: 'every one there is, page after page' },
] as const satisfies readonly OptionSpec[];

export const REF_FILTER = {
  flags: '--ref <client_reference>',
  key: 'ref',
  kind: 'value',
  description: 'only what carries this client reference (your deal id)',
} as const satisfies OptionSpec;
