// What a watch reads of each thing it watches, and what the live view shows of it: the data as NDJSON
// prints it, the facts alerts are about, and the model of the screen (the columns and priorities of the
// lists, units in the headers, a trend column, a countdown).
import type { HedgeClient } from '../../platform/api/client.js';
import type { Hedge } from '../../platform/api/schemas.js';
import { readNumber } from '../../core/number-format.js';
import { cents } from '../../core/money.js';
import { parseClientReference, parseHedgeId, parseMarket } from '../../core/input.js';
import { findHedge } from './hedge-id.js';
import { recordStanding, stillLive } from './book.js';
import { requireListedMarket } from './markets.js';
import { carriesReference, ownReference, positionForPeople, readBook, type BookPosition } from './positions.js';
import { readPositionSides, sideReferences } from './position-sides.js';
import { accountForPeople, pricesInOneShape } from '../../platform/api/wire/fields.js';
import { messageOf } from '../../core/security/safe-text.js';
import { fieldLabel, kindFromName, labelFromName, type FieldSpec } from '../../platform/fields/fields.js';
import { HEDGE_FIELDS, POSITION_RESOURCE, PRICE_RESOURCE, rankedFor } from '../../platform/fields/resource-fields.js';
import { quoteCurrencyOf } from '../../core/markets.js';
import type { JsonObject } from '../../core/objects.js';

export type WatchField = Pick<FieldSpec, 'key' | 'label' | 'kind'>;

export interface WatchRow {
  key: string;
  values: JsonObject;
  maturityAt?: string;
  /** Why the row's side is settling, as the side model says it. */
  settling?: string;
}

export interface WatchModel {
  title: string;
  layout: 'table' | 'card';
  fields: WatchField[];
  /** A table's columns, most important first (a card shows every field). */
  priority?: readonly string[];
  decisive?: number;
  rows: WatchRow[];
  empty: string;
  /** The countdown column's label. */
  countdown?: string;
  /** A sparkline of one of `fields` over the session. */
  trend?: { label: string; key: string };
  total?: { label: string; value: number | undefined };
  /** Why what is watched is settling, as the side model says it (a hedge in a status hedge does not know). */
  settling?: string;
}

/** What is watched: the command's own reading, with its arguments. */
export type WatchTarget =
  | { kind: 'positions'; ref?: string }
  | { kind: 'account' }
  | { kind: 'price'; market?: string }
  | { kind: 'hedge'; id?: string; filters: { status?: string; ref?: string; limit?: string; wait?: boolean } };

const ACCOUNT_PNL_FIELDS = 'unrealized_pnl_usd upnl_usd floating_pnl_usd unrealized_pnl net_pnl_usd pnl_usd'.split(' ');

/** What one refresh read: `data` as NDJSON prints it (`known`: the fields its --json knows, which --fields may name beyond the data's own keys), the facts alerts are about, and what the live view shows of it. */
export type WatchSnapshot = Awaited<ReturnType<ReturnType<typeof sourceFor>>>;

/** The key of the countdown column, and of the sparkline column, in a model's priority list. */
export const COUNTDOWN_KEY = 'matures_in';
export const TREND_KEY = 'trend';

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
    return field ? [{ key, label: fieldLabel(field, 'header', rateUnit, field.kind), kind: field.kind }] : [];
  });
}

/** Fields known by their name and value only: labelled and kinded from them. */
const named = (entries: Array<[string, unknown]>) =>
  entries.map(([key, value]) => ({ key, label: labelFromName(key), kind: kindFromName(key, value) }));

/** A hedge's maturity while it can still mature, as the facts alerts are about. */
function hedgeMaturity(hedge: Hedge) {
  return typeof hedge.maturity_at === 'string' && stillLive(hedge)
    ? [{ key: hedge.id, maturityAt: hedge.maturity_at, market: hedge.market, side: hedge.side, hedgeId: hedge.id }]
    : [];
}

/** `log`: the command's, for what a source says on stderr; `live`: shown on a terminal without --json, redrawn every
 * second (the Ref column and countdowns); `oneShape`: NDJSON in hedge's one shape; `needMaturity`: alerting on maturities. */
export function sourceFor(
  log: (line: string) => void,
  target: WatchTarget,
  live: boolean,
  oneShape: boolean,
  needMaturity: boolean,
) {
  switch (target.kind) {
    case 'positions':
      return positionsSource(log, target.ref, live, oneShape, needMaturity);
    case 'account':
      return accountSource(oneShape);
    case 'price':
      return priceSource(target.market, oneShape);
    case 'hedge':
      return hedgeSource(target.id);
  }
}

