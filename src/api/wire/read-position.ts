// The tolerant reader of a position. The spec names one position field, `net_margin_usd`; the
// side, the notional, the hedge it belongs to and the P&L figures are "not shown", so each is read
// from the first of several plausible names (one table, below). What cannot be read is left
// undefined for the caller to fill from elsewhere (the side from the hedge, see flows/positions.ts);
// the raw record is always kept whole for display and --json.
import { SIDES, type Side } from '../../domain/vocabulary.js';
import { fieldsOf, pickField, readNumber, readString, type Fields, type Reader } from './read-fields.js';
import { showUnderKnownNames } from './unspecified.js';

/** Every name we read each "not shown" figure from, most likely first. Extend here, and only here. */
export const POSITION_FIELD_SYNONYMS = {
  side: ['side', 'direction', 'position_side', 'hedge_side'],
  market: ['market', 'symbol', 'pair'],
  notionalUsd: ['notional_usd', 'size_usd', 'notional', 'amount_usd', 'exposure_usd', 'position_usd'],
  hedgeId: ['hedge_id', 'id', 'hedge'],
  /**
   * The spec's "net P&L (price plus carry)" of a line (§2 Position, its name not shown), read by
   * `positions`, `maturities`, `watch` and `report` alike. Names that say net first; then a bare
   * `pnl_usd` / `total_pnl_usd` (the line's whole P&L: alpha and beta send the net so); the
   * "unrealized" names last — the spec says "unrealized P&L" only of the account, and a venue's
   * unrealized P&L is often the price part alone, so beside a `pnl_usd` it is the weaker reading.
   */
  netPnlUsd: [
    'net_pnl_usd',
    'net_pnl_usdc',
    'unrealized_net_pnl_usd',
    'net_unrealized_pnl_usd',
    'pnl_net_usd',
    'net_pnl',
    'pnl_usd',
    'total_pnl_usd',
    'unrealized_pnl_usd',
    'unrealised_pnl_usd',
    'upnl_usd',
    'unrealized_pnl',
  ],
  maturityAt: ['maturity_at', 'maturity', 'expires_at', 'settles_at', 'maturity_time'],
  markPrice: ['mark_price', 'mark_rate', 'mark', 'current_price'],
  entryPrice: ['entry_price', 'entry_rate', 'entry', 'avg_entry_price'],
  accruedCarryUsdc: ['accrued_carry_usdc', 'carry_accrued_usdc', 'carry_usdc', 'accrued_carry', 'funding_usdc'],
  marginUsdc: ['margin_usdc', 'collateral_usdc', 'locked_margin_usdc', 'margin'],
  grossPnlUsd: ['gross_pnl_usd', 'pnl_gross_usd', 'price_pnl_usd', 'gross_pnl'],
  closeFeeUsdc: ['close_fee_usdc', 'exit_fee_usdc', 'fee_to_close_usdc', 'close_fee'],
  units: ['units', 'qty', 'quantity'],
  openedAt: ['opened_at', 'open_time', 'created_at', 'opened'],
} as const;

export interface PositionFacts {
  side?: Side;
  market?: string;
  notionalUsd?: number;
  hedgeId?: string;
  netMarginUsd?: number;
  netPnlUsd?: number;
  maturityAt?: string;
  markPrice?: number;
  entryPrice?: number;
  accruedCarryUsdc?: number;
  /** Margin locked in the position (add and reduce show it before and after). */
  marginUsdc?: number;
  /** Shown only (the table, and --json under our names). */
  grossPnlUsd?: number;
  closeFeeUsdc?: number;
  units?: number;
  openedAt?: string;
  /** Names of the fields read under a synonym rather than our default name (for --verbose). */
  synonymsUsed: string[];
}

function pick<T>(fields: Fields, names: readonly string[], read: Reader<T>, used: string[]): T | undefined {
  const found = pickField(fields, names, read);
  if (found !== undefined && found.name !== names[0]) used.push(found.name);
  return found?.value;
}

const side = (value: unknown): Side | undefined => {
  const word = typeof value === 'string' ? value.toLowerCase() : undefined;
  return (SIDES as readonly string[]).includes(word ?? '') ? (word as Side) : undefined;
};

export function readPosition(raw: Record<string, unknown>): PositionFacts {
  const used: string[] = [];
  const names = POSITION_FIELD_SYNONYMS;
  const fields = fieldsOf(raw);
  return {
    side: pick(fields, names.side, side, used),
    market: pick(fields, names.market, readString, used)?.toUpperCase(),
    notionalUsd: pick(fields, names.notionalUsd, readNumber, used),
    hedgeId: pick(fields, names.hedgeId, readString, used),
    netMarginUsd: readNumber(raw.net_margin_usd),
    netPnlUsd: pick(fields, names.netPnlUsd, readNumber, used),
    maturityAt: pick(fields, names.maturityAt, readString, used),
    markPrice: pick(fields, names.markPrice, readNumber, used),
    entryPrice: pick(fields, names.entryPrice, readNumber, used),
    accruedCarryUsdc: pick(fields, names.accruedCarryUsdc, readNumber, used),
    marginUsdc: pick(fields, names.marginUsdc, readNumber, used),
    grossPnlUsd: pick(fields, names.grossPnlUsd, readNumber, used),
    closeFeeUsdc: pick(fields, names.closeFeeUsdc, readNumber, used),
    units: pick(fields, names.units, readNumber, used),
    openedAt: pick(fields, names.openedAt, readString, used),
    synonymsUsed: used,
  };
}

/**
 * A position in hedge's one shape, for people and for `--json` (docs/output.md): each fact read
 * under another name (`direction`, `size_usd`) or taken from its hedge (a position with no side)
 * under our name, the first of its synonyms; every other field as the server sent it
 * (showUnderKnownNames: nothing it sent is lost). TSV, CSV and --raw keep the raw record.
 */
export function positionInOneShape(
  raw: Record<string, unknown>,
  facts: Omit<PositionFacts, 'synonymsUsed'>,
): Record<string, unknown> {
  const known = (
    Object.entries(POSITION_FIELD_SYNONYMS) as Array<[keyof typeof POSITION_FIELD_SYNONYMS, readonly string[]]>
  ).map(([fact, synonyms]) => ({
    known: synonyms[0]!,
    value: facts[fact],
    synonyms,
  }));
  return showUnderKnownNames(raw, known);
}
