// `hedge exposures FILE`: the target book, its schedule, the projected cost and the stress table,
// from the exposures, the policy and the server's reads (a quote for each fee unless --fee-bps). No write.
import { inputFileProblems, readInputFile } from '../write/input-file.js';
import { type MarketFacts, MAX_PAGE_SIZE } from '../../core/wire.js';
import type { HedgeClient } from '../../platform/api/client.js';
import { parseExposuresFile, type Exposure } from './exposures-file.js';
import { parsePolicyFile, policyAsData, resolvePolicy, type PolicyFlags } from './exposure-policy.js';
import { DAY_MS } from '../../core/vocabulary.js';
import { utcIso } from '../../core/utc-text.js';
import {
  exposureLines,
  marketsOf,
  projectedCost,
  scheduleOfChanges,
  stressTable,
  targetBook,
  targetRowsAt,
  coveragePerWeek,
  costToDate,
  effectiveness,
  EFFECTIVE_BAND_PCT,
  firstCoverOf,
  hedgesOf,
  sum,
  type CoverHedge,
} from './exposures-rules.js';
import { readHistoryRecord, readPosition } from '../../platform/api/wire/fields.js';
import { walkHistory } from '../report/report.js';
import { recordStanding } from '../book/book.js';
import { findMarket, quoteCurrencyOf, unlistedMarketError } from '../../core/markets.js';
import { UsageError } from '../../core/errors.js';
import { DEFAULT_ROLL_BEFORE_MS } from '../../core/keep-rules.js';
import type { WritePorts } from '../write/ports.js';
import type { MovingTarget } from '../keeper/keep.js';
import { safeText } from '../../core/security/safe-text.js';
import { formatMoney, formatUsd, plural } from '../../core/number-format.js';

interface ExposuresInput {
  /** A path, or `-` for stdin. */
  file: string;
  policyFile?: string;
  flags: PolicyFlags;
  /** Basis points of the notional traded; when given, no quote is asked for the fee. */
  feeBps?: number;
}

const warn = (ports: WritePorts, kind: string, text: string) => ports.notify({ kind, level: 'warn', text });

/** The exposures, or one UsageError (exit 2) listing every bad row as `file:LINE: row N: field: …`; and the policy: defaults, the policy file when given, then the flags. */
async function readInputs(ports: WritePorts, input: ExposuresInput) {
  const { text, sourceName } = await readInputFile(ports, input.file, 'exposures file');
  const parsed = parseExposuresFile(text, { sourceName });
  if ('problems' in parsed)
    throw inputFileProblems(
      sourceName,
      parsed.problems,
      'Fix every row listed, then run the command again. Columns: id,market,type,amount,currency,due[,hedge_ratio] (docs/exposures.md).',
    );
  const policyFile =
    input.policyFile === undefined ? undefined : await readInputFile(ports, input.policyFile, 'policy file');
  const policy = resolvePolicy(
    policyFile ? parsePolicyFile(policyFile.text, safeText(policyFile.sourceName)) : {},
    input.flags,
  );
  refuseForeignBooks(
    policy.functional,
    parsed.rows,
    input.flags.functional === undefined ? '--policy: functional' : '--functional',
  );
  return { exposures: parsed.rows, source: sourceName, policy, client: await ports.client() };
}

/** Books are kept in USD or in the quote currency of every market the file names (docs/exposures.md): any other
 * currency would be read as USD without a word, so it is refused before anything is read from the server. `where`
 * names the setting that chose the currency. */
function refuseForeignBooks(functional: string, exposures: readonly Exposure[], where: string) {
  if (functional === 'USD') return;
  const markets = [...new Set(exposures.map((exposure) => exposure.market.toUpperCase()))];
  const foreign = markets.filter((market) => quoteCurrencyOf(market) !== functional);
  if (!foreign.length) return;
  const quotes = markets.map((market) => `${market}: ${quoteCurrencyOf(market) ?? '?'}`).join(', ');
  throw new UsageError(
    `${where}: ${functional} is neither USD nor the quote currency of every market in the file (${quotes}); expected USD, or the one quote currency of its markets.`,
  );
}

