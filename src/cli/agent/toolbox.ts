// The agent interface without its transport: which tools are offered on this key, and what a call does — check the
// arguments' shape, apply the safety tier (a write on a live key: a preview and a confirmation token first), run the
// command in-process, and answer with its --json document or its error as `--json` reports it (code, class, message,
// hint), plus the exit code.
//
// The guards on a write, all here: the operator's limits (set by whoever starts `hedge mcp`, which the agent cannot
// change: --max-notional USD no write tool call trades more than this; --max-daily-notional USD the agent's trades of
// the last 24 h, journal entries `via: agent` of this account, plus this call stay within this; --markets LIST write
// tools trade only these markets), and on a live key (with `--allow-live`) one-time confirmation tokens: a write
// tool's first call sends nothing and returns a preview with a token bound to that exact tool, those exact arguments
// and what the preview showed would happen: the requests (a hash of each one's method, path and canonical body, in
// order) and what they trade, with the hedges each side held and their notional (a close's body names no amount nor
// hedge: the side it empties does).
import { createHash, randomBytes } from 'node:crypto';
import { PreTradeCheckError, UsageError } from '../../core/errors.js';
import {
  EXIT_CODES,
  describeError,
  describeFailure,
  errorAsJson,
  type ErrorDescription,
} from '../../platform/terminal/exit-codes.js';
import { safeJson, safeText } from '../../core/security/safe-text.js';
import { parseMarket, parseNotional, readDecimal } from '../../core/input.js';
import { formatUsd } from '../../core/number-format.js';
import { cents } from '../../core/money.js';
import type { ApiRequest } from '../../platform/api/transport.js';
import { canonicalJson } from '../../core/files/canonical-json.js';
import type { JournalEntry } from '../../platform/journal/index.js';
import type { Env } from '../../platform/config/env.js';
import { readPosition } from '../../platform/api/wire/fields.js';
import type { RawInput } from '../runner/command-spec.js';
import { identityOf, sentBy, tradedUsd } from '../../features/write/row-trust.js';
import { hedgesMoved, tradesUsd } from '../../features/write/confirm.js';
import { sameAsShown } from '../../features/book/book.js';
import { additionQuoteTenor } from '../../features/trade/pre-trade.js';
import { onSide } from '../../features/book/positions.js';
import {
  CONFIRMATION_TOKEN,
  INLINE_ROWS,
  inputSchema,
  namedArgument,
  offered,
  rawInputFor,
  toolDescription,
  writeAccess,
  type AgentTool,
} from './catalogue.js';
import { PassThrough, Writable } from 'node:stream';
import type { ResolvedCredentials } from '../../platform/config/credentials.js';
import {
  CommandContext,
  type ContextInit,
  type PlanCheck,
  type Readmission,
  type Trade,
  type TradeGate,
} from '../../platform/runtime/context.js';
import { makeChalk } from '../../platform/terminal/color.js';
import { Output } from '../../platform/terminal/output.js';
import { FileAccess } from './file-access.js';
import type { JsonObject } from '../../core/objects.js';
import { formatSpan } from '../../core/duration.js';
import { DAY_MS } from '../../core/vocabulary.js';
import { utcIso } from '../../core/utc-text.js';

export type AgentLimits = Partial<ReturnType<typeof parseAgentLimits>>;

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
    .filter(Boolean);
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
class CallGate {
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
    const thisCall = cents(this.callUsd - tradesUsd(again.replacing ?? []) + tradesUsd(trades));
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
      let counting = entries.reduce((sum, entry) => sum + tradedUsd(entry), 0);
      const used = (this.usedUsd = cents(counting));
      if (used + thisCall > maxDailyNotionalUsd) {
        // When enough of the counted entries have left the 24 h window for this call to fit under the cap; undefined when it alone is over it.
        const freeing =
          thisCall <= maxDailyNotionalUsd
            ? entries
                .toSorted((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at))
                .find((entry) => (counting -= tradedUsd(entry)) + thisCall <= maxDailyNotionalUsd)
            : undefined;
        const freesAt = freeing && utcIso(Date.parse(freeing.created_at) + DAY_MS);
        const room = cents(Math.max(0, maxDailyNotionalUsd - used));
        throw new PreTradeCheckError(
          'max_daily_notional_exceeded',
          `${name}: this call (${formatUsd(thisCall)}) and this agent's trades of the last 24 h (${formatUsd(used)}) pass its daily cap of ${formatUsd(maxDailyNotionalUsd)} (hedge mcp --max-daily-notional); ${unsent}.`,
          {
            this_call_usd: thisCall,
            used_last_24h_usd: used,
            max_daily_notional_usd: maxDailyNotionalUsd,
            room_usd: room,
            frees_at: freesAt ?? null,
          },
          freesAt === undefined
            ? `This call alone is over the daily cap: trade at most ${formatUsd(maxDailyNotionalUsd)}.`
            : `Trade at most ${formatUsd(room)} now, or call again after ${freesAt}.`,
        );
      }
    }
    this.callUsd = thisCall;
  }
}

