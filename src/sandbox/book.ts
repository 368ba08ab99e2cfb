// The book: every money movement and state transition of a hedge, applied to the engine state.

import {
  type AccountState,
  type ChangeAction,
  type CloseReason,
  type EngineState,
  type EventKind,
  type HedgeState,
  type HistoryRecord,
  type PendingChange,
  type PositionBasis,
  activeHedgeKey,
  compareEvents,
  compareHistoryRecords,
  partitionPoint,
} from './engine-state.js';
import {
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
  seedHash,
} from './market-model.js';
import { nextRandom } from './prng.js';
import { appendChange, foldChanges, positionBasis, viewsInStep } from './trailing-views.js';

interface BookConfig {
  fillDelayMs: number;
  failRate: number;
  exposureCapUsd: number;
  markets: readonly MarketDefinition[];
  dayMs: number;
  settlementDelayMs: number;
  viewLagMs: number;
  recordLagMs: number;
}

export interface OpenRequest {
  market: string;
  side: Side;
  notionalUsd: number;
  tenorDays: number;
  clientReference?: string;
}

const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyz0123456789';
const ID_RANDOM_CHARS = 10;
const ID_MAIN_DRAWS = 18;

export type PastOutcome = { kind: 'settled' } | { kind: 'failed' } | { kind: 'closed'; closedAtMs: number };

export const toIso = (timeMs: number) => new Date(timeMs).toISOString();