/** A position as a refresh keeps it: `seen` changes when the side's line does (its notional, where that matters). */
interface PositionRow {
  position: BookPosition;
  key: string;
  seen: string;
}

/** What a side's line is shown with: its deal references, its live hedges' maturities, why it is settling. */
interface SideFacts {
  reference?: string;
  maturities?: ReturnType<typeof hedgeMaturity>;
  settling?: string;
}

function positionsSource(
  log: (line: string) => void,
  refText: string | undefined,
  live: boolean,
  oneShape: boolean,
  needMaturity: boolean,
) {
  const ref = parseClientReference(refText);
  // A maturity the position line does not carry is read once from its hedge (it never changes).
  const maturityOfHedge = new Map<string, string | undefined>();
  // Each position's deal references and its side's maturities (its live hedges': a line of several hedges
  // carries only one of them), joined from the hedges list when a position appears that was not seen yet,
  // or its notional moves (a hedge of it added, settled or closed).
  let sideOf = new Map<string, SideFacts>();
  return async (client: HedgeClient) => {
    const book = await readBook(client, log);
    for (const position of book) {
      const { hedgeId } = position;
      if (position.maturityAt !== undefined || !needMaturity || hedgeId === undefined) continue;
      if (!maturityOfHedge.has(hedgeId))
        maturityOfHedge.set(hedgeId, (await client.getHedge(hedgeId).catch(() => undefined))?.maturity_at ?? undefined);
      position.maturityAt = maturityOfHedge.get(hedgeId);
    }
    const rows = book.map((position, index) => {
      const key = position.hedgeId ?? `${position.market ?? ''}:${position.side ?? index}`;
      return { position, key, seen: needMaturity || live ? `${key} ${position.notionalUsd}` : key };
    });
    // Asked on every refresh of the live view (its Ref column, and each side's standing: a side settles or comes
    // into step while its line stays as it was), else once per position seen: for --ref (NDJSON is the data as
    // sent) and --alert-maturity.
    if (live || ((ref !== undefined || needMaturity) && rows.some(({ seen }) => !sideOf.has(seen)))) {
      const { lines, recordsError } = await readPositionSides(client, book, log);
      if (recordsError !== undefined) {
        // The column is a help, not the data: without --ref the view goes on without it.
        if (ref !== undefined) throw recordsError;
        log(`positions: deal references not read (${messageOf(recordsError)})`);
      }
      // Every hedge of the side, as `hedge positions` joins them; only the lines of now are kept (a watch may run for days).
      sideOf = new Map(
        rows.map(({ position, seen }, index) => [
          seen,
          {
            reference: ownReference(position) ?? sideReferences(lines[index]),
            maturities: lines[index]?.hedges.flatMap(hedgeMaturity),
            settling: lines[index]?.state === 'settling' ? lines[index].why : undefined,
          },
        ]),
      );
    }
    const shown = rows.filter(({ seen }) => ref === undefined || carriesReference(sideOf.get(seen)?.reference, ref));
    return positionsSnapshot(shown, sideOf, ref, oneShape);
  };
}

/** What a refresh of the positions shows of the rows `shown`. */
function positionsSnapshot(
  shown: PositionRow[],
  sideOf: ReadonlyMap<string, SideFacts>,
  ref: string | undefined,
  oneShape: boolean,
) {
  const positions = shown.map(({ position }) => position);
  const rounded = positions.every((position) => position.netPnlUsd !== undefined)
    ? cents(positions.reduce((sum, position) => sum + position.netPnlUsd!, 0))
    : undefined;
  // Each line's maturities: its hedges', else the one the line names.
  const dated = shown.map(({ position, key, seen }) => {
    const ofHedges = sideOf.get(seen)?.maturities;
    if (ofHedges?.length) return ofHedges;
    const { maturityAt, market, side, hedgeId } = position;
    return maturityAt === undefined ? [] : [{ key, maturityAt, market, side, hedgeId }];
  });
  const markets = positions.map((position) => position.market);
  const fields = watchFields(
    POSITION_RESOURCE.fields,
    'market side client_reference notional_usd entry_price mark_price net_pnl_usd accrued_carry_usdc net_margin_usd',
    markets,
  );
  return {
    // NDJSON in hedge's one shape (our names), like `positions --json`; --raw: as sent.
    data: positions.map((position) => (oneShape ? positionForPeople(position) : position.raw)),
    known: POSITION_RESOURCE.fields,
    facts: { netPnlUsd: rounded, maturities: dated.flat() },
    view: {
      title: 'Positions',
      layout: 'table',
      fields,
      // Several markets on the screen: the market is one of the desk's columns, as in the list.
      ...rankedFor(POSITIONS_RANKED, markets),
      rows: shown.map(({ position, seen }, index) => ({
        key: `${position.market ?? ''}:${position.side ?? position.hedgeId ?? index}`,
        values: {
          market: position.market,
          side: position.side,
          client_reference: sideOf.get(seen)?.reference,
          notional_usd: position.notionalUsd,
          entry_price: position.entryPrice,
          mark_price: position.markPrice,
          net_pnl_usd: position.netPnlUsd,
          accrued_carry_usdc: position.accruedCarryUsdc,
          net_margin_usd: position.netMarginUsd,
        },
        // Each side counted down to its soonest maturity, as its alerts are.
        maturityAt: dated[index].reduce<string | undefined>(
          (first, { maturityAt }) =>
            first === undefined || Date.parse(maturityAt) < Date.parse(first) ? maturityAt : first,
          undefined,
        ),
        settling: sideOf.get(seen)?.settling,
      })),
      empty: ref === undefined ? 'No open positions.' : `No open position carries the reference ${ref}.`,
      countdown: 'Left',
      trend: { label: 'P&L trend', key: 'net_pnl_usd' },
      total: { label: 'Net P&L', value: rounded },
    } satisfies WatchModel,
  };
}