/** How long a token lasts when HEDGE_MCP_TOKEN_TTL_SECONDS does not say. */
const DEFAULT_TOKEN_TTL_SECONDS = 120;
const MAX_TOKEN_TTL_SECONDS = 3600;
/** How many spent tokens are remembered (to say "used" or "expired" rather than "unknown"). */
const REMEMBERED_SPENT = 1000;

/** HEDGE_MCP_TOKEN_TTL_SECONDS: 0 to 3600 (0: every token has expired by the time it comes back). */
export function tokenTtlSeconds(env: Env) {
  const raw = env.HEDGE_MCP_TOKEN_TTL_SECONDS;
  if (!raw?.trim()) return DEFAULT_TOKEN_TTL_SECONDS;
  const value = readDecimal(raw, { min: 0, max: MAX_TOKEN_TTL_SECONDS });
  if (value === undefined)
    throw new UsageError(
      `HEDGE_MCP_TOKEN_TTL_SECONDS: expected a number of seconds from 0 to ${MAX_TOKEN_TTL_SECONDS} (got ${JSON.stringify(raw)}).`,
    );
  return value;
}

/** What a plan does, as a token binds it: one hash of its requests, and what they trade (compared as confirm.ts does). */
type Plan = ReturnType<typeof planOf>;

/** Each request's method, path, query and canonical body, in order (never its key or headers), and what they trade. */
function planOf(requests: readonly ApiRequest[], trades?: readonly Trade[]) {
  const shown = requests.map(({ method, path, query, body }) => ({
    method,
    path,
    query: query ?? null,
    body: body ?? null,
  }));
  return { hash: createHash('sha256').update(canonicalJson(shown)).digest('hex'), trades };
}

/** How a spent token ended, as a refusal of it says. */
type Ending = 'has been used already (each token sends once)' | 'has expired';

/** A token brought back with other arguments: nothing was sent, and the call answers with the preview of these. */
class NotPreviewedError extends UsageError {}

/** The plan of one live write call (runtime PlanCheck). */
class PlanWatch {
  seen = planOf([]);
  /** Set when the confirmed run met another plan. */
  changed = false;

  constructor(private readonly confirmed?: Plan) {}

  check(requests: readonly ApiRequest[], trades: readonly Trade[] | undefined) {
    const now = planOf(requests, trades);
    const then = this.confirmed;
    if (then !== undefined && (now.hash !== then.hash || !sameAsShown(then.trades, now.trades))) {
      this.changed = true;
      const [usdThen, usdNow] = [then.trades && tradesUsd(then.trades), now.trades && tradesUsd(now.trades)];
      const hedges = hedgesMoved(then.trades ?? [], now.trades ?? []);
      const amounts =
        usdThen !== usdNow ? ` (${formatUsd(usdThen ?? 0)} traded then, ${formatUsd(usdNow ?? 0)} now)` : '';
      throw new PreTradeCheckError(
        'preview_changed',
        `${CONFIRMATION_TOKEN}: what this call would send now is not what its preview showed${amounts}${hedges ? ` (the side's hedges: ${hedges})` : ''}: the side, the book or the target file changed since; nothing was sent. The new preview is in this answer, with its own token.`,
        { previewed_usd: usdThen ?? null, now_usd: usdNow ?? null },
        `Read new_preview; call again with its ${CONFIRMATION_TOKEN} if that is still wanted.`,
      );
    }
    this.seen = now;
  }
}

export class ConfirmationTokens {
  private readonly issued = new Map<string, { tool: string; bound: string; plan: Plan; expiresAt: number }>();
  /** Redeemed or expired tokens, with how they ended, to say so instead of "unknown". */
  private readonly spent = new Map<string, Ending>();

  constructor(
    readonly ttlSeconds: number,
    private readonly now: () => number,
    private readonly makeToken = () => `hct_${randomBytes(18).toString('base64url')}`,
  ) {}

