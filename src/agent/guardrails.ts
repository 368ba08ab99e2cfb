// The agent's limits, set by whoever starts `hedge mcp` (the agent cannot change them):
//   --max-notional USD        no write tool call trades more than this;
//   --max-daily-notional USD  the agent's trades of the last 24 h (journal entries `via: agent` of
//                             this account) plus this call stay within this;
//   --markets LIST            write tools trade only these markets.
// A call over a limit is refused before anything is sent, with a tool error of class `rejected`
// (exit 3) and a code of the error catalogue: max_notional_exceeded, max_daily_notional_exceeded,
// market_not_allowed — details carry the numbers. What a call trades, in USD of notional:
//   open, add, reduce: its notional; close: the side's open notional (read from the book);
//   roll: twice the side's notional (a close and an open); apply: every step of its plan;
//   resume: what the journal entry it finishes trades.
// With a daily cap, write calls of one server run one at a time, so two calls cannot both pass on
// the same headroom. (Two servers on one journal are not serialized against each other.)
import { POSITION_FIELD_SYNONYMS, numberOf } from '../api/read-position.js';
import type { RawInput } from '../cli/command-spec.js';
import { parseMarket, parseNotional, parseSide } from '../domain/input.js';
import { formatUsd } from '../domain/money.js';
import { PreTradeCheckError, UsageError } from '../errors.js';
import { findSide, readBook } from '../flows/positions.js';
import { isUnresolved, keyFingerprint, type JournalEntry } from '../journal/index.js';
import type { CommandContext } from '../runtime/context.js';
import type { AgentTool } from './catalogue.js';
import { withCallContext, type AgentSession } from './invoke.js';

export interface AgentLimits {
  maxNotionalUsd?: number;
  maxDailyNotionalUsd?: number;
  /** Upper-cased. */
  markets?: readonly string[];
}