function accountSource(oneShape: boolean) {
  return async (client: HedgeClient) => {
    const sent = await client.getAccount();
    // Our names, like `account --json` (the card too); --raw: as sent.
    const account = oneShape ? accountForPeople(sent) : sent;
    // The account's field that carries its unrealized P&L, when one does.
    const pnlField = ACCOUNT_PNL_FIELDS.find((name) => readNumber(account[name]) !== undefined);
    return {
      data: account,
      known: [],
      facts: { netPnlUsd: readNumber(pnlField && account[pnlField]), maturities: [] },
      view: {
        title: 'Account',
        layout: 'card',
        fields: named(Object.entries(account)),
        rows: [{ key: 'account', values: account }],
        empty: 'No account data.',
        trend: pnlField ? { label: 'P&L trend', key: pnlField } : undefined,
      } satisfies WatchModel,
    };
  };
}

function priceSource(marketText: string | undefined, oneShape: boolean) {
  const market = marketText === undefined ? undefined : parseMarket(marketText);
  // The live list decides whether the market exists (exit 2 when not); asked once.
  let checked = market === undefined;
  return async (client: HedgeClient) => {
    if (!checked) await requireListedMarket(client, market!);
    checked = true;
    const markets = market ? [market] : (await client.listMarkets()).markets.map((entry) => entry.market);
    // Like `price --json`, whatever GET /prices looks like; --raw: as sent. The view reads the prices out of it.
    const {
      data,
      quotes: prices,
      problem,
    } = markets.length ? await client.readPrices(markets) : { data: [], quotes: [], problem: undefined };
    if (problem) throw problem;
    // The time is the view's own (to the minute, no relative part: the screen is redrawn every second).
    const fields = watchFields(
      PRICE_RESOURCE.fields,
      'market price timestamp',
      prices.map((price) => price.market),
    ).map((field) => (field.key === 'timestamp' ? { ...field, kind: 'utc' as const } : field));
    return {
      data: oneShape ? pricesInOneShape(prices) : data,
      known: [],
      facts: { maturities: [] },
      view: {
        title: market !== undefined ? `${market} indicative mid price` : 'Indicative mid prices',
        layout: 'table',
        fields,
        ...PRICES_RANKED,
        rows: prices.map((price) => ({ key: price.market, values: price })),
        empty: 'No markets are available to this account.',
        trend: { label: 'Price trend', key: 'price' },
      } satisfies WatchModel,
    };
  };
}

function hedgeSource(idText: string | undefined) {
  const typed = parseHedgeId(idText);
  let id: string | undefined;
  return async (client: HedgeClient) => {
    const hedge = id === undefined ? await findHedge(client, typed) : await client.getHedge(id);
    id = hedge.id;
    const maturities = hedgeMaturity(hedge);
    const standing = recordStanding(hedge);
    return {
      data: hedge,
      known: HEDGE_FIELDS,
      facts: { maturities },
      view: {
        title: `Hedge ${hedge.id}`,
        layout: 'card',
        fields: [
          ...HEDGE_FIELDS,
          ...named(Object.entries(hedge).filter(([key]) => !HEDGE_FIELDS.some((field) => field.key === key))),
        ],
        // Counted down while the hedge can still mature.
        rows: [{ key: hedge.id, values: hedge, maturityAt: maturities[0]?.maturityAt }],
        empty: 'No hedge data.',
        countdown: 'Matures in',
        ...(standing.standing === 'settling' && { settling: standing.why }),
      } satisfies WatchModel,
    };
  };
}
