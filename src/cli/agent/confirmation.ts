// One-time confirmation tokens: on a live key (with `hedge mcp --allow-live`) a write tool's first call sends nothing
// and returns a preview with a token bound to that exact tool, those exact arguments and what the preview showed would
// happen: the requests (a hash of each one's method, path and canonical body, in order) and what they trade, with the
// hedges each side held and their notional (a close's body names no amount nor hedge: the side it empties does).
import { createHash, randomBytes } from 'node:crypto';
import { formatUsd } from '../../core/number-format.js';
import type { ApiRequest } from '../../platform/api/transport.js';
import { canonicalJson } from '../../platform/journal/canonical-json.js';
import { PreTradeCheckError, UsageError } from '../../core/errors.js';
import { readDecimal } from '../../core/input.js';
import type { PlanCheck, Trade } from '../../platform/runtime/context.js';
import { CONFIRMATION_TOKEN } from './catalogue.js';
import { sumUsd } from './guardrails.js';
import { hedgesMoved, sameAsShown } from '../../features/write/as-shown.js';
import type { JsonObject } from '../../core/objects.js';
import type { Env } from '../../platform/config/env.js';

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

/** What a plan does, as a token binds it: one hash of its requests, and what they trade (compared as-shown.ts does). */
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
export class NotPreviewedError extends UsageError {}

/** The plan of one live write call (runtime PlanCheck). */
export class PlanWatch implements PlanCheck {
  seen = planOf([]);
  /** Set when the confirmed run met another plan. */
  changed = false;

  constructor(private readonly confirmed?: Plan) {}

  check(requests: readonly ApiRequest[], trades: readonly Trade[] | undefined) {
    const now = planOf(requests, trades);
    const then = this.confirmed;
    if (then !== undefined && (now.hash !== then.hash || !sameAsShown(then.trades, now.trades))) {
      this.changed = true;
      const [usdThen, usdNow] = [then.trades && sumUsd(then.trades), now.trades && sumUsd(now.trades)];
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
    this.forgetExpired();
    const token = this.makeToken();
    const expiresAt = this.now() + this.ttlSeconds * 1000;
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
      throw refused(`this token has expired (a token lasts ${this.ttlSeconds} s)`);
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

  private forgetExpired() {
    const now = this.now();
    for (const [token, entry] of this.issued) if (now >= entry.expiresAt) this.spend(token, 'has expired');
  }
}
