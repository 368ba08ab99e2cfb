// What settles when: the open hedges as dated settlements, grouped by day, from the positions list
// (mark, P&L, carry) and the hedges list (one maturity per hedge). Pure: the caller reads the
// server and hands the facts in, with the time.
import { parseDuration } from '../../core/duration.js';
import type { Side } from '../../core/vocabulary.js';
import { utcDay } from '../../core/utc-text.js';
import { sideKey } from '../../core/markets.js';
import { cents } from '../../core/money.js';

/** `--within`: 12h, 3d, 2w (also 1.5d, 1d12h: domain/duration.ts); undefined when not given. Anything else is exit 2, naming the option. */
export function parseWithin(raw: string | undefined): number | undefined {
  return raw === undefined ? undefined : parseDuration(raw, '--within', 'hdw').ms;
}

/** A line of the positions list, as the tolerant reader made it (api/wire/fields.ts). */
export interface MaturityPosition {
  market?: string;
  side?: Side;
  hedgeId?: string;
  notionalUsd?: number;
  maturityAt?: string;
  markPrice?: number;
  netPnlUsd?: number;
  accruedCarryUsdc?: number;
}

/** A hedge of the hedges list (the spec's Hedge; only what maturities need). */
export interface MaturityHedge {
  id: string;
  market: string;
  side: Side;
  notional_usd: number;
  tenor_days?: number;
  status: string;
  maturity_at?: string | null;
  client_reference?: string | null;
}

/** One settlement to come. The JSON of `hedge maturities` is a list of these, soonest first. */
export interface Maturity {
  day: string;
  maturity_at: string;
  matures_in_seconds: number;
  market: string;
  side: Side;
  hedge_id: string | null;
  client_reference: string | null;
  notional_usd: number | null;
  tenor_days: number | null;
  mark_price: number | null;
  net_pnl_usd: number | null;
  accrued_carry_usdc: number | null;
}

export interface MaturityDay {
  day: string;
  maturities: Maturity[];
  notional_usd: number;
}

export interface CollectedMaturities {
  maturities: Maturity[];
  undated: number;
}

function validTime(value: string | null | undefined) {
  return typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? value : undefined;
}

/**
 * The open hedges as settlements: the positions list says what is open and carries mark, P&L and
 * carry; the hedges list gives each hedge's maturity. `unlisted`: live hedges the list lags behind.
 */
export function collectMaturities(
  positions: readonly MaturityPosition[],
  hedges: readonly MaturityHedge[],
  nowMs: number,
  withinMs?: number,
  unlisted: readonly MaturityHedge[] = [],
): CollectedMaturities {
  // A position without a market is the account's only market (as flows/positions.ts reads it).
  const positionFor = (market: string, side: Side): MaturityPosition | undefined =>
    positions.find(
      (position) =>
        position.side === side && (position.market === undefined || position.market === market.toUpperCase()),
    );
  const active = hedges.filter(
    (hedge) => hedge.status === 'filled' && positionFor(hedge.market, hedge.side) !== undefined,
  );
  const hedgesBySide = new Map<string, MaturityHedge[]>();
  for (const hedge of active) {
    const key = sideKey(hedge.market, hedge.side);
    hedgesBySide.set(key, [...(hedgesBySide.get(key) ?? []), hedge]);
  }

  const found: Settlement[] = [];
  let undated = 0;
  for (const hedge of active) {
    const position = positionFor(hedge.market, hedge.side)!;
    const alone = hedgesBySide.get(sideKey(hedge.market, hedge.side))!.length === 1;
    const maturity = validTime(hedge.maturity_at) ?? (alone ? validTime(position.maturityAt) : undefined);
    if (!maturity) {
      undated += 1;
      continue;
    }
    found.push(hedgeSettlement(hedge, maturity, { position, alone }));
  }
  for (const more of [unlistedSettlements(unlisted), linesStandingAlone(positions, active)]) {
    found.push(...more.found);
    undated += more.undated;
  }

  const maturities = found
    .map((item): Maturity => {
      const at = Date.parse(item.maturity_at);
      return {
        day: utcDay(at),
        maturity_at: new Date(at).toISOString(),
        matures_in_seconds: Math.round((at - nowMs) / 1000),
        ...withoutTime(item),
      };
    })
    .filter((item) => withinMs === undefined || item.matures_in_seconds * 1000 <= withinMs)
    .sort(
      (a, b) =>
        a.matures_in_seconds - b.matures_in_seconds || a.market.localeCompare(b.market) || a.side.localeCompare(b.side),
    );
  return { maturities, undated };
}