/** A market's fee rate from one quote of the side and tenor it will hold; refused at that size, once more at 1,000 USD (the fee is a share of the notional either way); undefined when neither is quoted. */
async function quotedFeeRate(
  client: HedgeClient,
  market: string,
  book: ReturnType<typeof targetBook>,
  ports: WritePorts,
) {
  const held = book.find((row) => row.market === market && row.target_usd > 0);
  for (const notional of new Set([Math.max(1000, Math.round(held?.target_usd ?? 1000)), 1000])) {
    try {
      const quote = await client.createQuote({
        market,
        side: held?.side ?? 'buy',
        notional_usd: notional,
        tenor_days: held?.tenor_days ?? 7,
      });
      const quoted = quote.notional_usd || notional;
      return quoted > 0 ? quote.upfront.platform_fee_usdc / quoted : undefined;
    } catch (error) {
      ports.log(
        `${market}: no quote for ${formatUsd(notional)} (${error instanceof Error ? safeText(error.message) : 'unknown'})`,
      );
    }
  }
}

/** Each market of the exposures: its price and its daily carry per side, from the server's list; an unlisted one is an error. */
function marketFacts(listed: MarketFacts[], exposures: readonly Exposure[]) {
  const prices: Record<string, number> = {};
  const carryDailyPct: Record<string, MarketFacts['net_rate_daily_pct']> = {};
  for (const market of marketsOf(exposures)) {
    const facts = findMarket(listed, market);
    if (!facts) throw unlistedMarketError(listed, market);
    prices[market] = facts.price;
    carryDailyPct[market] = facts.net_rate_daily_pct;
  }
  return { prices, carryDailyPct };
}

/** Everything `hedge exposures` shows, as its JSON document, from the file, the policy and the server's reads; what the server would refuse and a fee not known are said as warnings. */
export async function gatherExposures(ports: WritePorts, input: ExposuresInput) {
  const { exposures, source, policy, client } = await readInputs(ports, input);
  const [list, account, positions] = await Promise.all([
    client.listMarkets(),
    client.getAccount().catch(() => undefined),
    client.listPositions().catch(() => undefined),
  ]);
  const nowMs = ports.clock.now();
  const { prices, carryDailyPct } = marketFacts(list.markets, exposures);
  const facts = [exposures, policy, prices, nowMs] as const;
  const book = targetBook(...facts);
  /** Market → the fee as a share of the notional (undefined: unknown). */
  const feeRate: Record<string, number | undefined> = {};
  const { feeBps } = input;
  for (const market of Object.keys(prices))
    feeRate[market] = feeBps === undefined ? await quotedFeeRate(client, market, book, ports) : feeBps / 10_000;
  // No account (a read refused): left out.
  const available = account?.available_exposure_usd;
  // What the book's markets hold now (a line without a market is the only one): the headroom is net of it.
  const held = sum(
    positions?.map(readPosition).filter((line) => line.market === undefined || line.market in prices) ?? [],
    (line) => line.notionalUsd ?? 0,
  );
  const target = sum(book, (row) => row.target_usd);
  // The headroom is net of what is open: reaching the target adds only what it holds beyond that.
  if (available !== undefined && target - held > available)
    warn(
      ports,
      'exposures',
      `The target book (${formatMoney(target)} USD) is above what its markets hold (${formatMoney(held)} USD) by more than the account's available exposure (${formatMoney(available)} USD): the server would refuse part of it.`,
    );
  for (const [market, rate] of Object.entries(feeRate))
    if (rate === undefined)
      warn(
        ports,
        'exposures',
        `${market}: the fee could not be quoted; the projected cost shows carry only (give it with --fee-bps).`,
      );
  return {
    as_of: utcIso(nowMs),
    source,
    policy: policyAsData(policy),
    prices,
    // The fee in basis points, and where it came from.
    fees: Object.fromEntries(
      Object.entries(feeRate).map(([market, rate]) => [
        market,
        {
          rate_bps: rate === undefined ? null : Math.round(rate * 1e6) / 100,
          from: feeBps !== undefined ? '--fee-bps' : rate === undefined ? 'unknown' : 'quote',
        },
      ]),
    ),
    ...(available === undefined ? {} : { available_exposure_usd: available }),
    exposures: exposureLines(...facts),
    book,
    schedule: scheduleOfChanges(...facts),
    cost: projectedCost(...facts, carryDailyPct, feeRate),
    stress: stressTable(...facts),
  };
}

/** Everything `hedge exposures FILE` shows (renderExposureSections says it). */
export type ExposuresView = Awaited<ReturnType<typeof gatherExposures>>;

// ---- --report ------------------------------------------------------------------------------