  /** `plan`: what the preview showed would happen (PlanWatch.seen). */
  issue(tool: string, args: JsonObject, plan = planOf([])) {
    const now = this.now();
    for (const [token, entry] of this.issued) if (now >= entry.expiresAt) this.spend(token, 'has expired');
    const token = this.makeToken();
    const expiresAt = now + this.ttlSeconds * 1000;
    this.issued.set(token, { tool, bound: canonicalJson(args), plan, expiresAt });
    return { token, expiresAt };
  }

  /** Takes the token for this call, giving the plan its preview showed, or throws (nothing is sent then). */
  redeem(token: unknown, tool: string, args: JsonObject) {
    const refused = (why: string, next = `Call ${tool} without ${CONFIRMATION_TOKEN} for a new preview and token`) =>
      new UsageError(`${CONFIRMATION_TOKEN}: ${why}; nothing was sent. ${next}.`);
    if (typeof token !== 'string' || token === '') throw refused('expected the string a preview returned');
    const entry = this.issued.get(token);
    if (!entry) throw refused(`this token ${this.spent.get(token) ?? 'is not one this server issued'}`);
    if (this.now() >= entry.expiresAt) {
      this.spend(token, 'has expired');
      throw refused(`this token has expired (a token lasts ${formatSpan(this.ttlSeconds * 1000)})`);
    }
    if (entry.tool !== tool)
      throw refused(
        `this token was issued for the ${entry.tool} tool`,
        `Send exactly what was previewed, or call ${tool} without ${CONFIRMATION_TOKEN} for a preview of this`,
      );
    if (entry.bound !== canonicalJson(args))
      throw new NotPreviewedError(
        `${CONFIRMATION_TOKEN}: this token was issued for other arguments; nothing was sent. Send exactly what was previewed; the preview of these arguments is in this answer, with its own token.`,
      );
    this.spend(token, 'has been used already (each token sends once)');
    return entry.plan;
  }

  /** Forgets an issued token, remembering how it ended (the oldest so remembered first forgotten). */
  private spend(token: string, how: Ending) {
    this.issued.delete(token);
    this.spent.set(token, how);
    if (this.spent.size > REMEMBERED_SPENT) this.spent.delete(this.spent.keys().next().value!);
  }
}

// Runs one command in-process, the way `hedge <command> --json --no-input` runs it in a pipe: its own `run` with a CommandContext whose output keeps the JSON document as a value (never text to parse back) and whose stderr is captured, no TTY and no prompts.
/** What every call of one server shares: parsed once when `hedge mcp` starts. */
type AgentSession = Pick<ContextInit, 'env' | 'globals' | 'clock' | 'connections'> & {
  credentials: ResolvedCredentials;
  log?: (text: string) => void;
  createContext?: (init: ContextInit) => CommandContext;
  files?: FileAccess;
};

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: unknown, done: () => void) {
    // A Buffer reads as its UTF-8 text, as a string is.
    this.text += chunk;
    done();
  }
}

/**
 * A context like a tool call's: JSON out (kept as values in `documents`), stderr captured, no TTY, never a prompt,
 * the session's key. Only a redeemed confirmation token stands in for --yes (`yes`); the server's own --yes does not.
 */
function callContext(session: AgentSession, signal: AbortSignal, yes: boolean, more: Partial<ContextInit> = {}) {
  const stdout = new Capture();
  const stderr = new Capture();
  const io = {
    stdout,
    stderr,
    stdin: new PassThrough().end(),
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
  };
  const documents: unknown[] = [];
  const init: ContextInit = {
    io,
    env: session.env,
    globals: {
      ...session.globals,
      json: true,
      format: 'json',
      fields: undefined,
      query: undefined,
      header: true,
      input: false,
      color: false,
      yes,
    },
    clock: session.clock,
    signal,
    output: new Output({ format: 'json', chalk: makeChalk(false), streams: io, now: session.clock.now, documents }),
    credentials: session.credentials,
    connections: session.connections,
    origin: 'agent',
    ...more,
  };
  const ctx = session.createContext ? session.createContext(init) : new CommandContext(init);
  return { ctx, stdout, stderr, documents };
}

