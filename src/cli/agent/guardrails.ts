// The agent's limits, set by whoever starts `hedge mcp` (the agent cannot change them): --max-notional USD no write
// tool call trades more than this; --max-daily-notional USD the agent's trades of the last 24 h (journal entries `via:
// agent` of this account) plus this call stay within this; --markets LIST write tools trade only these markets.
import { parseMarket, parseNotional } from '../../core/input.js';
import { formatUsd } from '../../core/number-format.js';
import { cents } from '../../core/money.js';
import { PreTradeCheckError, UsageError } from '../../core/errors.js';
import type { JournalEntry } from '../../platform/journal/index.js';
import { identityOf, sentBy } from '../../features/write/identity.js';
import type { Readmission, Trade, TradeGate } from '../../platform/runtime/context.js';
import { tradedUsd } from '../../features/write/send-gate.js';
import { safeText } from '../../core/security/safe-text.js';
import type { AgentTool } from './catalogue.js';
import { withCallContext, type AgentSession } from './invoke.js';

export type AgentLimits = Partial<ReturnType<typeof parseAgentLimits>>;

const DAY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Entries that did nothing: they do not count toward the daily cap. */
const DID_NOTHING = new Set(['rejected', 'abandoned', 'failed']);

/** `hedge mcp`'s limit options, checked (exit 2 for a bad one, before the server starts). */
export function parseAgentLimits({
  maxNotional,
  maxDailyNotional,
  markets,
}: Partial<Record<'maxNotional' | 'maxDailyNotional' | 'markets', string>>) {
  const maxNotionalUsd = maxNotional === undefined ? undefined : parseNotional(maxNotional, '--max-notional');
  const maxDailyNotionalUsd =
    maxDailyNotional === undefined ? undefined : parseNotional(maxDailyNotional, '--max-daily-notional');
  const names = markets
    ?.split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names?.length === 0)
    throw new UsageError('--markets: expected market names separated by commas, e.g. USDTNGN,USDTKES.');
  return {
    maxNotionalUsd,
    maxDailyNotionalUsd,
    markets: names && [...new Set(names.map(parseMarket))],
  };
}

/** `at most 25,000.00 USD per call, 100,000.00 USD per 24 h, markets USDTNGN`; empty when no limit is set. */
export function describeLimits({ maxNotionalUsd: call, maxDailyNotionalUsd: day, markets }: AgentLimits) {
  return [
    call !== undefined && `at most ${formatUsd(call)} per call`,
    day !== undefined && `${formatUsd(day)} per 24 h`,
    markets && `markets ${markets.join(', ')}`,
  ]
    .filter(Boolean)
    .join(', ');
}

/** One call's gate: every trade the call's command is about to journal and send is admitted here first, from the plan the command will carry out (an apply's steps, a roll's legs, an open's request, a close's side as the book shows it under the command's lock). */
export class CallGate implements TradeGate {
  private callUsd = 0;
  private usedUsd?: number;
  private countedBefore?: JournalEntry[];
  /** Entries this call finishes (resumes): judged as this call's trades, no longer as counted before. */
  private readonly finishing = new Set<string>();

  constructor(
    private readonly limits: AgentLimits,
    private readonly tool: string,
    private readonly counted: () => Promise<JournalEntry[]>,
  ) {}

  /** The limits as a preview shows them (snake_case, like the rest of the tool's JSON; what is unset is left out). */
  get view() {
    return {
      this_call_usd: this.callUsd,
      allowed_markets: this.limits.markets,
      max_notional_usd: this.limits.maxNotionalUsd,
      max_daily_notional_usd: this.limits.maxDailyNotionalUsd,
      used_last_24h_usd: this.usedUsd,
    };
  }