/** The markets, and every hedge of the account as the report reads it: history's closed ones (every page), then the filled ones still open. */
async function coverHedges(client: HedgeClient) {
  const [list, filled] = await Promise.all([
    client.listMarkets(),
    client.readHedges({ status: 'filled', limit: MAX_PAGE_SIZE, checkCut: true }),
  ]);
  const onlyMarket = list.markets.length === 1 ? list.markets[0].market : undefined;
  const hedges: CoverHedge[] = [];
  let skipped = 0;
  const ended = new Set<string>();
  const walk = await walkHistory(client, {}, (raw) => {
    const facts = readHistoryRecord(raw);
    const { side, notionalUsd, openedAt, closedAt, hedgeId } = facts;
    const market = facts.market ?? onlyMarket;
    if (hedgeId !== undefined) ended.add(hedgeId);
    // A closed hedge that says too little (no side, size or time) is left out, and counted.
    if (market === undefined || side === undefined || notionalUsd === undefined || closedAt === undefined) {
      skipped += 1;
      return;
    }
    const closedAtMs = Date.parse(closedAt);
    // The prices, P&L, carry and fees under the same names.
    hedges.push({
      ...facts,
      market: market.toUpperCase(),
      side,
      notionalUsd,
      openedAtMs: openedAt === undefined ? closedAtMs : Date.parse(openedAt),
      closedAtMs,
    });
  });
  for (const hedge of filled.items) {
    // Filled as the side model reads its record with the history (a server may leave an early-closed hedge `filled`).
    const openedAtMs = Date.parse(hedge.opened_at || hedge.filled_at || '');
    if (recordStanding(hedge, ended).standing !== 'filled' || !Number.isFinite(openedAtMs)) continue;
    const { market, side, notional_usd: notionalUsd, struck_rate } = hedge;
    hedges.push({ market: market.toUpperCase(), side, notionalUsd, openedAtMs, entryPrice: struck_rate ?? undefined });
  }
  return {
    list,
    hedges,
    walk,
    skipped,
    // The filled hedges read, when more may exist (a next page hedge cannot ask for, or a page size the server ignores).
    filledCut: filled.cutAt ?? (filled.more ? filled.items.length : undefined),
  };
}

/** Sizing `fixed`: each exposure's first cover price (its market's earliest hedge's entry, as the report's effectiveness takes it); an exposure of a market with no hedge yet is left out. */
async function firstCoverPrices(client: HedgeClient, exposures: readonly Exposure[], known: Map<string, number>) {
  const missing = marketsOf(exposures).filter((market) => !known.has(market));
  const { hedges } = missing.length ? await coverHedges(client) : { hedges: [] };
  for (const market of missing) {
    const first = firstCoverOf(hedgesOf(hedges, market));
    // The earliest hedge never changes once there is one (hedges are opened now, never in the past): kept for the keeper's life.
    if (first) known.set(market, first.entryPrice!);
  }
  return Object.fromEntries(
    exposures.filter(({ market }) => known.has(market)).map((e) => [e.id, known.get(e.market)!]),
  );
}

/** The report: the exposures and policy, the markets' prices, every closed hedge and the open ones. */
export async function gatherExposureReport(ports: WritePorts, input: ExposuresInput) {
  const { exposures, source, policy, client } = await readInputs(ports, input);
  const { list, hedges, walk, skipped, filledCut } = await coverHedges(client);
  if (filledCut !== undefined)
    warn(
      ports,
      'filled-cut',
      `GET /hedges?status=filled may hold more than the ${filledCut} filled hedges read (the server gave no next page; it may not read the page size hedge sends): coverage and effectiveness count these only. \`hedge doctor\` shows how it pages; set HEDGE_WIRE_PAGE_SIZE_PARAM to its page-size parameter.`,
    );
  const { prices } = marketFacts(list.markets, exposures);
  if (skipped > 0)
    warn(
      ports,
      'history-unreadable',
      `${plural(skipped, 'closed hedge')} of history without a readable market, side, notional or close time: left out of the report.`,
    );
  // History's times are the server's: when its clock is far from ours (a simulator's running fast,
  // a server's clock off), the weeks run to its now; otherwise to ours (to the ms, where the Date
  // header is to the second).
  const serverNowMs = client.transport.serverNow().bestMs;
  const nowMs = Math.abs(serverNowMs - ports.clock.now()) > OFFSET_WORTH_MEASURING_MS ? serverNowMs : ports.clock.now();
  if (!walk.complete)
    warn(
      ports,
      'history-incomplete',
      `GET /hedges/history returned ${walk.fetched} closed hedges and may hold older ones: the cost to date may be incomplete.`,
    );
  return {
    as_of: utcIso(nowMs),
    source,
    policy: policyAsData(policy),
    prices,
    history_complete: walk.complete,
    effective_band_pct: [...EFFECTIVE_BAND_PCT],
    coverage: coveragePerWeek(exposures, policy, prices, hedges, nowMs),
    cost: costToDate(marketsOf(exposures), hedges),
    effectiveness: effectiveness(exposures, policy, prices, hedges, nowMs),
  };
}