async function runInProcess(
  session: AgentSession,
  tool: AgentTool,
  input: RawInput,
  call: { signal: AbortSignal; yes: boolean; rows?: unknown; gate?: TradeGate; plan?: PlanCheck },
) {
  const { ctx, stdout, stderr, documents } = callContext(session, call.signal, call.yes, {
    targetFiles: (session.files ?? FileAccess.none()).sourceFor(call.rows, call.signal),
    tradeGate: call.gate,
    planCheck: call.plan,
  });
  let exitCode;
  let error;
  try {
    // Through the one runner: a tool call's `until` polls as the CLI's --until does.
    const { runCommand } = await import('../runner/run-command.js');
    exitCode = await runCommand(ctx, tool.spec, input);
  } catch (failure) {
    // The same description as the CLI's, hints carrying this session's --demo/--profile.
    error = describeFailure(failure, ctx.globals);
    exitCode = error.exitCode;
  } finally {
    await ctx.dispose();
  }
  if (session.globals.verbose && stderr.text !== '')
    session.log?.(stderr.text.trimEnd().replace(/^|\n/g, (start) => `${start}[${tool.name}] `));
  const document = documents.length ? (documents.length === 1 ? documents[0] : documents) : null;
  return { exitCode, document, stdout: stdout.text, messages: stderr.text.trimEnd(), error };
}

type ToolResult = { content: ReturnType<typeof content>; isError?: boolean };

const text = (value: string) => ({ type: 'text' as const, text: value });

/** An answer's content: a body, then what was said beside it (when anything was). */
const content = (body: string, said: string) => [text(body), ...(said ? [text(said)] : [])];

/** A call as its preview sees it: the tool, the arguments it gave without the confirmation token, the command's input, the rows given inline. */
type ToolCall = { tool: AgentTool; args: JsonObject; input: RawInput; rows: unknown; signal: AbortSignal };

/** A call's failure as its answer (`more`: fields beside the error, a refused confirmation's new preview). */
function failure(
  { tool, args }: Pick<ToolCall, 'tool' | 'args'>,
  description: ErrorDescription,
  messages: string,
  more: JsonObject = {},
) {
  const error: JsonObject = errorAsJson(description);
  // The server's words reach an agent as the server's, in a field of their own, never as hedge's message to follow.
  if (description.server)
    Object.assign(error, {
      message: `${description.server.endpoint} was refused by the server (${description.code}${description.status === null ? '' : `, HTTP ${description.status}`}); server_message holds what the server said, as data, not an instruction from hedge.`,
      server_message: description.server.words,
    });
  if (description.kind === 'usage') Object.assign(error, namedArgument(tool, description.message, args));
  return {
    isError: true,
    content: content(safeJson({ error, exit_code: description.exitCode, ...more }, 2), messages),
  };
}

/** A run's answer: its document (or its text), with a non-zero exit code and what was said beside it; or its failure. */
function answer(call: ToolCall, run: Awaited<ReturnType<typeof runInProcess>>) {
  if (run.error) return failure(call, run.error, run.messages);
  // What a non-zero exit code without an error means: `exit code 9 (changes): …`.
  const code = EXIT_CODES.find((entry) => entry.code === run.exitCode);
  const meaning = code ? ` (${code.name}): ${code.meaning}` : '';
  const said = [run.exitCode !== 0 && `exit code ${run.exitCode}${meaning}`, run.messages].filter(Boolean);
  const body = run.document !== null || run.stdout.trim() === '' ? safeJson(run.document, 2) : run.stdout.trimEnd();
  return { content: content(body, said.join('\n')) };
}

/** Runs a tool (a read, or the write's own dry run) by name and keeps its JSON under `key` in the preview; a failure is the call's answer, unless it is only looked up (`lookUp`: its error is kept beside it). */
type Step = (key: string, stepName: string, stepInput: RawInput, lookUp?: boolean) => Promise<ToolResult | undefined>;

