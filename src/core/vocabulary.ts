// The spec's fixed values, in one zod-free place: the schemas, the input checks and the command manifest (which --help loads) all read them from here.
export const SIDES = ['buy', 'sell'] as const;
export const TENORS = [1, 3, 7] as const;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
export const HEDGE_STATUSES = ['submitting', 'submitted', 'filled', 'failed', 'closed'] as const;

export type Side = (typeof SIDES)[number];
export type Tenor = (typeof TENORS)[number];
export type HedgeStatus = (typeof HEDGE_STATUSES)[number];

/** What a hedge's status alone says, the side model's table (features/book/book.ts; here so a field reads it too): being
 * opened, filled, ended (it holds nothing any more), or settling (a status hedge does not know: neither open nor ended). */
export const statusStanding = (status: string) =>
  status === 'filled'
    ? 'filled'
    : status === 'failed' || status === 'closed'
      ? 'ended'
      : HEDGE_STATUSES.includes(status as HedgeStatus)
        ? 'opening'
        : 'settling';

/** The output formats (--format), in one place for the front, the runtime and the output layer: table for people at a terminal, tsv (the default in a pipe) and csv for spreadsheets and shell scripts, json and ndjson for programs. */
export const OUTPUT_FORMATS = ['table', 'tsv', 'csv', 'json', 'ndjson'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The grounds a hedging relationship is de-designated on (`hedge acct event --ground`): the risk management objective
 * changed, the qualifying criteria are no longer met, the instrument expired or was sold (terminated, exercised), or by
 * choice (which IFRS 9 refuses); the transaction no longer expected is `--not-expected`. */
export const DE_DESIGNATION_GROUNDS = [
  'objective-changed',
  'criteria-not-met',
  'instrument-ended',
  'voluntary',
] as const;
