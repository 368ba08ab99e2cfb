// Tolerant reading of closed-hedge records (GET /hedges/history); an open position's P&L is
// read-position.ts's, one table for every command.
// The spec names only `net_pnl_usd`; every other field name is "not shown", so each fact is looked
// up under a list of plausible names, kept in one table here. Names match whatever their spelling
// style (`closed_at`, `closedAt`, `CLOSED-AT` are one name) and the first name with a usable value
// wins, so the order of each list is the order of preference (read-fields.ts, the one kit).
import { InvalidResponseError } from '../../errors.js';
import { fieldsOf, firstField, readNumber, readText, type Reader } from './read-fields.js';
import { showUnderKnownNames } from './unspecified.js';
import type { HistoryFacts } from '../../domain/wire.js';
import { toAccountSide } from '../../domain/money.js';

/** A closed hedge as the rules reason about it; defined in domain/, read here. */
export type { HistoryFacts };

type Fact = keyof HistoryFacts;

/**
 * Names a closed-hedge record may give each fact, most likely first. The first of each list is what
 * our simulator serves (src/api/wire-contract.md, src/sandbox/views.ts).
 */
export const HISTORY_FIELD_SYNONYMS: Readonly<Record<Fact, readonly string[]>> = {
  netPnlUsd: [
    'net_pnl_usd',
    'net_pnl_usdc',
    'net_pnl',
    'net_realized_pnl_usd',
    'realized_net_pnl_usd',
    'pnl_net_usd',
    'net_profit_usd',
  ],
  grossPnlUsd: [
    'gross_pnl_usd',
    'gross_pnl_usdc',
    'realized_pnl_usd',
    'realized_gross_pnl_usd',
    'gross_realized_pnl_usd',
    'pnl_gross_usd',
    'gross_pnl',
    'price_pnl_usd',
  ],
  carryUsd: [
    'carry_usdc',
    'carry_paid_usdc',
    'carry_usd',
    'carry_paid_usd',
    'total_carry_usdc',
    'accrued_carry_usdc',
    'carry',
    'funding_usdc',
    'funding_usd',
  ],
  feesUsd: [
    'fees_usdc',
    'fees_usd',
    'fee_usd',
    'fee_usdc',
    'total_fees_usdc',
    'total_fees_usd',
    'fees_paid_usdc',
    'fees',
    'fee',
  ],
  notionalUsd: ['notional_usd', 'notional_usdc', 'notional', 'size_usd', 'size_usdc', 'amount_usd', 'size'],
  side: ['side', 'direction', 'position_side'],
  tenorDays: ['tenor_days', 'tenor', 'tenor_d', 'duration_days'],
  market: ['market', 'symbol', 'pair', 'instrument'],
  hedgeId: ['hedge_id', 'id', 'hedge', 'position_id'],
  clientReference: ['client_reference', 'client_ref', 'reference', 'clientReference'],
  entryPrice: ['entry_price', 'entry_rate', 'open_price', 'struck_rate', 'avg_entry_price'],
  exitPrice: ['exit_price', 'exit_rate', 'close_price', 'settlement_price', 'settlement_rate'],
  openedAt: ['opened_at', 'open_time', 'opened_time', 'entry_time', 'entered_at', 'created_at', 'opened'],
  closedAt: [
    'closed_at',
    'close_time',
    'closed_time',
    'exit_time',
    'exited_at',
    'settled_at',
    'settlement_time',
    'closed',
  ],
};

/**
 * Names a closed-hedge record may give how it ended (`closed`, `settled`): no rule reads it, but it
 * is a name of docs/output.md, so the one shape shows it under ours (historyRecordForPeople).
 */
export const CLOSE_REASON_SYNONYMS: readonly string[] = [
  'close_reason',
  'exit_reason',
  'reason',
  'closed_reason',
  'closure_reason',
];

/** A nested `{id: …}` (e.g. `hedge: {id}`) is read as its id. */
function readId(value: unknown): string | undefined {
  if (value && typeof value === 'object' && !Array.isArray(value))
    return readText((value as Record<string, unknown>).id);
  return readText(value);
}

// `long`/`short` are read as buy/sell: buying USDT against the quote currency is the long side.
const SIDE_WORDS: Record<string, 'buy' | 'sell'> = { buy: 'buy', long: 'buy', sell: 'sell', short: 'sell' };

function readSide(value: unknown): 'buy' | 'sell' | undefined {
  return typeof value === 'string' ? SIDE_WORDS[value.trim().toLowerCase()] : undefined;
}