type Settlement = Omit<Maturity, 'day' | 'matures_in_seconds'>;

/** A hedge's settlement; with several hedges on a side the line shows only their sum, so those stay null. */
function hedgeSettlement(
  hedge: MaturityHedge,
  maturity: string,
  line?: { position: MaturityPosition; alone: boolean },
) {
  const whole = line?.alone === true ? line.position : undefined;
  return {
    maturity_at: maturity,
    market: hedge.market.toUpperCase(),
    side: hedge.side,
    hedge_id: hedge.id,
    client_reference: hedge.client_reference ?? null,
    notional_usd: whole?.notionalUsd ?? hedge.notional_usd,
    tenor_days: hedge.tenor_days ?? null,
    mark_price: line?.position.markPrice ?? null,
    net_pnl_usd: whole?.netPnlUsd ?? null,
    accrued_carry_usdc: whole?.accruedCarryUsdc ?? null,
  };
}

function unlistedSettlements(unlisted: readonly MaturityHedge[]): { found: Settlement[]; undated: number } {
  const found: Settlement[] = [];
  let undated = 0;
  for (const hedge of unlisted) {
    if (hedge.status !== 'filled') continue;
    const maturity = validTime(hedge.maturity_at);
    if (!maturity) {
      undated += 1;
      continue;
    }
    found.push(hedgeSettlement(hedge, maturity));
  }
  return { found, undated };
}

function linesStandingAlone(
  positions: readonly MaturityPosition[],
  active: readonly MaturityHedge[],
): { found: Settlement[]; undated: number } {
  const found: Settlement[] = [];
  let undated = 0;
  for (const position of positions) {
    if (position.side === undefined) {
      undated += 1;
      continue;
    }
    const side = position.side;
    if (
      active.some(
        (hedge) =>
          hedge.side === side && (position.market === undefined || hedge.market.toUpperCase() === position.market),
      )
    )
      continue;
    const maturity = validTime(position.maturityAt);
    if (!maturity || position.market === undefined) {
      undated += 1;
      continue;
    }
    found.push({
      maturity_at: maturity,
      market: position.market,
      side,
      hedge_id: position.hedgeId ?? null,
      client_reference: null,
      notional_usd: position.notionalUsd ?? null,
      tenor_days: null,
      mark_price: position.markPrice ?? null,
      net_pnl_usd: position.netPnlUsd ?? null,
      accrued_carry_usdc: position.accruedCarryUsdc ?? null,
    });
  }
  return { found, undated };
}

function withoutTime(item: Omit<Maturity, 'day' | 'matures_in_seconds'>) {
  const { maturity_at: _time, ...rest } = item;
  return rest;
}

/** Settlements grouped by their UTC day, in order; each day with its total notional. */
export function groupByDay(maturities: readonly Maturity[]): MaturityDay[] {
  const days: MaturityDay[] = [];
  for (const maturity of maturities) {
    let day = days[days.length - 1];
    if (day?.day !== maturity.day) {
      day = { day: maturity.day, maturities: [], notional_usd: 0 };
      days.push(day);
    }
    day.maturities.push(maturity);
    day.notional_usd = cents(day.notional_usd + (maturity.notional_usd ?? 0));
  }
  return days;
}
