// The book: every money movement and state transition of a hedge, applied to the engine state.

import {
  type AccountState,
  type ChangeAction,
  type EngineOptions,
  type CloseReason,
  type EngineState,
  type EventKind,
  type HedgeState,
  POSITION_BASIS,
  type PositionBasis,
  type TrailingViews,
  activeHedgeKey,
  compareEvents,
  compareHistoryRecords,
  compareText,
  historyRecord,
  partitionPoint,
  toIso,
} from './engine-state.js';
import {
  DAY_MS,
  MARKET_MODEL,
  type MarketDefinition,
  type Side,
  carryUsdc,
  grossPnlUsd,
  marketHeadroomUsd,
  midPrice as modelMidPrice,
  platformFeeUsdc,
  quoteIncrease,
  reductionClosesFully,
  roundExecutionPrice,
  roundMoney,
} from './market-model.js';
import { hashString, hex8, nextRandom } from './prng.js';

export type OpenRequest = Pick<HedgeState, 'market' | 'side' | 'notionalUsd' | 'tenorDays' | 'clientReference'>;

const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** The list order of hedges, oldest first: by opened_at, ties by id (ids grow with creation). */
const compareOpened = (a: PositionBasis, b: PositionBasis) => a.openedAtMs - b.openedAtMs || compareText(a.id, b.id);

/** Inserts `item` after every element that `before` keeps ahead of it (sorted insert by binary search). */
function insertSorted<T>(list: T[], item: T, order: (a: T, b: T) => number) {
  list.splice(
    partitionPoint(list.length, (index) => order(list[index], item) <= 0),
    0,
    item,
  );
}

// Views that trail the records (the viewLagMs option): a server whose positions list, history and account come
// from an indexer that shows each change of a hedge some seconds after the hedge record does.

/** The fields of a hedge its positions line is computed from, copied: the hedge itself moves on. */
function positionBasis(hedge: HedgeState) {
  return Object.fromEntries(POSITION_BASIS.map((field) => [field, hedge[field]])) as PositionBasis;
}

/** Shows every change made at or before `cutoffMs` (the views then stand as the records did at that time). */
function foldChanges(views: TrailingViews, cutoffMs: number) {
  const { pending } = views;
  // Kept in time order (noteViewChange): the changes due are a prefix.
  const due = partitionPoint(pending.length, (index) => pending[index].atMs <= cutoffMs);
  for (const change of pending.splice(0, due)) {
    views.figures = change.figures;
    if (change.hedgeId === undefined || change.position === undefined) continue;
    if (change.position === null) delete views.positions[change.hedgeId];
    else views.positions[change.hedgeId] = change.position;
  }
}

export type Book = ReturnType<typeof createBook>;

const DEFAULT_FILL_DELAY_MS = 2000;

