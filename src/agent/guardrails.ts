// The agent's limits, set by whoever starts `hedge mcp` (the agent cannot change them):
//   --max-notional USD        no write tool call trades more than this;
//   --max-daily-notional USD  the agent's trades of the last 24 h (journal entries `via: agent` of
//                             this account) plus this call stay within this;
//   --markets LIST            write tools trade only these markets.
// A call over a limit is refused before anything is sent, with a tool error of class `rejected`
// (exit 3) and a code of the error catalogue: max_notional_exceeded, max_daily_notional_exceeded,
// market_not_allowed — details carry the numbers. The check is not a second plan made beside the
// command: the command's own run asks the call's gate (runtime TradeGate) with the plan it is about
// to journal and send, under whatever lock it holds, so what is checked is what is sent. What a
// call trades, in USD of notional:
//   open, add, reduce: its notional; close: the side's open notional (read from the book);
//   roll: the side's notional twice when it closes one (a close and an open), once when the side
//   already settled; apply: every step of its plan, judged whole before the first is sent;
//   resume: what the legs it sends trade (an entry the agent journaled itself is counted already).
// With a daily cap, write calls of one server run one at a time, so two calls cannot both pass on
// the same headroom. (Two servers on one journal are not serialized against each other.)
import { POSITION_FIELD_SYNONYMS, numberOf } from '../api/wire/read-position.js';
import { parseMarket, parseNotional } from '../domain/input.js';
import { formatUsd } from '../domain/money.js';
import { PreTradeCheckError, UsageError } from '../errors.js';
import { keyFingerprint, type JournalEntry } from '../journal/index.js';
import type { Trade, TradeGate } from '../runtime/context.js';
import { safeText } from '../security/safe-text.js';
import type { AgentTool } from './catalogue.js';
import { withCallContext, type AgentSession } from './invoke.js';

export interface AgentLimits {
  maxNotionalUsd?: number;
  maxDailyNotionalUsd?: number;
  /** Upper-cased. */
  markets?: readonly string[];
}

/** The limits as a preview shows them (snake_case, like the rest of the tool's JSON). */
export interface LimitsView {
  this_call_usd: number;
  max_notional_usd?: number;
  max_daily_notional_usd?: number;
  used_last_24h_usd?: number;
  allowed_markets?: readonly string[];
}

export const DAY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Entries that did nothing: they do not count toward the daily cap. */
const DID_NOTHING = new Set(['rejected', 'abandoned', 'failed']);

/** `hedge mcp`'s limit options, checked (exit 2 for a bad one, before the server starts). */
export function parseAgentLimits(options: { maxNotional?: string; maxDailyNotional?: string; markets?: string }): AgentLimits {
  const limits: AgentLimits = {};
  if (options.maxNotional !== undefined) limits.maxNotionalUsd = parseNotional(options.maxNotional, '--max-notional');
  if (options.maxDailyNotional !== undefined) limits.maxDailyNotionalUsd = parseNotional(options.maxDailyNotional, '--max-daily-notional');
  if (options.markets !== undefined) {
    const names = options.markets.split(',').map((name) => name.trim()).filter((name) => name !== '');
    if (names.length === 0) throw new UsageError('--markets: expected market names separated by commas, e.g. USDTNGN,USDTKES.');
    limits.markets = [...new Set(names.map((name) => parseMarket(name)))];
  }
  return limits;
}

/** `at most 25,000.00 USD per call, 100,000.00 USD per 24 h, markets USDTNGN`. */
export function describeLimits(limits: AgentLimits): string {
  const parts: string[] = [];
  if (limits.maxNotionalUsd !== undefined) parts.push(`at most ${formatUsd(limits.maxNotionalUsd)} per call`);
  if (limits.maxDailyNotionalUsd !== undefined) parts.push(`${formatUsd(limits.maxDailyNotionalUsd)} per 24 h`);
  if (limits.markets) parts.push(`markets ${limits.markets.join(', ')}`);
  return parts.join(', ');
}

export function hasLimits(limits: AgentLimits): boolean {
  return limits.maxNotionalUsd !== undefined || limits.maxDailyNotionalUsd !== undefined || limits.markets !== undefined;
}

/** What a journal entry traded: its body's notional (open, add, reduce), or what it journaled (close). */
export function entryNotional(entry: Pick<JournalEntry, 'request' | 'context'>): number {
  const body = entry.request?.body;
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    for (const name of POSITION_FIELD_SYNONYMS.notionalUsd) {
      const value = numberOf((body as Record<string, unknown>)[name]);
      if (value !== undefined) return Math.abs(value);
    }
  }
  return Math.abs(numberOf(entry.context?.notional_usd) ?? 0);
}

/**
 * One call's gate: every trade the call's command is about to journal and send is admitted here
 * first, from the plan the command will carry out (an apply's steps, a roll's legs, an open's
 * request, a close's side as the book shows it under the command's lock). The call's trades add
 * up, so an apply or roll is judged whole before its first leg, and a resumed leg of the same call
 * is not counted twice.
 */
class CallGate implements TradeGate {
  private callUsd = 0;
  private usedBefore?: { entries: JournalEntry[]; used: number };
  readonly view: LimitsView = { this_call_usd: 0 };

  constructor(
    private readonly limits: AgentLimits,
    private readonly tool: string,
    private readonly counted: () => Promise<JournalEntry[]>,
  ) {
    if (limits.markets) this.view.allowed_markets = limits.markets;
    if (limits.maxNotionalUsd !== undefined) this.view.max_notional_usd = limits.maxNotionalUsd;
    if (limits.maxDailyNotionalUsd !== undefined) this.view.max_daily_notional_usd = limits.maxDailyNotionalUsd;
  }