/** One market's share of what a call trades. */
export interface Trade {
  market: string;
  notionalUsd: number;
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

function entryMarket(entry: Pick<JournalEntry, 'request'>): string | undefined {
  const market = (entry.request?.body as Record<string, unknown> | null | undefined)?.market;
  return typeof market === 'string' ? market.toUpperCase() : undefined;
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
   * Checks a write tool call against the limits; throws PreTradeCheckError (nothing sent) when it
   * is over one, else returns the numbers for a preview.
   */
  async check(tool: AgentTool, input: RawInput, signal: AbortSignal): Promise<LimitsView> {
    return withCallContext(this.session, signal, async (ctx) => {
      const { trades, resumed } = await this.tradesOf(ctx, tool, input);
      const thisCall = roundCents(trades.reduce((sum, trade) => sum + trade.notionalUsd, 0));
      const { markets, maxNotionalUsd, maxDailyNotionalUsd } = this.limits;
      const view: LimitsView = { this_call_usd: thisCall };
      if (markets) {
        view.allowed_markets = markets;
        const outside = trades.find((trade) => !markets.includes(trade.market));
        if (outside) {
          throw new PreTradeCheckError(
            'market_not_allowed',
            `${tool.name}: ${outside.market} is not a market this agent may trade (hedge mcp --markets ${markets.join(',')}); nothing was sent.`,
            { market: outside.market, allowed_markets: markets },
            'Trade one of the allowed markets, or ask the operator to restart hedge mcp with another --markets list.',
          );
        }
      }
      if (maxNotionalUsd !== undefined) {
        view.max_notional_usd = maxNotionalUsd;
        if (thisCall > maxNotionalUsd) {
          throw new PreTradeCheckError(
            'max_notional_exceeded',
            `${tool.name}: this call trades ${formatUsd(thisCall)}, over this agent's cap of ${formatUsd(maxNotionalUsd)} per call (hedge mcp --max-notional); nothing was sent.`,
            { this_call_usd: thisCall, max_notional_usd: maxNotionalUsd, trades: trades.map(({ market, notionalUsd }) => ({ market, notional_usd: notionalUsd })) },
            `Call it with at most ${formatUsd(maxNotionalUsd)} of notional (split it, or reduce instead of close), or ask the operator to raise --max-notional.`,
          );
        }
      }
      if (maxDailyNotionalUsd !== undefined) {
        view.max_daily_notional_usd = maxDailyNotionalUsd;
        const counted = await this.countedEntries(ctx);
        // A resumed agent entry is already counted: finishing it trades nothing new.
        const fresh = resumed && counted.some((entry) => entry.id === resumed.id) ? 0 : thisCall;
        const used = roundCents(counted.reduce((sum, entry) => sum + entryNotional(entry), 0));
        view.used_last_24h_usd = used;
        if (used + fresh > maxDailyNotionalUsd) {
          const freesAt = freedAt(counted, fresh, maxDailyNotionalUsd);
          throw new PreTradeCheckError(
            'max_daily_notional_exceeded',
            `${tool.name}: this call (${formatUsd(fresh)}) and this agent's trades of the last 24 h (${formatUsd(used)}) pass its daily cap of ${formatUsd(maxDailyNotionalUsd)} (hedge mcp --max-daily-notional); nothing was sent.`,
            {
              this_call_usd: fresh,
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
      return view;
    });
  }

  /** The agent's entries of this account in the last 24 h that did something. */
  private async countedEntries(ctx: CommandContext): Promise<JournalEntry[]> {
    const { credentials } = this.session;
    const host = credentials.sources.baseUrl === 'demo' ? 'demo' : new URL(credentials.baseUrl).host;
    const keyId = keyFingerprint(credentials.apiKey);
    const since = ctx.clock.now() - DAY_WINDOW_MS;
    const entries = await (await ctx.journal()).list({ since });
    return entries.filter(
      (entry) =>
        entry.via === 'agent' &&
        entry.environment === credentials.environment &&
        entry.base_url_host === host &&
        entry.key_id === keyId &&
        !DID_NOTHING.has(entry.outcome),
    );
  }

  private async tradesOf(ctx: CommandContext, tool: AgentTool, input: RawInput): Promise<{ trades: Trade[]; resumed?: JournalEntry }> {
    const { args, options } = input;
    switch (tool.name) {
      case 'open':
      case 'add':
      case 'reduce':
        return { trades: [{ market: parseMarket(args.market), notionalUsd: parseNotional(args.notional) }] };
      case 'close':
      case 'roll': {
        const market = parseMarket(args.market);
        const position = findSide(await readBook({ client: await ctx.client() }), market, parseSide(args.side));
        const notional = position?.notionalUsd ?? 0;
        return { trades: [{ market, notionalUsd: tool.name === 'roll' ? 2 * notional : notional }] };
      }
      case 'apply': {
        const { readTargetFile, buildTargetPlan, parseTolerance } = await import('../flows/target-plan.js');
        const target = await readTargetFile(ctx, String(args.file));
        const quoted = await buildTargetPlan(ctx, await ctx.client(), target, parseTolerance(options.tolerance as string | undefined));
        return { trades: quoted.plan.steps.map((step) => ({ market: step.market.toUpperCase(), notionalUsd: Math.abs(step.deltaUsd) })) };
      }
      case 'resume': {
        const journal = await ctx.journal();
        const entry = args.id ? await journal.get(args.id) : (await journal.list({ pending: true, limit: 1 }))[0];
        if (!entry || !isUnresolved(entry)) return { trades: [] };
        // A roll is finished whole: every leg still to do.
        const legs = entry.group ? (await journal.list()).filter((leg) => leg.group === entry.group && isUnresolved(leg)) : [entry];
        return {
          trades: legs.map((leg) => ({ market: entryMarket(leg) ?? 'UNKNOWN', notionalUsd: entryNotional(leg) })),
          resumed: entry,
        };
      }
      default:
        // A write tool this list does not know trades an unknown amount: refused under any cap.
        throw new PreTradeCheckError(
          'max_notional_exceeded',
          `${tool.name}: how much this tool trades cannot be told, so this agent's limits refuse it; nothing was sent.`,
          {},
          'Use open, add, reduce, close, roll, apply or resume.',
        );
    }
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
