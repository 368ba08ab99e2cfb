// What the live view of `--watch` shows of one refresh: the model ui/watch-view.ts draws, made from
// what the flow read (outcomes/watch.ts) — the columns and priorities of the lists, units in
// the headers, a trend column, a countdown.
import { quoteCurrencyOf } from '../../core/markets.js';
import type { WatchReading } from './watch.js';
import { fieldLabel, kindFromName, labelFromName, type FieldSpec } from '../../platform/fields/fields.js';
import { HEDGE_FIELDS, POSITION_RESOURCE, PRICE_RESOURCE, rankedFor } from '../../platform/fields/resource-fields.js';
import { COUNTDOWN_KEY, TREND_KEY, type WatchModel } from './watch-view.js';

/** A list's priorities with the trend column put right after `after`: one of the columns the desk decides on when `after` is (a watch is about what moves), else where it falls in the rest. */
function withTrend({ priority, decisive = 0 }: { priority: readonly string[]; decisive?: number }, after: string) {
  const at = priority.indexOf(after) + 1;
  return { priority: priority.toSpliced(at, 0, TREND_KEY), decisive: at <= decisive ? decisive + 1 : decisive };
}

// Each side's net P&L over the session (two sides of one market share one mark: a mark trend would
// draw the same line twice): a watch is about what moves, the last of the desk's columns.
const POSITIONS_RANKED = withTrend(POSITION_RESOURCE, COUNTDOWN_KEY);
const PRICES_RANKED = withTrend(PRICE_RESOURCE, 'price');

/** The fields of `keys`, a rate's unit in its header when every row is of one market. */
function watchFields(fields: readonly FieldSpec[], keys: string, markets: ReadonlyArray<string | undefined>) {
  const currency = new Set(markets).size === 1 && markets[0] !== undefined ? quoteCurrencyOf(markets[0]) : undefined;
  const rateUnit = currency && `${currency}/USDT`;
  return keys.split(' ').flatMap((key) => {
    const field = fields.find((candidate) => candidate.key === key);
    return field ? [{ key, label: fieldLabel(field, 'header', { kind: field.kind, rateUnit }), kind: field.kind }] : [];
  });
}

/** The fields a command's --json knows for what it watches (what --fields may name beyond the data's own keys). */
export function watchKnownFields(reading: WatchReading) {
  return reading.kind === 'positions' ? POSITION_RESOURCE.fields : reading.kind === 'hedge' ? HEDGE_FIELDS : undefined;
}

/** Fields known by their name and value only: labelled and kinded from them. */
const named = (entries: Array<[string, unknown]>) =>
  entries.map(([key, value]) => ({ key, label: labelFromName(key), kind: kindFromName(key, value) }));

export function watchModel(reading: WatchReading): WatchModel {
  switch (reading.kind) {
    case 'positions': {
      const { positions, references, ref } = reading;
      const markets = positions.map((position) => position.market);
      const fields = watchFields(
        POSITION_RESOURCE.fields,
        'market side client_reference notional_usd entry_price mark_price net_pnl_usd accrued_carry_usdc net_margin_usd',
        markets,
      );
      return {
        title: 'Positions',
        layout: 'table',
        fields,
        // Several markets on the screen: the market is one of the desk's columns, as in the list.
        ...rankedFor(POSITIONS_RANKED, markets),
        rows: positions.map((position, index) => ({
          key: `${position.market ?? ''}:${position.side ?? position.hedgeId ?? index}`,
          values: {
            market: position.market,
            side: position.side,
            client_reference: references[index],
            notional_usd: position.notionalUsd,
            entry_price: position.entryPrice,
            mark_price: position.markPrice,
            net_pnl_usd: position.netPnlUsd,
            accrued_carry_usdc: position.accruedCarryUsdc,
            net_margin_usd: position.netMarginUsd,
          },
          maturityAt: position.maturityAt,
        })),
        empty: ref === undefined ? 'No open positions.' : `No open position carries the reference ${ref}.`,
        countdown: { label: 'Left' },
        trend: { label: 'P&L trend', field: fields.find((field) => field.key === 'net_pnl_usd')! },
        total: { label: 'Net P&L', value: reading.netPnlUsd },
      };
    }
    case 'account': {
      const { account, pnlField } = reading;
      const fields = named(Object.entries(account));
      return {
        title: 'Account',
        layout: 'card',
        fields,
        rows: [{ key: 'account', values: account }],
        empty: 'No account data.',
        trend: pnlField
          ? { label: 'P&L trend', field: { key: pnlField, label: labelFromName(pnlField), kind: 'pnl' } }
          : undefined,
      };
    }
    case 'price': {
      const { market, prices } = reading;
      // The time is the view's own (to the minute, no relative part: the screen is redrawn every second).
      const fields = watchFields(
        PRICE_RESOURCE.fields,
        'market price timestamp',
        prices.map((price) => price.market),
      ).map((field) => (field.key === 'timestamp' ? { ...field, kind: 'utc' as const } : field));
      return {
        title: market !== undefined ? `${market} indicative mid price` : 'Indicative mid prices',
        layout: 'table',
        fields,
        ...PRICES_RANKED,
        rows: prices.map((price) => ({ key: price.market, values: price })),
        empty: 'No markets are available to this account.',
        trend: { label: 'Price trend', field: fields.find((field) => field.key === 'price')! },
      };
    }
    case 'hedge': {
      const { hedge, maturityAt } = reading;
      const known = HEDGE_FIELDS.map(({ key, label, kind }) => ({ key, label, kind }));
      const fields = [
        ...known,
        ...named(Object.entries(hedge).filter(([key]) => !known.some((field) => field.key === key))),
      ];
      return {
        title: `Hedge ${hedge.id}`,
        layout: 'card',
        fields,
        rows: [{ key: hedge.id, values: hedge, maturityAt }],
        empty: 'No hedge data.',
        countdown: { label: 'Matures in' },
      };
    }
  }
}