  async admit(trades: readonly Trade[] | undefined, what: string): Promise<void> {
    const name = this.tool;
    if (trades === undefined) {
      // A write whose size cannot be told trades an unknown amount: refused under any limit.
      throw new PreTradeCheckError(
        'max_notional_exceeded',
        `${name}: how much this ${what} trades cannot be told, so this agent's limits refuse it; nothing was sent.`,
        {},
        'Use open, add, reduce, close, roll, apply or resume.',
      );
    }
    const { markets, maxNotionalUsd, maxDailyNotionalUsd } = this.limits;
    if (markets) {
      const outside = trades.find((trade) => !markets.includes(trade.market.toUpperCase()));
      if (outside) {
        throw new PreTradeCheckError(
          'market_not_allowed',
          `${name}: ${safeText(outside.market)} is not a market this agent may trade (hedge mcp --markets ${markets.join(',')}); nothing was sent.`,
          { market: outside.market, allowed_markets: markets },
          'Trade one of the allowed markets, or ask the operator to restart hedge mcp with another --markets list.',
        );
      }
    }
    const adding = roundCents(trades.reduce((sum, trade) => sum + Math.abs(trade.notionalUsd), 0));
    const thisCall = roundCents(this.callUsd + adding);
    if (maxNotionalUsd !== undefined && thisCall > maxNotionalUsd) {
      throw new PreTradeCheckError(
        'max_notional_exceeded',
        `${name}: this call trades ${formatUsd(thisCall)}, over this agent's cap of ${formatUsd(maxNotionalUsd)} per call (hedge mcp --max-notional); nothing was sent.`,
        { this_call_usd: thisCall, max_notional_usd: maxNotionalUsd, trades: trades.map(({ market, notionalUsd }) => ({ market, notional_usd: notionalUsd })) },
        `Call it with at most ${formatUsd(maxNotionalUsd)} of notional (split it, or reduce instead of close), or ask the operator to raise --max-notional.`,
      );
    }
    if (maxDailyNotionalUsd !== undefined) {
      // The agent's entries before this call, read once: this call's own legs are counted by callUsd.
      this.usedBefore ??= await this.counted().then((entries) => ({ entries, used: roundCents(entries.reduce((sum, entry) => sum + entryNotional(entry), 0)) }));
      const { entries, used } = this.usedBefore;
      this.view.used_last_24h_usd = used;
      if (used + thisCall > maxDailyNotionalUsd) {
        const freesAt = freedAt(entries, thisCall, maxDailyNotionalUsd);
        throw new PreTradeCheckError(
          'max_daily_notional_exceeded',
          `${name}: this call (${formatUsd(thisCall)}) and this agent's trades of the last 24 h (${formatUsd(used)}) pass its daily cap of ${formatUsd(maxDailyNotionalUsd)} (hedge mcp --max-daily-notional); nothing was sent.`,
          {
            this_call_usd: thisCall,
            used_last_24h_usd: used,
            max_daily_notional_usd: maxDailyNotionalUsd,
            room_usd: roundCents(Math.max(0, maxDailyNotionalUsd - used)),
            frees_at: freesAt === undefined ? null : new Date(freesAt).toISOString(),
          },
          freesAt === undefined
            ? `This call alone is over the daily cap: trade at most ${formatUsd(maxDailyNotionalUsd)}.`
            : `Trade at most ${formatUsd(Math.max(0, maxDailyNotionalUsd - used))} now, or call again after ${new Date(freesAt).toISOString()}.`,
        );
      }
    }
    this.callUsd = thisCall;
    this.view.this_call_usd = thisCall;
  }
}

export class AgentGuardrails {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly limits: AgentLimits,
    private readonly session: AgentSession,
  ) {}

  get active(): boolean {
    return hasLimits(this.limits);
  }

  /** Runs `work` after the write calls before it (only one at a time under a daily cap). */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (this.limits.maxDailyNotionalUsd === undefined) return work();
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * The gate of one write call (see CallGate): the command's own run asks it, with the plan it is
   * about to send, before anything is journaled or sent; a refusal is a PreTradeCheckError (exit 3).
   */
  gateFor(tool: AgentTool): TradeGate & { readonly view: LimitsView } {
    return new CallGate(this.limits, tool.name, () => this.countedEntries());
  }

  /** The agent's entries of this account in the last 24 h that did something. */
  private async countedEntries(): Promise<JournalEntry[]> {
    const { credentials } = this.session;
    const host = credentials.sources.baseUrl === 'demo' ? 'demo' : new URL(credentials.baseUrl).host;
    const keyId = keyFingerprint(credentials.apiKey);
    const since = this.session.clock.now() - DAY_WINDOW_MS;
    return withCallContext(this.session, new AbortController().signal, async (ctx) => {
      const entries = await (await ctx.journal()).list({ since });
      return entries.filter(
        (entry) =>
          entry.via === 'agent' &&
          entry.environment === credentials.environment &&
          entry.base_url_host === host &&
          entry.key_id === keyId &&
          !DID_NOTHING.has(entry.outcome),
      );
    });
  }
}

function roundCents(value: number): number {
  return Math.round(value * 100) / 100;
}

/**
 * When enough of the counted entries have left the 24 h window for `fresh` more to fit under the
 * cap; undefined when `fresh` alone is over it.
 */
function freedAt(counted: readonly JournalEntry[], fresh: number, cap: number): number | undefined {
  if (fresh > cap) return undefined;
  const oldestFirst = [...counted].sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
  let used = counted.reduce((sum, entry) => sum + entryNotional(entry), 0);
  for (const entry of oldestFirst) {
    used -= entryNotional(entry);
    if (used + fresh <= cap) return Date.parse(entry.created_at) + DAY_WINDOW_MS;
  }
  return undefined;
}