/** The book of an engine's state, under its options; `listed`: the dialect's markets. */
export function createBook(state: EngineState, options: EngineOptions, listed: readonly MarketDefinition[]) {
  const extra = (options.extraMarkets ?? []).map((market) => ({
    ...market,
    backgroundOpenInterestUsd: { buy: 0, sell: 0 },
  }));
  const config = {
    fillDelayMs: options.fillDelayMs ?? DEFAULT_FILL_DELAY_MS,
    failRate: options.failRate ?? 0,
    exposureCapUsd: options.exposureCapUsd ?? MARKET_MODEL.defaultExposureCapUsd,
    dayMs: durationOption('dayMs', options.dayMs, DAY_MS, 1),
    settlementDelayMs: durationOption('settlementDelayMs', options.settlementDelayMs),
    viewLagMs: durationOption('viewLagMs', options.viewLagMs),
    recordLagMs: durationOption('recordLagMs', options.recordLagMs),
  };
  // Copies: a test or a fault may change an account's market, never the model every engine starts from.
  const markets = [...listed.filter(({ market }) => !extra.some((e) => e.market === market)), ...extra].map(
    (definition) => ({ ...definition }),
  );
  const priceSeed = hashString(state.seed);
  // A state saved in another order (a heap) is put in order once.
  state.events.sort(compareEvents);
  const lagged = config.viewLagMs > 0;

  const findMarket = (market: string) => markets.find((definition) => definition.market === market);

  /** The mid of a market: what a position is marked, closed early and settled at. */
  const midPrice = (market: string, timeMs: number) => modelMidPrice(priceSeed, findMarket(market)!, timeMs);

  /** A fill's quote leaves out `counted`, which its own request already added to the open interest. */
  function quote(market: string, side: Side, notionalUsd: number, timeMs: number, counted = 0) {
    const openInterest = totalOpenInterest(market);
    openInterest[side] -= counted;
    return quoteIncrease(priceSeed, findMarket(market)!, openInterest, side, notionalUsd, timeMs);
  }

  /** Background open interest plus everything the sandbox's accounts hold or have pending. */
  function totalOpenInterest(market: string) {
    const background = findMarket(market)!.backgroundOpenInterestUsd;
    const own = state.openInterestUsd[market] ?? { buy: 0, sell: 0 };
    return { buy: background.buy + own.buy, sell: background.sell + own.sell };
  }

  /** The spec: the lower of the market's headroom and the account's cap (not net of its positions). */
  const availableCapacityUsd = (market: string, side: Side) =>
    roundMoney(Math.min(marketHeadroomUsd(totalOpenInterest(market), side), config.exposureCapUsd));

  function moveOpenInterest({ market, side }: HedgeState, deltaUsd: number) {
    const own = (state.openInterestUsd[market] ??= { buy: 0, sell: 0 });
    const next = own[side] + deltaUsd;
    // Float residue must not leave an emptied side at 1e-10 (or below zero).
    own[side] = next < 1e-6 ? 0 : next;
  }

  function account(accountId: string) {
    return (state.accounts[accountId] ??= withViews({
      id: accountId,
      balanceUsdc: MARKET_MODEL.startBalanceUsdc,
      hedges: {},
      activeHedgeIds: {},
      activeHedgeStacks: {},
      history: [],
    }));
  }

  /**
   * Builds the trailing views a lag needs, in step with the records; without a lag drops them (a later start with one
   * would show them stale).
   */
  function withViews(account: AccountState) {
    if (!lagged) delete account.trailing;
    else account.trailing ??= recordViews(account);
    return account;
  }

  /** The views as the records stand now. */
  const recordViews = (account: AccountState) => ({
    figures: accountFigures(account),
    positions: Object.fromEntries(
      activeHedges(account)
        .filter((hedge) => hedge.status === 'filled')
        .map((hedge) => [hedge.id, positionBasis(hedge)]),
    ),
    pending: [],
  });

  /** Margin and notional of the open and pending hedges plus what pending adds reserved, to the cent. */
  function accountFigures(account: AccountState) {
    let marginInUseUsdc = 0;
    let openExposureUsd = 0;
    for (const hedge of activeHedges(account)) {
      marginInUseUsdc += hedge.marginUsdc;
      openExposureUsd += hedge.notionalUsd;
      const change = hedge.pendingChange;
      if (change?.action !== 'add') continue;
      marginInUseUsdc += change.reservedMarginUsdc;
      openExposureUsd += change.notionalUsd;
    }
    return {
      balanceUsdc: account.balanceUsdc,
      marginInUseUsdc: roundMoney(marginInUseUsdc),
      openExposureUsd: roundMoney(openExposureUsd),
    };
  }

  /** For views that trail the records; nothing without a lag. */
  function noteViewChange(account: AccountState, atMs: number, hedge?: HedgeState) {
    const views = account.trailing;
    if (!views) return;
    // Those already a lag old are folded in first: an account written and never read keeps a lag's worth of changes.
    foldChanges(views, atMs - config.viewLagMs);
    const line = hedge && { hedgeId: hedge.id, position: hedge.status === 'filled' ? positionBasis(hedge) : null };
    // Kept in time order.
    views.pending.push({
      atMs: Math.max(atMs, views.pending.at(-1)?.atMs ?? atMs),
      figures: accountFigures(account),
      ...line,
    });
  }

  const activeHedges = (account: AccountState) =>
    Object.keys(account.activeHedgeStacks)
      .sort()
      .flatMap((key) => sideHedges(account, key));

  /** A side's open and pending hedges, oldest first (`market`: or the side's key). */
  const sideHedges = (account: AccountState, market: string, side?: Side) =>
    (account.activeHedgeStacks[side ? activeHedgeKey(market, side) : market] ?? []).map((id) => account.hedges[id]);

  const credit = (account: AccountState, amountUsdc: number) =>
    (account.balanceUsdc = roundMoney(account.balanceUsdc + amountUsdc));

  /** The next draw of the main generator (`idState`: of the ids' own). */
  const random = (generator: 'prngState' | 'idState' = 'prngState') => nextRandom(state, generator);

  /** 0x + 64 hex digits, the shape of an on-chain transaction hash or order key. */
  function hex64() {
    let hex = '0x';
    for (let i = 0; i < 8; i++) hex += hex8(random());
    return hex;
  }

  /** `hdg_` + the sandbox time of the open (9 base-36 digits) + a sequence (5) + 10 random characters. */
  function newHedgeId(nowMs: number) {
    const time = Math.max(0, Math.floor(nowMs)).toString(36).padStart(9, '0');
    let id = `hdg_${time}${(++state.sequence % 36 ** 5).toString(36).padStart(5, '0')}`;
    // Eighteen draws of the main generator per id keep every seeded value drawn after it the same.
    for (let i = 0; i < 18; i++) {
      const draw = random();
      if (i < 10) id += ALPHANUMERIC[Math.floor(((draw + random('idState')) % 1) * ALPHANUMERIC.length)];
    }
    return id;
  }

  function schedule(kind: EventKind, accountId: string, hedgeId: string, dueMs: number) {
    insertSorted(state.events, { dueMs, sequence: ++state.sequence, kind, accountId, hedgeId }, compareEvents);
  }

  /** Applies every fill, landing and maturity due by `nowMs`, each at its own due time; returns how many. */
  function processDueEvents(nowMs: number) {
    let processed = 0;
    const { events } = state;
    while (events.length && events[0].dueMs <= nowMs) {
      const { kind, dueMs, accountId, hedgeId } = events.shift()!;
      processed++;
      const account = state.accounts[accountId];
      const hedge = account?.hedges[hedgeId];
      if (!hedge) continue;
      if (kind === 'fill') resolveOpen(account, hedge, dueMs);
      else if (kind === 'change') landChange(account, hedge, dueMs);
      else if (hedge.status !== 'filled') continue;
      else if (dueMs < hedge.maturityAtMs + config.settlementDelayMs) {
        // Late settlement: due at maturity, it settles after the delay in effect then.
        schedule('maturity', accountId, hedgeId, hedge.maturityAtMs + config.settlementDelayMs);
        continue;
      } else closeAt(account, hedge, 'settled', dueMs);
      noteViewChange(account, dueMs, hedge);
    }
    return processed;
  }

  function createHedge(
    account: AccountState,
    { market, side, notionalUsd, tenorDays, clientReference }: OpenRequest,
    nowMs: number,
    willFail: boolean,
  ) {
    const priced = quote(market, side, notionalUsd, nowMs);
    const hedge: HedgeState = {
      id: newHedgeId(nowMs),
      market,
      side,
      notionalUsd,
      tenorDays,
      status: 'submitted',
      orderTxHash: hex64(),
      orderKey: hex64(),
      openedAtMs: nowMs,
      maturityAtMs: nowMs + tenorDays * config.dayMs,
      willFail,
      marginUsdc: priced.requiredMarginUsdc,
      dailyCarryRatePct: priced.dailyCarryRatePct,
      accruedCarryUsdc: 0,
      carryAccruedToMs: nowMs,
      realizedGrossUsd: 0,
      realizedCarryUsdc: 0,
      feesPaidUsdc: priced.platformFeeUsdc,
      ...(clientReference !== undefined && { clientReference }),
    };
    account.hedges[hedge.id] = hedge;
    credit(account, -(priced.requiredMarginUsdc + priced.platformFeeUsdc));
    moveOpenInterest(hedge, notionalUsd);
    return hedge;
  }

  function resolveOpen(account: AccountState, hedge: HedgeState, timeMs: number) {
    if (hedge.status !== 'submitted') return;
    if (hedge.willFail) {
      // Nothing was opened on-chain: the reserved collateral and the fee come back.
      hedge.status = 'failed';
      credit(account, hedge.marginUsdc + hedge.feesPaidUsdc);
      hedge.feesPaidUsdc = 0;
      return release(account, hedge);
    }
    const fill = quote(hedge.market, hedge.side, hedge.notionalUsd, timeMs, hedge.notionalUsd);
    // Carry runs from the fill: before it nothing was held.
    Object.assign(hedge, {
      status: 'filled',
      fillTxHash: hex64(),
      struckRate: fill.executionPrice,
      entryPrice: fill.executionPrice,
      filledAtMs: timeMs,
      carryAccruedToMs: timeMs,
    });
    schedule('maturity', account.id, hedge.id, hedge.maturityAtMs);
  }

  function landChange(account: AccountState, hedge: HedgeState, timeMs: number) {
    const change = hedge.pendingChange;
    if (!change) return;
    delete hedge.pendingChange;
    if (hedge.status !== 'filled') {
      // Settled at maturity before the change landed: an add never happened, so refund it.
      if (change.action === 'add') {
        credit(account, change.reservedMarginUsdc + change.reservedFeeUsdc);
        moveOpenInterest(hedge, -change.notionalUsd);
      }
      return;
    }
    accrueCarry(hedge, timeMs);
    if (change.action === 'add') {
      const added = change.notionalUsd;
      const fill = quote(hedge.market, hedge.side, added, timeMs, added);
      const combined = hedge.notionalUsd + added;
      // Weighting by notional keeps N×(M−E)/M additive across the open and the add.
      const weighted = (held: number, more: number) => (held * hedge.notionalUsd + more * added) / combined;
      hedge.entryPrice = roundExecutionPrice(weighted(hedge.entryPrice!, fill.executionPrice));
      hedge.dailyCarryRatePct = weighted(hedge.dailyCarryRatePct, change.dailyCarryRatePct);
      hedge.notionalUsd = combined;
      hedge.marginUsdc = roundMoney(hedge.marginUsdc + change.reservedMarginUsdc);
      hedge.feesPaidUsdc = roundMoney(hedge.feesPaidUsdc + change.reservedFeeUsdc);
    } else if (change.action === 'close' || reductionClosesFully(hedge.notionalUsd, change.notionalUsd))
      closeAt(account, hedge, 'closed', timeMs);
    else {
      const reduced = change.notionalUsd;
      const margin = roundMoney(hedge.marginUsdc * (reduced / hedge.notionalUsd));
      realize(account, hedge, reduced, margin, platformFeeUsdc(reduced), timeMs);
      hedge.marginUsdc = roundMoney(hedge.marginUsdc - margin);
      hedge.notionalUsd -= reduced;
      moveOpenInterest(hedge, -reduced);
    }
  }

  /**
   * Books `notionalUsd` of the hedge at the mid: its P&L and its share of the carry, with `marginUsdc` back, less
   * `feeUsdc`, on the balance and in the hedge's realized totals; the exit price.
   */
  function realize(
    account: AccountState,
    hedge: HedgeState,
    notionalUsd: number,
    marginUsdc: number,
    feeUsdc: number,
    timeMs: number,
  ) {
    const exitPrice = midPrice(hedge.market, timeMs);
    const gross = roundMoney(grossPnlUsd(hedge.side, notionalUsd, hedge.entryPrice!, exitPrice));
    const carry = roundMoney(hedge.accruedCarryUsdc * (notionalUsd / hedge.notionalUsd));
    credit(account, marginUsdc + gross - carry - feeUsdc);
    hedge.accruedCarryUsdc -= carry;
    hedge.realizedGrossUsd = roundMoney(hedge.realizedGrossUsd + gross);
    hedge.realizedCarryUsdc = roundMoney(hedge.realizedCarryUsdc + carry);
    hedge.feesPaidUsdc = roundMoney(hedge.feesPaidUsdc + feeUsdc);
    return exitPrice;
  }

  /** An early close executes at the mid, so it credits what the position showed as net_margin_usd; settlement has no close fee. */
  function closeAt(account: AccountState, hedge: HedgeState, reason: CloseReason, timeMs: number) {
    accrueCarry(hedge, timeMs);
    const fee = reason === 'closed' ? platformFeeUsdc(hedge.notionalUsd) : 0;
    const exitPrice = realize(account, hedge, hedge.notionalUsd, hedge.marginUsdc, fee, timeMs);
    Object.assign(hedge, { accruedCarryUsdc: 0, status: 'closed', closedAtMs: timeMs, closeReason: reason });
    release(account, hedge);
    // Closes come in time order, so this is nearly always the end; fixtures in the past land by search.
    insertSorted(account.history, historyRecord(hedge, exitPrice), compareHistoryRecords);
  }

  function release(account: AccountState, hedge: HedgeState) {
    moveOpenInterest(hedge, -hedge.notionalUsd);
    const key = activeHedgeKey(hedge.market, hedge.side);
    const stack = account.activeHedgeStacks[key] ?? [];
    const index = stack.indexOf(hedge.id);
    if (index < 0) return;
    stack.splice(index, 1);
    if (stack.length) account.activeHedgeIds[key] = stack[stack.length - 1];
    else {
      delete account.activeHedgeStacks[key];
      delete account.activeHedgeIds[key];
    }
  }

  function accrueCarry(hedge: HedgeState, timeMs: number) {
    hedge.accruedCarryUsdc = accruedCarryAt(hedge, timeMs);
    hedge.carryAccruedToMs = Math.max(timeMs, hedge.carryAccruedToMs);
  }

  /** Carry accrued up to `timeMs` without booking it (for views). */
  function accruedCarryAt(hedge: PositionBasis, timeMs: number) {
    const pending = Math.max(0, timeMs - hedge.carryAccruedToMs);
    return hedge.accruedCarryUsdc + carryUsdc(hedge.notionalUsd, hedge.dailyCarryRatePct, pending, config.dayMs);
  }

  // A state saved under another lag setting gets the views this one needs (or loses those it does not).
  Object.values(state.accounts).forEach(withViews);
  return {
    config,
    markets,
    findMarket,
    midPrice,
    quote,
    totalOpenInterest,
    availableCapacityUsd,
    account,
    noteViewChange,
    accountFigures,
    sideHedges,
    hedgesNewestFirst: (account: AccountState) => Object.values(account.hedges).sort((a, b) => compareOpened(b, a)),
    /** Whether reads of the records show the hedge at `nowMs`: with a record lag, only once its open is that old. */
    recordShown: (hedge: HedgeState, nowMs: number) => hedge.openedAtMs <= nowMs - config.recordLagMs,
    exposureLeftUsd: (openExposureUsd: number) => roundMoney(Math.max(0, config.exposureCapUsd - openExposureUsd)),
    processDueEvents,
    accruedCarryAt,
    /**
     * The positions (each side's hedges together, oldest first) and figures the views show at `nowMs`: the records',
     * or as they stood a lag before.
     */
    shownBook(account: AccountState, nowMs: number) {
      const views = account.trailing ?? recordViews(account);
      const asOfMs = nowMs - config.viewLagMs;
      foldChanges(views, asOfMs);
      const sides: Record<string, PositionBasis[]> = {};
      for (const hedge of Object.values(views.positions).sort(compareOpened))
        (sides[activeHedgeKey(hedge.market, hedge.side)] ??= []).push(hedge);
      return {
        asOfMs,
        figures: views.figures,
        sides: Object.keys(sides)
          .sort()
          .map((key) => sides[key]),
      };
    },
    /** How many of the oldest history records the history shows at `nowMs`: those closed a lag before, or all. */
    shownHistoryLength({ history }: AccountState, nowMs: number) {
      if (!lagged) return history.length;
      const cutoff = toIso(nowMs - config.viewLagMs);
      // Kept in closed_at order: the records shown are a prefix.
      return partitionPoint(history.length, (index) => history[index].closed_at <= cutoff);
    },
    /** Accepts an open: reserves margin and fee, counts the notional, schedules the fill. */
    submitOpen(account: AccountState, request: OpenRequest, nowMs: number) {
      const hedge = createHedge(account, request, nowMs, random() < config.failRate);
      const key = activeHedgeKey(hedge.market, hedge.side);
      (account.activeHedgeStacks[key] ??= []).push(hedge.id);
      account.activeHedgeIds[key] = hedge.id;
      schedule('fill', account.id, hedge.id, nowMs + config.fillDelayMs);
      return hedge;
    },
    /**
     * Bench and test fixtures: `count` past hedges, newest first, one hour apart, each through the live arithmetic so
     * its record and the balance agree; `closed`: two of three settled, the third closed early at half its tenor.
     */
    seedPastHedges(account: AccountState, count: number, status: 'closed' | 'failed', nowMs: number) {
      const { market } = markets.find((definition) => definition.status === 'open') ?? markets[0];
      const ids = Array.from({ length: count }, (_, index) => {
        const tenorDays = MARKET_MODEL.tenorsDays[index % MARKET_MODEL.tenorsDays.length];
        const endMs = nowMs - (index + 1) * 3_600_000;
        const settled = status === 'closed' && index % 3 !== 2;
        const request = {
          market,
          side: (['buy', 'sell'] as const)[index % 2],
          notionalUsd: 10_000 * (1 + Math.floor(random() * 25)),
          tenorDays,
          clientReference: `seed-${index + 1}`,
        };
        const openedAtMs = endMs - (tenorDays * config.dayMs) / (settled ? 1 : 2);
        const hedge = createHedge(account, request, openedAtMs, status === 'failed');
        resolveOpen(account, hedge, openedAtMs + config.fillDelayMs);
        if (status === 'closed' && !settled) closeAt(account, hedge, 'closed', endMs);
        // A settled hedge's maturity is already due: processDueEvents below settles it.
        return hedge.id;
      });
      processDueEvents(nowMs);
      noteViewChange(account, nowMs);
      return ids;
    },
    submitChange(account: AccountState, hedge: HedgeState, action: ChangeAction, notionalUsd: number, nowMs: number) {
      const priced = action === 'add' ? quote(hedge.market, hedge.side, notionalUsd, nowMs) : undefined;
      const change = (hedge.pendingChange = {
        action,
        notionalUsd,
        orderTxHash: hex64(),
        dueMs: nowMs + config.fillDelayMs,
        reservedMarginUsdc: priced?.requiredMarginUsdc ?? 0,
        reservedFeeUsdc: priced?.platformFeeUsdc ?? 0,
        dailyCarryRatePct: priced?.dailyCarryRatePct ?? 0,
      });
      if (priced) {
        credit(account, -(priced.requiredMarginUsdc + priced.platformFeeUsdc));
        moveOpenInterest(hedge, notionalUsd);
      }
      schedule('change', account.id, hedge.id, change.dueMs);
      return change;
    },
  };
}

function durationOption(name: string, value: number | undefined, fallback = 0, min = 0) {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < min)
    throw new Error(`sandbox option ${name} must be a number of ms, at least ${min}; got ${value}`);
  return value;
}
