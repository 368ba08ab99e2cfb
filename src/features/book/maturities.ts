// What settles when: the open hedges as dated settlements, grouped by day, from the positions list
// (mark, P&L, carry) and the hedges list (one maturity per hedge). Pure: the caller reads the
// server and hands the facts in, with the time.
import { parseDuration } from '../../core/duration.js';
import { utcDay, utcIso } from '../../core/utc-text.js';
import { rowKey } from '../../core/keep-rules.js';
import { cents } from '../../core/money.js';
import { onSide } from './positions.js';
import { recordStanding } from './book.js';
import type { PositionFacts } from '../../platform/api/wire/fields.js';
import type { Hedge } from '../../platform/api/schemas.js';

/** `--within`: 12h, 3d, 2w (also 1.5d, 1d12h: domain/duration.ts); undefined when not given. Anything else is exit 2, naming the option. */
export function parseWithin(raw: string | undefined) {
  return raw === undefined ? undefined : parseDuration(raw, '--within', 'hdw').ms;
}

/** A line of the positions list, as the tolerant reader made it. */
export type MaturityPosition = Omit<PositionFacts, 'synonymsUsed'>;

/** A hedge of the hedges list: what maturities need of the spec's Hedge. */
type MaturityHedge = Pick<
  Hedge,
  'id' | 'market' | 'side' | 'notional_usd' | 'tenor_days' | 'status' | 'maturity_at' | 'client_reference'
>;

/** One settlement to come. The JSON of `hedge maturities` is a list of these, soonest first. */
export type Maturity = ReturnType<typeof collectMaturities>['maturities'][number];

function validTime(value: string | null | undefined) {
  return typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? value : undefined;
}

/** The open hedges as settlements: the positions list says what is open and carries mark, P&L and carry; the hedges list gives each hedge's maturity. `unlisted`: live hedges the list lags behind. */
export function collectMaturities(
  positions: readonly MaturityPosition[],
  hedges: readonly MaturityHedge[],
  nowMs: number,
  withinMs?: number,
  unlisted: readonly MaturityHedge[] = [],
) {
  // A filled hedge on a listed side is active (the side model's word for its record); a position without a market is
  // the account's only market (as positions.ts reads it).
  const filled = (hedge: MaturityHedge) => recordStanding(hedge).standing === 'filled';
  const active = hedges.filter((hedge) => filled(hedge) && positions.some((position) => onSide(position, hedge)));
  let undated = 0;
  const found: Array<ReturnType<typeof ofHedge> & { day: string; maturity_at: string; matures_in_seconds: number }> =
    [];
  const settle = (maturity: string | undefined, item: ReturnType<typeof ofHedge>) => {
    if (!maturity) return (undated += 1);
    const at = Date.parse(maturity);
    found.push({
      day: utcDay(at),
      maturity_at: utcIso(at),
      matures_in_seconds: Math.round((at - nowMs) / 1000),
      ...item,
    });
  };
  // A hedge's settlement (a line no hedge record stands for is its own); with several hedges on a side the line shows only their sum, so those stay null.
  const ofHedge = (hedge: Partial<MaturityHedge>, line?: MaturityPosition, whole?: MaturityPosition) => ({
    market: hedge.market!.toUpperCase(),
    side: hedge.side!,
    hedge_id: hedge.id ?? null,
    client_reference: hedge.client_reference ?? null,
    notional_usd: whole?.notionalUsd ?? hedge.notional_usd ?? null,
    tenor_days: hedge.tenor_days ?? null,
    mark_price: line?.markPrice ?? null,
    net_pnl_usd: whole?.netPnlUsd ?? null,
    accrued_carry_usdc: whole?.accruedCarryUsdc ?? null,
  });
  for (const hedge of active) {
    const position = positions.find((candidate) => onSide(candidate, hedge))!;
    // A hedge alone on its side is the whole line.
    const whole = active.filter((other) => rowKey(other) === rowKey(hedge)).length === 1 ? position : undefined;
    settle(validTime(hedge.maturity_at) ?? validTime(whole?.maturityAt), ofHedge(hedge, position, whole));
  }
  for (const hedge of unlisted) if (filled(hedge)) settle(validTime(hedge.maturity_at), ofHedge(hedge));
  // The lines no filled hedge record stands for: settled by their own maturity, with what their hedge's record says (a close landing).
  for (const position of positions) {
    const { side, market } = position;
    if (active.some((hedge) => onSide(position, hedge))) continue;
    const record = hedges.find((hedge) => hedge.id === position.hedgeId);
    if (side === undefined || market === undefined) undated += 1;
    else
      settle(
        validTime(position.maturityAt),
        ofHedge({ ...record, market, side, id: position.hedgeId }, position, position),
      );
  }

  const maturities = found
    .filter((item) => withinMs === undefined || item.matures_in_seconds * 1000 <= withinMs)
    .sort(
      (a, b) =>
        a.matures_in_seconds - b.matures_in_seconds || a.market.localeCompare(b.market) || a.side.localeCompare(b.side),
    );
  return { maturities, undated };
}

/** Settlements (soonest first) grouped by their UTC day, in order; each day with its total notional. */
export function groupByDay(maturities: readonly Maturity[]) {
  return [...new Set(maturities.map((maturity) => maturity.day))].map((day) => {
    const settling = maturities.filter((maturity) => maturity.day === day);
    return {
      day,
      maturities: settling,
      notional_usd: settling.reduce((sum, maturity) => cents(sum + (maturity.notional_usd ?? 0)), 0),
    };
  });
}