/** The list order of hedges, oldest first: by opened_at, ties by id (ids grow with creation). */
function compareOpened(a: Pick<HedgeState, 'openedAtMs' | 'id'>, b: Pick<HedgeState, 'openedAtMs' | 'id'>) {
  return a.openedAtMs - b.openedAtMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export type Book = ReturnType<typeof createBook>;

export function createBook(state: EngineState, config: BookConfig) {
  const priceSeed = seedHash(state.seed);
  const marketsByName = new Map(config.markets.map((definition) => [definition.market, definition]));
  // A state saved in another order (a heap) is put in order once.
  state.events.sort(compareEvents);

  function findMarket(market: string) {
    return marketsByName.get(market);
  }

  function midPrice(definition: MarketDefinition, timeMs: number) {
    return modelMidPrice(priceSeed, definition, timeMs);
  }

  /** The mid of a hedge's market: what a position is marked, closed early and settled at. */
  function markOf(hedge: Pick<HedgeState, 'market'>, timeMs: number) {
    return midPrice(findMarket(hedge.market) as MarketDefinition, timeMs);
  }

  /** A fill's quote leaves out `counted`, which its own request already added to the open interest. */
  function quote(market: string, side: Side, notionalUsd: number, timeMs: number, counted = 0) {
    const definition = findMarket(market) as MarketDefinition;
    const openInterest = totalOpenInterest(definition);
    openInterest[side] -= counted;
    return quoteIncrease(priceSeed, definition, openInterest, side, notionalUsd, timeMs);
  }

  /** Background open interest plus everything the sandbox's accounts hold or have pending. */
  function totalOpenInterest(definition: MarketDefinition) {
    const own = state.openInterestUsd[definition.market] ?? { buy: 0, sell: 0 };
    return {
      buy: definition.backgroundOpenInterestUsd.buy + own.buy,
      sell: definition.backgroundOpenInterestUsd.sell + own.sell,
    };
  }

  /** The spec: the lower of the market's headroom and the account's cap (not net of its positions). */
  function availableCapacityUsd(definition: MarketDefinition, side: Side) {
    return roundMoney(Math.min(marketHeadroomUsd(totalOpenInterest(definition), side), config.exposureCapUsd));
  }

  function moveOpenInterest(market: string, side: Side, deltaUsd: number) {
    const own = (state.openInterestUsd[market] ??= { buy: 0, sell: 0 });
    const next = own[side] + deltaUsd;
    // Float residue must not leave an emptied side at 1e-10 (or below zero).
    own[side] = next < 1e-6 ? 0 : next;
  }

  function account(accountId: string) {
    let account = state.accounts[accountId];
    if (!account) {
      account = {
        id: accountId,
        balanceUsdc: MARKET_MODEL.startBalanceUsdc,
        hedges: {},
        activeHedgeIds: {},
        activeHedgeStacks: {},
        history: [],
      };
      if (config.viewLagMs > 0) account.trailing = viewsInStep(accountFigures(account), []);
      state.accounts[accountId] = account;
    }
    return account;
  }

  /** Builds the trailing views a lag needs; without a lag drops them (a later start with one would show them stale). */
  function prepareTrailingViews() {
    for (const account of Object.values(state.accounts)) {
      if (config.viewLagMs <= 0) delete account.trailing;
      else account.trailing ??= viewsInStep(accountFigures(account), filledHedges(account));
    }
  }

  function accountFigures(account: AccountState) {
    return {
      balanceUsdc: account.balanceUsdc,
      marginInUseUsdc: marginInUseUsdc(account),
      openExposureUsd: openExposureUsd(account),
    };
  }

  function filledHedges(account: AccountState) {
    return activeHedges(account).filter((hedge) => hedge.status === 'filled');
  }

  /** For views that trail the records; nothing without a lag. */
  function noteViewChange(account: AccountState, atMs: number, hedge?: HedgeState) {
    const views = account.trailing;
    if (config.viewLagMs <= 0 || views === undefined) return;
    const figures = accountFigures(account);
    const line =
      hedge === undefined
        ? {}
        : { hedgeId: hedge.id, position: hedge.status === 'filled' ? positionBasis(hedge) : null };
    appendChange(views, { atMs, figures, ...line }, config.viewLagMs);
  }

  /** The positions and figures the views show at `nowMs`: the records', or as they stood a lag before. */
  function shownBook(account: AccountState, nowMs: number) {
    const views = account.trailing;
    if (config.viewLagMs <= 0 || views === undefined)
      return { asOfMs: nowMs, figures: accountFigures(account), positions: filledHedges(account) };
    const asOfMs = nowMs - config.viewLagMs;
    foldChanges(views, asOfMs);
    const positions = Object.values(views.positions).sort((a, b) => {
      const sideA = activeHedgeKey(a.market, a.side);
      const sideB = activeHedgeKey(b.market, b.side);
      if (sideA !== sideB) return sideA < sideB ? -1 : 1;
      return compareOpened(a, b);
    });
    return { asOfMs, figures: views.figures, positions };
  }

  /** How many of the oldest history records the history shows at `nowMs`: those closed a lag before, or all. */
  function shownHistoryLength(account: AccountState, nowMs: number) {
    const { history } = account;
    if (config.viewLagMs <= 0) return history.length;
    const cutoff = toIso(nowMs - config.viewLagMs);
    // Kept in closed_at order: the records shown are a prefix.
    return partitionPoint(history.length, (index) => history[index].closed_at <= cutoff);
  }

  function activeHedges(account: AccountState) {
    return Object.keys(account.activeHedgeStacks)
      .sort()
      .flatMap((key) => account.activeHedgeStacks[key].map((id) => account.hedges[id]));
  }

  function activeHedge(account: AccountState, market: string, side: Side) {
    const id = account.activeHedgeIds[activeHedgeKey(market, side)];
    return id ? account.hedges[id] : undefined;
  }

  function sideHedges(account: AccountState, market: string, side: Side) {
    return (account.activeHedgeStacks[activeHedgeKey(market, side)] ?? []).map((id) => account.hedges[id]);
  }

  function hedgesNewestFirst(account: AccountState) {
    return Object.values(account.hedges).sort((a, b) => compareOpened(b, a));
  }

  /** Whether reads of the records show the hedge at `nowMs`: with a record lag, only once its open is that old. */
  function recordShown(hedge: HedgeState, nowMs: number) {
    return hedge.openedAtMs <= nowMs - config.recordLagMs;
  }

  /** Notional counted against the cap: open and pending hedges plus pending adds. */
  function openExposureUsd(account: AccountState) {
    return activeTotal(account, 'notionalUsd', 'notionalUsd');
  }

  /** Margin of the open and pending hedges plus what pending adds reserved. */
  function marginInUseUsdc(account: AccountState) {
    return activeTotal(account, 'marginUsdc', 'reservedMarginUsdc');
  }

  /** An amount summed over the submitted and filled hedges, with a pending add's share, to the cent. */
  function activeTotal(
    account: AccountState,
    ofHedge: 'notionalUsd' | 'marginUsdc',
    ofAdd: 'notionalUsd' | 'reservedMarginUsdc',
  ) {
    let total = 0;
    for (const hedge of activeHedges(account)) {
      total += hedge[ofHedge];
      if (hedge.pendingChange?.action === 'add') total += hedge.pendingChange[ofAdd];
    }
    return roundMoney(total);
  }

  function exposureLeftUsd(openExposureUsd: number) {
    return roundMoney(Math.max(0, config.exposureCapUsd - openExposureUsd));
  }

  function credit(account: AccountState, amountUsdc: number) {
    account.balanceUsdc = roundMoney(account.balanceUsdc + amountUsdc);
  }

  /** The next draw of the main generator (`idState`: of the ids' own). */
  function random(generator: 'prngState' | 'idState' = 'prngState') {
    const next = nextRandom(state[generator]);
    state[generator] = next.state;
    return next.value;
  }

  /** 0x + 64 hex digits, the shape of an on-chain transaction hash or order key. */
  function hex64() {
    let hex = '0x';
    for (let i = 0; i < 8; i++)
      hex += Math.floor(random() * 0x1_0000_0000)
        .toString(16)
        .padStart(8, '0');
    return hex;
  }

  /** `hdg_` + the sandbox time of the open (9 base-36 digits) + a sequence (5) + 10 random characters. */
  function newHedgeId(nowMs: number) {
    const time = Math.max(0, Math.floor(nowMs)).toString(36).padStart(9, '0');
    const sequence = (++state.sequence % 36 ** 5).toString(36).padStart(5, '0');
    let id = `hdg_${time}${sequence}`;
    // Eighteen draws of the main generator per id keep every seeded value drawn after it the same.
    for (let i = 0; i < ID_MAIN_DRAWS; i++) {
      const draw = random();
      if (i < ID_RANDOM_CHARS) id += ALPHANUMERIC[Math.floor(((draw + random('idState')) % 1) * ALPHANUMERIC.length)];
    }
    return id;
  }

  function schedule(kind: EventKind, accountId: string, hedgeId: string, dueMs: number) {
    const { events } = state;
    const event = { dueMs, sequence: ++state.sequence, kind, accountId, hedgeId };
    events.splice(
      partitionPoint(events.length, (index) => compareEvents(events[index], event) < 0),
      0,
      event,
    );
  }

  /** Applies every fill, landing and maturity due by `nowMs`, each at its own due time; returns how many. */
  function processDueEvents(nowMs: number) {
    let processed = 0;
    const { events } = state;
    while (events.length && events[0].dueMs <= nowMs) {
      const event = events.shift()!;
      processed++;
      const account = state.accounts[event.accountId];
      const hedge = account?.hedges[event.hedgeId];
      if (!hedge) continue;
      if (event.kind === 'fill') resolveOpen(account, hedge, event.dueMs);
      else if (event.kind === 'change') landChange(account, hedge, event.dueMs);
      else if (hedge.status !== 'filled') continue;
      else if (event.dueMs < hedge.maturityAtMs + config.settlementDelayMs) {
        // Late settlement: due at maturity, it settles after the delay in effect then.
        schedule('maturity', account.id, hedge.id, hedge.maturityAtMs + config.settlementDelayMs);
        continue;
      } else closeAt(account, hedge, 'settled', event.dueMs);
      noteViewChange(account, event.dueMs, hedge);
    }
    return processed;
  }

  /** Accepts an open: reserves margin and fee, counts the notional, schedules the fill. */
  function submitOpen(account: AccountState, request: OpenRequest, nowMs: number) {
    const hedge = createHedge(account, request, nowMs, random() < config.failRate);
    const key = activeHedgeKey(hedge.market, hedge.side);
    (account.activeHedgeStacks[key] ??= []).push(hedge.id);
    account.activeHedgeIds[key] = hedge.id;
    schedule('fill', account.id, hedge.id, nowMs + config.fillDelayMs);
    return hedge;
  }

  /** Bench and test fixtures: a past hedge goes through the live arithmetic, so its record and balance agree. */
  function recordPastHedge(account: AccountState, request: OpenRequest, openedAtMs: number, outcome: PastOutcome) {
    const hedge = createHedge(account, request, openedAtMs, outcome.kind === 'failed');
    resolveOpen(account, hedge, openedAtMs + config.fillDelayMs);
    if (outcome.kind === 'closed') closeAt(account, hedge, 'closed', outcome.closedAtMs);
    // A 'settled' hedge's maturity is already due: the next processDueEvents settles it.
    return hedge;
  }

  function createHedge(account: AccountState, request: OpenRequest, nowMs: number, willFail: boolean) {
    const priced = quote(request.market, request.side, request.notionalUsd, nowMs);
    const hedge: HedgeState = {
      id: newHedgeId(nowMs),
      market: request.market,
      side: request.side,
      notionalUsd: request.notionalUsd,
      tenorDays: request.tenorDays,
      status: 'submitted',
      orderTxHash: hex64(),
      orderKey: hex64(),
      units: request.notionalUsd,
      openedAtMs: nowMs,
      maturityAtMs: nowMs + request.tenorDays * config.dayMs,
      willFail,
      marginUsdc: priced.requiredMarginUsdc,
      dailyCarryRatePct: priced.dailyCarryRatePct,
      accruedCarryUsdc: 0,
      carryAccruedToMs: nowMs,
      realizedGrossUsd: 0,
      realizedCarryUsdc: 0,
      feesPaidUsdc: priced.platformFeeUsdc,
    };
    if (request.clientReference !== undefined) hedge.clientReference = request.clientReference;
    account.hedges[hedge.id] = hedge;
    credit(account, -(priced.requiredMarginUsdc + priced.platformFeeUsdc));
    moveOpenInterest(hedge.market, hedge.side, hedge.notionalUsd);
    return hedge;
  }

  function resolveOpen(account: AccountState, hedge: HedgeState, timeMs: number) {
    if (hedge.status !== 'submitted') return;
    if (hedge.willFail) {
      // Nothing was opened on-chain: the reserved collateral and the fee come back.
      hedge.status = 'failed';
      credit(account, hedge.marginUsdc + hedge.feesPaidUsdc);
      hedge.feesPaidUsdc = 0;
      release(account, hedge);
      return;
    }
    const fill = quote(hedge.market, hedge.side, hedge.notionalUsd, timeMs, hedge.notionalUsd);
    hedge.status = 'filled';
    hedge.fillTxHash = hex64();
    hedge.struckRate = fill.executionPrice;
    hedge.entryPrice = fill.executionPrice;
    hedge.filledAtMs = timeMs;
    // Carry runs from the fill: before it nothing was held.
    hedge.carryAccruedToMs = timeMs;
    schedule('maturity', account.id, hedge.id, hedge.maturityAtMs);
  }

  function submitChange(
    account: AccountState,
    hedge: HedgeState,
    action: ChangeAction,
    notionalUsd: number,
    nowMs: number,
  ) {
    const change = {
      action,
      notionalUsd,
      orderTxHash: hex64(),
      submittedAtMs: nowMs,
      dueMs: nowMs + config.fillDelayMs,
      reservedMarginUsdc: 0,
      reservedFeeUsdc: 0,
      dailyCarryRatePct: 0,
    };
    if (action === 'add') {
      const priced = quote(hedge.market, hedge.side, notionalUsd, nowMs);
      change.reservedMarginUsdc = priced.requiredMarginUsdc;
      change.reservedFeeUsdc = priced.platformFeeUsdc;
      change.dailyCarryRatePct = priced.dailyCarryRatePct;
      credit(account, -(priced.requiredMarginUsdc + priced.platformFeeUsdc));
      moveOpenInterest(hedge.market, hedge.side, notionalUsd);
    }
    hedge.pendingChange = change;
    schedule('change', account.id, hedge.id, change.dueMs);
    return change;
  }

  function landChange(account: AccountState, hedge: HedgeState, timeMs: number) {
    const change = hedge.pendingChange;
    if (!change) return;
    delete hedge.pendingChange;
    if (hedge.status !== 'filled') {
      // Settled at maturity before the change landed: an add never happened, so refund it.
      if (change.action === 'add') {
        credit(account, change.reservedMarginUsdc + change.reservedFeeUsdc);
        moveOpenInterest(hedge.market, hedge.side, -change.notionalUsd);
      }
      return;
    }
    accrueCarry(hedge, timeMs);
    if (change.action === 'add') landAdd(hedge, change, timeMs);
    else if (change.action === 'close' || reductionClosesFully(hedge.notionalUsd, change.notionalUsd))
      closeAt(account, hedge, 'closed', timeMs);
    else landPartialReduce(account, hedge, change.notionalUsd, timeMs);
  }

  function landAdd(hedge: HedgeState, change: PendingChange, timeMs: number) {
    const fill = quote(hedge.market, hedge.side, change.notionalUsd, timeMs, change.notionalUsd);
    const combined = hedge.notionalUsd + change.notionalUsd;
    // Weighting by notional keeps N×(M−E)/M additive across the open and the add.
    hedge.entryPrice = roundExecutionPrice(
      ((hedge.entryPrice as number) * hedge.notionalUsd + fill.executionPrice * change.notionalUsd) / combined,
    );
    hedge.dailyCarryRatePct =
      (hedge.dailyCarryRatePct * hedge.notionalUsd + change.dailyCarryRatePct * change.notionalUsd) / combined;
    hedge.notionalUsd = combined;
    hedge.units = combined;
    hedge.marginUsdc = roundMoney(hedge.marginUsdc + change.reservedMarginUsdc);
    hedge.feesPaidUsdc = roundMoney(hedge.feesPaidUsdc + change.reservedFeeUsdc);
  }

  function landPartialReduce(account: AccountState, hedge: HedgeState, notionalUsd: number, timeMs: number) {
    const margin = roundMoney(hedge.marginUsdc * (notionalUsd / hedge.notionalUsd));
    realize(account, hedge, notionalUsd, margin, platformFeeUsdc(notionalUsd), timeMs);
    hedge.marginUsdc = roundMoney(hedge.marginUsdc - margin);
    hedge.notionalUsd -= notionalUsd;
    hedge.units = hedge.notionalUsd;
    moveOpenInterest(hedge.market, hedge.side, -notionalUsd);
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
    const exitPrice = markOf(hedge, timeMs);
    const gross = roundMoney(grossPnlUsd(hedge.side, notionalUsd, hedge.entryPrice as number, exitPrice));
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
    hedge.accruedCarryUsdc = 0;
    hedge.status = 'closed';
    hedge.closedAtMs = timeMs;
    hedge.closeReason = reason;
    release(account, hedge);
    const record = {
      hedge_id: hedge.id,
      market: hedge.market,
      side: hedge.side,
      notional_usd: roundMoney(hedge.notionalUsd),
      tenor_days: hedge.tenorDays,
      ...(hedge.clientReference !== undefined ? { client_reference: hedge.clientReference } : {}),
      opened_at: toIso(hedge.openedAtMs),
      closed_at: toIso(timeMs),
      close_reason: reason,
      entry_price: hedge.entryPrice as number,
      exit_price: exitPrice,
      gross_pnl_usd: hedge.realizedGrossUsd,
      carry_usdc: hedge.realizedCarryUsdc,
      fees_usdc: hedge.feesPaidUsdc,
      net_pnl_usd: roundMoney(hedge.realizedGrossUsd - hedge.realizedCarryUsdc - hedge.feesPaidUsdc),
    };
    insertHistoryRecord(account.history, record);
  }

  function release(account: AccountState, hedge: HedgeState) {
    moveOpenInterest(hedge.market, hedge.side, -hedge.notionalUsd);
    const key = activeHedgeKey(hedge.market, hedge.side);
    const stack = account.activeHedgeStacks[key];
    const index = stack ? stack.indexOf(hedge.id) : -1;
    if (index < 0) return;
    stack.splice(index, 1);
    if (stack.length) account.activeHedgeIds[key] = stack[stack.length - 1];
    else {
      delete account.activeHedgeStacks[key];
      delete account.activeHedgeIds[key];
    }
  }

  function accrueCarry(hedge: HedgeState, timeMs: number) {
    if (timeMs <= hedge.carryAccruedToMs) return;
    hedge.accruedCarryUsdc += carryUsdc(
      hedge.notionalUsd,
      hedge.dailyCarryRatePct,
      timeMs - hedge.carryAccruedToMs,
      config.dayMs,
    );
    hedge.carryAccruedToMs = timeMs;
  }

  /** Carry accrued up to `timeMs` without booking it (for views). */
  function accruedCarryAt(hedge: PositionBasis, timeMs: number) {
    const pending = Math.max(0, timeMs - hedge.carryAccruedToMs);
    return hedge.accruedCarryUsdc + carryUsdc(hedge.notionalUsd, hedge.dailyCarryRatePct, pending, config.dayMs);
  }

  return {
    state,
    config,
    markets: config.markets,
    findMarket,
    midPrice,
    markOf,
    quote,
    totalOpenInterest,
    availableCapacityUsd,
    account,
    prepareTrailingViews,
    noteViewChange,
    shownBook,
    shownHistoryLength,
    activeHedge,
    sideHedges,
    hedgesNewestFirst,
    recordShown,
    openExposureUsd,
    exposureLeftUsd,
    random,
    processDueEvents,
    submitOpen,
    recordPastHedge,
    submitChange,
    accruedCarryAt,
  };
}

/** Closes happen in time order, so this nearly always appends; fixtures in the past are placed by search. */
function insertHistoryRecord(history: HistoryRecord[], record: HistoryRecord) {
  const last = history.length - 1;
  const at =
    last < 0 || compareHistoryRecords(history[last], record) <= 0
      ? history.length
      : partitionPoint(last, (index) => compareHistoryRecords(history[index], record) <= 0);
  history.splice(at, 0, record);
}