  async admit(trades: readonly Trade[] | undefined, what: string, again: Readmission = {}) {
    const name = this.tool;
    // Judged again at a retry: it was admitted once, and is not sent again when refused now.
    const unsent = again.replacing ? 'it was not sent again' : 'nothing was sent';
    if (trades === undefined) {
      // A write whose size cannot be told trades an unknown amount: refused under any limit.
      throw new PreTradeCheckError(
        'max_notional_exceeded',
        `${name}: how much this ${what} trades cannot be told, so this agent's limits refuse it; ${unsent}.`,
        {},
        'Use open, add, reduce, close, roll, apply or resume.',
      );
    }
    const { markets, maxNotionalUsd, maxDailyNotionalUsd } = this.limits;
    const outside = markets && trades.find((trade) => !markets.includes(trade.market.toUpperCase()));
    if (outside)
      throw new PreTradeCheckError(
        'market_not_allowed',
        `${name}: ${safeText(outside.market)} is not a market this agent may trade (hedge mcp --markets ${markets.join(',')}); ${unsent}.`,
        { market: outside.market, allowed_markets: markets },
        'Trade one of the allowed markets, or ask the operator to restart hedge mcp with another --markets list.',
      );
    const thisCall = cents(this.callUsd - sumUsd(again.replacing ?? []) + sumUsd(trades));
    if (maxNotionalUsd !== undefined && thisCall > maxNotionalUsd)
      throw new PreTradeCheckError(
        'max_notional_exceeded',
        `${name}: this call trades ${formatUsd(thisCall)}, over this agent's cap of ${formatUsd(maxNotionalUsd)} per call (hedge mcp --max-notional); ${unsent}.`,
        {
          this_call_usd: thisCall,
          max_notional_usd: maxNotionalUsd,
          trades: trades.map(({ market, notionalUsd }) => ({ market, notional_usd: notionalUsd })),
        },
        `Call it with at most ${formatUsd(maxNotionalUsd)} of notional (split it, or reduce instead of close), or ask the operator to raise --max-notional.`,
      );
    if (again.finishing !== undefined) this.finishing.add(again.finishing);
    if (maxDailyNotionalUsd !== undefined) {
      this.countedBefore ??= await this.counted();
      const entries = this.countedBefore.filter((entry) => !this.finishing.has(entry.id));
      const used = (this.usedUsd = cents(entries.reduce((sum, entry) => sum + tradedUsd(entry), 0)));
      if (used + thisCall > maxDailyNotionalUsd) {
        const freesAt = freedAt(entries, thisCall, maxDailyNotionalUsd);
        throw new PreTradeCheckError(
          'max_daily_notional_exceeded',
          `${name}: this call (${formatUsd(thisCall)}) and this agent's trades of the last 24 h (${formatUsd(used)}) pass its daily cap of ${formatUsd(maxDailyNotionalUsd)} (hedge mcp --max-daily-notional); ${unsent}.`,
          {
            this_call_usd: thisCall,
            used_last_24h_usd: used,
            max_daily_notional_usd: maxDailyNotionalUsd,
            room_usd: cents(Math.max(0, maxDailyNotionalUsd - used)),
            frees_at: freesAt === undefined ? null : new Date(freesAt).toISOString(),
          },
          freesAt === undefined
            ? `This call alone is over the daily cap: trade at most ${formatUsd(maxDailyNotionalUsd)}.`
            : `Trade at most ${formatUsd(Math.max(0, maxDailyNotionalUsd - used))} now, or call again after ${new Date(freesAt).toISOString()}.`,
        );
      }
    }
    this.callUsd = thisCall;
  }
}

export class AgentGuardrails {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly limits: AgentLimits,
    private readonly session: AgentSession,
  ) {}

  /** Runs `work` after the write calls before it (only one at a time under a daily cap). */
  exclusive<T>(work: () => Promise<T>) {
    if (this.limits.maxDailyNotionalUsd === undefined) return work();
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The gate of one write call (see CallGate): the command's own run asks it, with the plan it is about to send, before anything is journaled or sent; a refusal is a PreTradeCheckError (exit 3). */
  gateFor(tool: AgentTool) {
    return new CallGate(this.limits, tool.name, () => this.countedEntries());
  }

  /** The agent's entries of this account in the last 24 h that did something. */
  private async countedEntries() {
    const since = this.session.clock.now() - DAY_WINDOW_MS;
    return withCallContext(this.session, async (ctx) => {
      const identity = await identityOf(ctx);
      return (await (await ctx.journal()).list({ since })).filter(
        (entry) => entry.via === 'agent' && sentBy(identity, entry) && !DID_NOTHING.has(entry.outcome),
      );
    });
  }
}

/** The USD the trades move, to the cent. */
export function sumUsd(trades: readonly Trade[]) {
  return cents(trades.reduce((sum, trade) => sum + Math.abs(trade.notionalUsd), 0));
}

/** When enough of the counted entries have left the 24 h window for `fresh` more to fit under the cap; undefined when `fresh` alone is over it. */
function freedAt(counted: readonly JournalEntry[], fresh: number, cap: number) {
  if (fresh > cap) return;
  let used = counted.reduce((sum, entry) => sum + tradedUsd(entry), 0);
  const freeing = counted
    .toSorted((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at))
    .find((entry) => (used -= tradedUsd(entry)) + fresh <= cap);
  return freeing && Date.parse(freeing.created_at) + DAY_WINDOW_MS;
}