/** `7`, `"7"`, `"7d"`, `"7 days"`. */
function readTenor(value: unknown): number | undefined {
  const text =
    typeof value === 'string'
      ? value
          .trim()
          .toLowerCase()
          .replace(/\s*d(ays?)?$/, '')
      : value;
  const days = readNumber(text);
  return days !== undefined && Number.isInteger(days) && days > 0 ? days : undefined;
}

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const HAS_ZONE = /(Z|[+-]\d{2}:?\d{2})$/i;
// Epoch numbers under this are seconds, over it milliseconds (1e11 s is the year 5138).
const EPOCH_SECONDS_BELOW = 1e11;

/**
 * An ISO 8601 timestamp (the spec: UTC; one without a zone is read as UTC, never as local time)
 * or an epoch number (or numeric string) in seconds or milliseconds → normalised ISO string.
 */
export function readTimestamp(value: unknown): string | undefined {
  let ms: number | undefined;
  const epoch = readNumber(value);
  if (epoch !== undefined) {
    ms = Math.abs(epoch) < EPOCH_SECONDS_BELOW ? epoch * 1000 : epoch;
  } else if (typeof value === 'string' && ISO_TIMESTAMP.test(value.trim())) {
    const text = value.trim().replace(' ', 'T');
    const zoned = text.length === 10 || HAS_ZONE.test(text) ? text : `${text}Z`;
    ms = Date.parse(zoned);
  }
  if (ms === undefined || !Number.isFinite(ms)) return undefined;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

const FACT_READERS: { [F in Fact]-?: Reader<NonNullable<HistoryFacts[F]>> } = {
  netPnlUsd: readNumber,
  grossPnlUsd: readNumber,
  carryUsd: readNumber,
  feesUsd: readNumber,
  notionalUsd: readNumber,
  side: readSide,
  tenorDays: readTenor,
  market: readText,
  hedgeId: readId,
  clientReference: readText,
  entryPrice: readNumber,
  exitPrice: readNumber,
  openedAt: readTimestamp,
  closedAt: readTimestamp,
};

/**
 * One closed-hedge record → its facts. Facts that cannot be found are left out (unknown), never
 * guessed as 0. A record without a net P&L is off the contract (the spec names `net_pnl_usd`).
 */
export function readHistoryRecord(raw: Record<string, unknown>): HistoryFacts {
  const facts: Partial<Record<Fact, unknown>> = {};
  const fields = fieldsOf(raw);
  for (const fact of Object.keys(FACT_READERS) as Fact[]) {
    const value = firstField(fields, HISTORY_FIELD_SYNONYMS[fact], FACT_READERS[fact] as Reader<unknown>);
    if (value !== undefined) facts[fact] = value;
  }
  // The rules reason on the account's side: the server's positive carry and fees are paid.
  for (const fact of ['carryUsd', 'feesUsd'] as const)
    if (typeof facts[fact] === 'number') facts[fact] = toAccountSide(facts[fact]);
  if (facts.netPnlUsd === undefined) {
    const id = typeof facts.hedgeId === 'string' ? ` (${facts.hedgeId})` : '';
    throw new InvalidResponseError(`A closed-hedge record${id} has no net P&L (net_pnl_usd).`, {
      endpoint: 'GET /hedges/history',
      status: 200,
      hint: 'The P&L report needs net_pnl_usd on every closed hedge; see the raw records with `hedge history --json`.',
    });
  }
  return facts as HistoryFacts;
}

/**
 * The hedge a closed-hedge record is of, under any of its names (`hedge_id`, alpha's `hedge`,
 * beta's `id`), or undefined: a lookup of one hedge's record must not see only our own name.
 */
export function historyHedgeId(raw: Record<string, unknown>): string | undefined {
  return firstField(raw, HISTORY_FIELD_SYNONYMS.hedgeId, readId);
}

/**
 * A closed-hedge record in hedge's one shape, for the human table and for `--json`: each fact read
 * under another name (`hedge`, `direction`, `size_usd`) shown under ours, the first of its
 * synonyms; every other field as the server sent it (showUnderKnownNames: nothing it sent is
 * lost). TSV, CSV and --raw keep the record as sent.
 */
export function historyRecordForPeople(raw: Record<string, unknown>): Record<string, unknown> {
  const fields = fieldsOf(raw);
  const facts = (Object.keys(FACT_READERS) as Fact[]).map((fact) => ({
    known: HISTORY_FIELD_SYNONYMS[fact][0]!,
    value: firstField(fields, HISTORY_FIELD_SYNONYMS[fact], FACT_READERS[fact] as Reader<unknown>),
    synonyms: HISTORY_FIELD_SYNONYMS[fact],
  }));
  facts.push({
    known: CLOSE_REASON_SYNONYMS[0]!,
    value: firstField(fields, CLOSE_REASON_SYNONYMS, readText),
    synonyms: CLOSE_REASON_SYNONYMS,
  });
  return showUnderKnownNames(raw, facts);
}