/** What `hedge exposures FILE --report` shows, as its JSON document (renderExposureSections and exposureReportHtml say it). */
export type ExposureReportView = Awaited<ReturnType<typeof gatherExposureReport>>;

// ---- hedge keep --exposures ------------------------------------------------------------------

/** A server clock further than this from ours may be a simulator's running fast: its rate is measured before the first cycle. */
const OFFSET_WORTH_MEASURING_MS = 5 * 60_000;
/** How long the first cycle waits between its two reads of the server's clock (its Date header is to the second). */
const RATE_PROBE_MS = 500;

/** Server ms per own ms between two reads `ownMs` apart, at least 1; the Date header's second of rounding taken off. */
export function rateBetween(serverFromMs: number, serverToMs: number, ownMs: number) {
  return Math.max(1, (serverToMs - serverFromMs - 1000) / Math.max(1, ownMs));
}

/** The keeper's moving target (`hedge keep FILE --exposures`): the rows at each cycle, each side's band as its tolerance; an exposure due or a hedge maturing within two cycles is acted on now. */
export function exposuresKeepTarget(input: ExposuresInput, intervalMs: number): MovingTarget {
  // The server's time and ours at the last cycle: how far its clock moves per cycle, and how fast
  // it runs against ours (a simulator's may run fast: `sandbox serve --clock-speed`).
  let last: { serverMs: number; ownMs: number } | undefined;
  let rate = 1;
  const firstPrices = new Map<string, number>();
  return async (ports) => {
    const { clock } = ports;
    const { exposures, policy, client } = await readInputs(ports, input);
    const firstCover = policy.sizing === 'fixed' ? await firstCoverPrices(client, exposures, firstPrices) : {};
    let list = await client.listMarkets();
    // The server's time, as the keeper compares maturities with it (a simulator's clock may run fast).
    // The latest it can be: an exposure is let go, a hedge rolled, no later than the server's clock says.
    let nowMs = client.transport.serverNow().latestMs;
    if (last === undefined && Math.abs(client.transport.serverNow().bestMs - clock.now()) > OFFSET_WORTH_MEASURING_MS) {
      // A keeper (re)started against a server whose clock is far from ours: if that clock runs fast,
      // a cycle of ours is more of its time, and a lead of two of our intervals would let a due date
      // or a maturity pass before the next cycle. Its rate is measured once, before anything else.
      const firstReadAtMs = clock.now();
      await clock.sleep(RATE_PROBE_MS, ports.signal);
      list = await client.listMarkets();
      const laterMs = client.transport.serverNow().latestMs;
      rate = rateBetween(nowMs, laterMs, clock.now() - firstReadAtMs);
      nowMs = laterMs;
    } else if (last !== undefined && clock.now() - last.ownMs >= RATE_PROBE_MS)
      rate = rateBetween(last.serverMs, nowMs, clock.now() - last.ownMs);
    // Two cycles ahead: an exposure is let go at the last cycle before its due date, even when one
    // cycle is missed (a restart), so the book is never above its cover once the money has moved.
    // A cycle is our interval at the server's rate, or the server time the last one took if longer.
    const cycleMs = Math.max(intervalMs * rate, last === undefined ? 0 : nowMs - last.serverMs);
    last = { serverMs: nowMs, ownMs: clock.now() };
    const { prices } = marketFacts(list.markets, exposures);
    const dueLeadMs = 2 * cycleMs;
    return targetRowsAt(exposures, policy, prices, nowMs, firstCover, dueLeadMs).map(
      ({ market, side, notionalUsd, tenorDays, untilMs }) => ({
        market,
        side,
        notionalUsd,
        // Every hedge of a side, through its rolls, carries one reference (`EXPOSURES-USDTNGN-BUY`): its deal (history
        // --ref, acct designate).
        clientReference: `EXPOSURES-${market}-${side}`.toUpperCase(),
        tenorDays,
        // The side ends when its last exposure is let go: a hedge maturing after that is not renewed.
        untilMs: untilMs === undefined ? undefined : untilMs - dueLeadMs,
        // Rolled at the last cycle before its maturity too (never as long as half its tenor: a new
        // hedge would be rolled again at once).
        ...(tenorDays === undefined
          ? {}
          : { rollBeforeMs: Math.min(Math.max(DEFAULT_ROLL_BEFORE_MS, dueLeadMs), (tenorDays * DAY_MS) / 2) }),
        toleranceUsd: (notionalUsd * policy.bandPct) / 100,
      }),
    );
  };
}