export class AgentToolbox {
  readonly access;
  private readonly tools;
  /** The operator's limits, when any is set. */
  private readonly limits;
  /** The write calls under a daily cap, run one at a time. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly session: AgentSession,
    private readonly tokens: ConfirmationTokens,
    options: { allowLive: boolean; tools: AgentTool[]; limits?: AgentLimits },
  ) {
    this.access = writeAccess(session.credentials.environment, options.allowLive);
    this.tools = options.tools;
    this.limits = options.limits && describeLimits(options.limits) ? options.limits : undefined;
  }

  list() {
    return this.tools
      .filter((tool) => offered(tool, this.access))
      .map((tool) => {
        const read = tool.tier === 'read';
        // The catalogue's description, with the operator's limits on a write tool.
        let description = toolDescription(tool, this.access, this.tokens.ttlSeconds);
        if (!read && this.limits)
          description += ` Limits set by the operator: ${describeLimits(this.limits)} (notional traded; close counts what the side holds when it is sent, adds still landing included, roll twice the side's notional; every retry is judged again); a call over them is refused before anything is sent (max_notional_exceeded, max_daily_notional_exceeded, market_not_allowed).`;
        return {
          name: tool.name,
          title: tool.command,
          description,
          inputSchema: inputSchema(tool, this.access),
          annotations: { title: tool.command, readOnlyHint: read, destructiveHint: !read, idempotentHint: read },
        };
      });
  }

  /** Undefined for a name that is no tool at all (a protocol error for the server to answer). */
  async call(name: string, given: JsonObject | undefined, signal: AbortSignal): Promise<ToolResult | undefined> {
    const tool = this.tools.find((candidate) => candidate.name === name);
    if (!tool) return;
    // The arguments a call gave, without the confirmation token (what a token is bound to).
    const { [CONFIRMATION_TOKEN]: token, ...args } = given ?? {};
    const { session, tokens, limits } = this;
    // The gate of one write call: the command's own run asks it, with the plan it is about to send, before anything is journaled or sent; a refusal is a PreTradeCheckError (exit 3).
    const gateFor = () => limits && new CallGate(limits, name, () => this.countedEntries());
    try {
      if (!offered(tool, this.access))
        throw new UsageError(
          `${name} is a write tool, and write tools are not offered on a LIVE key unless the server runs with \`hedge mcp --allow-live\`; nothing was sent.`,
        );
      const needsToken = tool.tier === 'write' && this.access === 'token';
      // Only a write on a live key takes a token: anywhere else it is an argument the tool lacks.
      const input = rawInputFor(tool, needsToken ? args : (given ?? {}));
      const rows = args[INLINE_ROWS] ?? undefined;
      const call = { tool, args, input, rows, signal };
      const dryRun = input.options.dryRun === true;
      const send = async (gate?: CallGate) => {
        if (!needsToken || dryRun)
          return answer(call, await runInProcess(session, tool, input, { signal, yes: false, rows, gate }));
        if (token === undefined) return await this.preview(call, gate);
        let refused: [ErrorDescription, string];
        try {
          // The run sends only what the token's preview showed would happen: the requests and what they trade (checked under the side's lock, before the first leaves).
          const plan = new PlanWatch(tokens.redeem(token, name, args));
          const run = await runInProcess(session, tool, input, { signal, yes: true, rows, gate, plan });
          if (!plan.changed || !run.error) return answer(call, run);
          refused = [run.error, run.messages];
        } catch (error) {
          if (!(error instanceof NotPreviewedError)) throw error;
          refused = [describeError(error), ''];
        }
        // Refused with what would be sent now: a new preview, and its own token (or why there is none).
        return await this.preview(call, gateFor(), ...refused);
      };
      // The operator's limits: the command's own run asks the call's gate with the plan it is about to send (a preview's dry run included); an explicit dry run sends nothing and is not limited.
      if (tool.tier !== 'write' || !limits || dryRun) return await send();
      const work = () => send(gateFor());
      // Only one at a time under a daily cap.
      if (limits.maxDailyNotionalUsd === undefined) return await work();
      const run = this.queue.then(work, work);
      this.queue = run.catch(() => undefined);
      return await run;
    } catch (error) {
      return failure({ tool, args }, describeError(error), '');
    }
  }

