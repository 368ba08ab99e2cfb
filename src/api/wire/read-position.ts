// The tolerant reader of a position. The spec names one position field, `net_margin_usd`; the
// side, the notional, the hedge it belongs to and the P&L figures are "not shown", so each is read
// from the first of several plausible names (one table, below). What cannot be read is left
// undefined for the caller to fill from elsewhere (the side from the hedge, see flows/positions.ts);
// the raw record is always kept whole for display and --json.
import { SIDES, type Side } from '../../domain/vocabulary.js';
import { showUnderKnownNames } from './unspecified.js';

/** Every name we read each "not shown" figure from, most likely first. Extend here, and only here. */
export const POSITION_FIELD_SYNONYMS = {
  side: ['side', 'direction', 'position_side', 'hedge_side'],
  market: ['market', 'symbol', 'pair'],
  notionalUsd: ['notional_usd', 'size_usd', 'notional', 'amount_usd', 'exposure_usd', 'position_usd'],
  hedgeId: ['hedge_id', 'id', 'hedge'],
  netPnlUsd: ['net_pnl_usd', 'pnl_usd', 'pnl_net_usd', 'unrealized_pnl_usd', 'net_pnl', 'total_pnl_usd'],
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

export function numberOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

function pick<T>(raw: Record<string, unknown>, names: readonly string[], read: (value: unknown) => T | undefined, used: string[]): T | undefined {
  for (const [index, name] of names.entries()) {
    const value = read(raw[name]);
    if (value !== undefined) {
      if (index > 0) used.push(name);
      return value;
    }
  }
  return undefined;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const side = (value: unknown): Side | undefined => {
  const word = typeof value === 'string' ? value.toLowerCase() : undefined;
  return (SIDES as readonly string[]).includes(word ?? '') ? (word as Side) : undefined;
};

export function readPosition(raw: Record<string, unknown>): PositionFacts {
  const used: string[] = [];
  const names = POSITION_FIELD_SYNONYMS;
  return {
    side: pick(raw, names.side, side, used),
    market: pick(raw, names.market, text, used)?.toUpperCase(),
    notionalUsd: pick(raw, names.notionalUsd, numberOf, used),
    hedgeId: pick(raw, names.hedgeId, text, used),
    netMarginUsd: numberOf(raw.net_margin_usd),
    netPnlUsd: pick(raw, names.netPnlUsd, numberOf, used),
    maturityAt: pick(raw, names.maturityAt, text, used),
    markPrice: pick(raw, names.markPrice, numberOf, used),
    entryPrice: pick(raw, names.entryPrice, numberOf, used),
    accruedCarryUsdc: pick(raw, names.accruedCarryUsdc, numberOf, used),
    marginUsdc: pick(raw, names.marginUsdc, numberOf, used),
    grossPnlUsd: pick(raw, names.grossPnlUsd, numberOf, used),
    closeFeeUsdc: pick(raw, names.closeFeeUsdc, numberOf, used),
    units: pick(raw, names.units, numberOf, used),
    openedAt: pick(raw, names.openedAt, text, used),
    synonymsUsed: used,
  };
}

/**
 * A position in hedge's one shape, for people and for `--json` (docs/output.md): each fact read
 * under another name (`direction`, `size_usd`) or taken from its hedge (a position with no side)
 * under our name, the first of its synonyms; every other field as the server sent it
 * (showUnderKnownNames: nothing it sent is lost). TSV, CSV and --raw keep the raw record.
 */
export function positionInOneShape(raw: Record<string, unknown>, facts: Omit<PositionFacts, 'synonymsUsed'>): Record<string, unknown> {
  const known = (Object.entries(POSITION_FIELD_SYNONYMS) as Array<[keyof typeof POSITION_FIELD_SYNONYMS, readonly string[]]>).map(([fact, synonyms]) => ({
    known: synonyms[0]!,
    value: facts[fact],
    synonyms,
  }));
  return showUnderKnownNames(raw, known);
}