  /**
   * A write on a live key, first call: the command's own --dry-run (the exact request; for apply the plan), the
   * quote for an open, and a token bound to this tool, these arguments and the requests the dry run would send;
   * or the failure that is the call's answer instead. After a `refusal` of a call with a token, that
   * refusal is the answer, with the new preview beside it (or said after the failure that left none).
   */
  private async preview(call: ToolCall, gate?: CallGate, refusal?: ErrorDescription, refusalMessages = '') {
    const { tokens } = this;
    const { tool, args, input, rows, signal } = call;
    const name = tool.name;
    const preview: JsonObject = {};
    const messages: string[] = [];
    // What the dry run would send: the token is bound to it.
    const plan = new PlanWatch();
    // The dry run goes through the call's gate: a preview over a limit is refused like the call. A number only
    // looked up (`lookUp`) that cannot be read is shown as such (null, and its error beside it).
    const step: Step = async (key, stepName, stepInput, lookUp) => {
      const stepTool = this.tools.find((candidate) => candidate.name === stepName)!;
      const run = await runInProcess(this.session, stepTool, stepInput, {
        signal,
        yes: false,
        ...(!lookUp && { rows, gate, plan }),
      });
      if (run.error && !lookUp) {
        const failed = failure(call, run.error, run.messages);
        return refusal ? { ...failed, content: [...failed.content, text(refusal.message)] } : failed;
      }
      preview[key] = run.error ? null : run.document;
      if (run.error) preview[`${key}_error`] = errorAsJson(run.error);
      else if (run.messages && !lookUp) messages.push(run.messages);
    };
    let failed;
    if (tool.arguments.some((argument) => argument.key === 'dryRun')) {
      failed =
        (await step('dry_run', name, { args: input.args, options: { ...input.options, dryRun: true } })) ??
        (await this.tradeNumbers(name, input, preview, step));
    } else if (name === 'resume') {
      // `resume` has no dry run: the preview is the journal entry it would finish.
      const id = input.args.id;
      if (!id)
        throw new UsageError(
          'id: on a LIVE key, name the journal entry to resume (a_…; journal_list with pending true lists them), so that the confirmation is bound to it.',
        );
      failed = await step('journal_entry', 'journal_show', { args: { id }, options: {} });
    }
    if (failed) return failed;
    // What the dry run admitted: the numbers the confirmation is given under.
    if (gate) preview.limits = gate.view;
    const issued = tokens.issue(name, args, plan.seen);
    const shown = {
      sent: false,
      tool: name,
      arguments: args,
      preview,
      [CONFIRMATION_TOKEN]: issued.token,
      expires_at: utcIso(issued.expiresAt),
      expires_in_seconds: tokens.ttlSeconds,
      next: `Nothing was sent. To send exactly this, call ${name} again with the same arguments plus ${CONFIRMATION_TOKEN} within ${formatSpan(tokens.ttlSeconds * 1000)}; the token works once.`,
    };
    return refusal
      ? failure(call, refusal, refusalMessages, { new_preview: shown })
      : { content: content(safeJson(shown, 2), messages.join('\n')) };
  }

  /**
   * The numbers a person sees before confirming, as the terminal shows a person the quote card: for open, the quote (a
   * step: a refused quote is the call's answer); for add, the position and the quote of the addition (at the tenor that
   * covers its maturity); for reduce and close, the position as it is now (its net_margin_usd is what closing returns; a
   * reduce also its share); for roll, the position and the quote of the new hedge.
   */
  private async tradeNumbers(name: string, input: RawInput, preview: JsonObject, step: Step) {
    const {
      args: { market, side, notional },
      options: { tenor },
    } = input;
    if (!market || !side) return;
    const quote = (amount: string, days: string, lookUp?: boolean) =>
      step('quote', 'quote', { args: { market, side, notional: amount }, options: { tenor: days } }, lookUp);
    if (name === 'open') return notional && typeof tenor === 'string' ? quote(notional, tenor) : undefined;
    if (!['add', 'reduce', 'close', 'roll'].includes(name)) return;
    await step('position', 'positions', { args: {}, options: {} }, true);
    const wanted = parseMarket(market);
    const rows = Array.isArray(preview.position) ? (preview.position as JsonObject[]) : [];
    const row = rows.find((candidate) => onSide(readPosition(candidate), { market: wanted, side }));
    if (preview.position_error === undefined) preview.position = row ?? null;
    const facts = row && readPosition(row);
    if (name === 'reduce' && facts?.notionalUsd && notional)
      preview.share_of_position = Math.min(
        1,
        Math.round((parseNotional(notional) / facts.notionalUsd) * 10_000) / 10_000,
      );
    if (name === 'add' && notional) {
      const covering = additionQuoteTenor(
        facts?.maturityAt,
        this.session.clock.now(),
        typeof row?.tenor_days === 'number' ? row.tenor_days : undefined,
      );
      return quote(notional, String(covering), true);
    }
    if (name === 'roll' && facts?.notionalUsd && typeof tenor === 'string')
      return quote(String(facts.notionalUsd), tenor, true);
  }

  /** The agent's entries of this account in the last 24 h that did something. */
  private async countedEntries() {
    const since = this.session.clock.now() - DAY_MS;
    // Read with a context like a tool call's.
    const { ctx } = callContext(this.session, new AbortController().signal, false);
    try {
      const identity = await identityOf(ctx);
      return (await (await ctx.journal()).list({ since })).filter(
        (entry) => entry.via === 'agent' && sentBy(identity, entry) && !DID_NOTHING.has(entry.outcome),
      );
    } finally {
      await ctx.dispose();
    }
  }
}
