// Before an earlier action is sent again, the book is compared with what its journal entry recorded before it
// was first sent.
import type { HedgeClient } from '../../platform/api/client.js';
import type { Hedge, OpenedHedge, SubmittedAction } from '../../platform/api/schemas.js';
import { HOUR_MS, type Side } from '../../core/vocabulary.js';
import { formatUsd } from '../../core/money.js';
import { sameReference } from '../../core/input.js';
import { UsageError } from '../../core/errors.js';
import { bodyOf, type JournalEntry } from '../../platform/journal/index.js';
import type { FlowPorts } from '../../platform/runtime/context.js';
import { safeText } from '../../core/security/safe-text.js';
import { findSide } from '../book/positions.js';
import { readSideInStep } from '../book/side-book.js';

const DEFAULT_KEY_LIFETIME_HOURS = 12;
/** Notionals are cents on the wire. */
const CENT = 0.005;
/** An open's hedge is looked for from a little before the entry was made (clocks of two machines differ). */
const CLOCK_SKEW_MS = 5 * 60_000;

/** landed: record it done, send nothing · not-landed: send it again with its key · unknown: the book cannot tell. */
type Verdict = 'landed' | 'not-landed' | 'unknown';

export interface Reconciliation<S> {
  verdict: Verdict;
  /** What the book shows, in a sentence (untrusted values already sanitised). */
  evidence: string;
  /** For landed: the submit answer as the server would have given it, to wait on and render. */
  answer?: S;
}

/** HEDGE_KEY_LIFETIME in hours (a positive number), in ms; the default when unset. */
export function keyLifetimeMs(env: Readonly<Record<string, string | undefined>>) {
  const raw = env.HEDGE_KEY_LIFETIME;
  if (raw === undefined || raw.trim() === '') return DEFAULT_KEY_LIFETIME_HOURS * HOUR_MS;
  const hours = Number(raw.trim());
  if (!/^\d+(\.\d+)?$/.test(raw.trim()) || !Number.isFinite(hours) || hours <= 0 || hours > 24 * 365) {
    throw new UsageError(
      `HEDGE_KEY_LIFETIME: ${JSON.stringify(safeText(raw))} is not allowed; expected a number of hours above 0 (e.g. 12 or 0.5), at most a year.`,
    );
  }
  return hours * HOUR_MS;
}

export function describeAge(ms: number) {
  const hours = ms / HOUR_MS;
  if (hours >= 48) return `${Math.floor(hours / 24)} days`;
  if (hours >= 1) return `${Math.round(hours)} h`;
  return `${Math.max(0, Math.round(ms / 60_000))} min`;
}

function near(a: number, b: number) {
  return Math.abs(a - b) < CENT;
}

/** An open: the hedge by its id (when the answer gave one), else by its client reference. */
export async function reconcileOpen(client: HedgeClient, entry: JournalEntry): Promise<Reconciliation<OpenedHedge>> {
  if (entry.hedge_id) {
    const hedge = await client.getHedge(entry.hedge_id).catch(() => undefined);
    if (hedge) {
      return {
        verdict: 'landed',
        evidence: `hedge ${safeText(hedge.id)} is ${safeText(hedge.status)}`,
        answer: { hedge_id: hedge.id, order_tx_hash: hedge.order_tx_hash ?? entry.order_tx_hash, status: hedge.status },
      };
    }
    return {
      verdict: 'unknown',
      evidence: `hedge ${safeText(entry.hedge_id)}, named by the server's answer, cannot be read`,
    };
  }
  const body = bodyOf(entry);
  const market = String(body.market ?? '').toUpperCase();
  const side = body.side;
  // From the earlier of the entry's creation and the server's sealed time at its first send (a rewritten creation
  // time cannot hide the hedge).
  const sentAt = typeof entry.context?.server_time_ms === 'number' ? entry.context.server_time_ms : Infinity;
  const time = client.transport.serverNow();
  const from = Math.min(Date.parse(entry.created_at) + time.earliestMs - time.localMs, sentAt) - CLOCK_SKEW_MS;
  const since = (hedge: Hedge) =>
    hedge.market.toUpperCase() === market && hedge.side === side && Date.parse(String(hedge.opened_at ?? '')) >= from;
  const reference =
    typeof body.client_reference === 'string' && body.client_reference !== '' ? body.client_reference : undefined;
  if (reference) {
    const carrying = (await client.listHedges({ clientReference: reference })).filter(
      (hedge) => sameReference(hedge.client_reference, reference) && since(hedge),
    );
    const hedge = carrying[0];
    if (hedge) {
      return {
        verdict: 'landed',
        evidence: `hedge ${safeText(hedge.id)} carries reference ${safeText(reference)} (${safeText(hedge.status)}, opened ${safeText(String(hedge.opened_at))})`,
        answer: { hedge_id: hedge.id, order_tx_hash: hedge.order_tx_hash ?? undefined, status: hedge.status },
      };
    }
    // An accepted open is listed at once (submitted, then filled or failed), so none carrying its reference means none was made.
    return {
      verdict: 'not-landed',
      evidence: `no hedge carrying reference ${safeText(reference)} was opened since the entry was made`,
    };
  }
  const opened = (await client.listHedges()).filter(since);
  const named = opened
    .slice(0, 3)
    .map(
      (hedge) =>
        `${safeText(hedge.id)} (${formatUsd(hedge.notional_usd)}, opened ${safeText(String(hedge.opened_at))})`,
    )
    .join(', ');
  return {
    verdict: 'unknown',
    evidence:
      opened.length === 0
        ? `no ${safeText(String(side))} hedge on ${safeText(market)} was opened since the entry was made, but without a hedge id or a reference that does not prove the open never arrived`
        : `${opened.length} ${safeText(String(side))} hedge${opened.length === 1 ? ' was' : 's were'} opened on ${safeText(market)} since the entry was made: ${named}; any of them may be this one`,
  };
}

/** What the server answered an add, a reduce or a close with, as the entry recorded it. */
function submittedAnswer(entry: JournalEntry) {
  return {
    status: 'submitted',
    ...(entry.hedge_id ? { hedge_id: entry.hedge_id } : {}),
    ...(entry.order_tx_hash ? { order_tx_hash: entry.order_tx_hash } : {}),
  };
}

/** An add or a reduce: the side's notional now, against the one recorded before the send. */
export async function reconcileChange(
  ports: FlowPorts,
  client: HedgeClient,
  entry: JournalEntry,
  change: { action: 'add' | 'reduce'; market: string; side: Side; notionalUsd: number },
): Promise<Reconciliation<SubmittedAction>> {
  const answer = submittedAnswer(entry);
  const baseline = entry.context?.baseline_notional_usd;
  // The side once its records and positions line agree: a list lagging a landed change is never taken as not landed.
  const { position } = await sideInStep(ports, client, change.market, change.side);
  const now = position?.notionalUsd;
  const shown =
    position === undefined
      ? `no ${change.side} position on ${change.market}`
      : now === undefined
        ? `a ${change.side} position without a readable notional`
        : `the ${change.side} side is ${formatUsd(now)}`;
  if (typeof baseline !== 'number') {
    return {
      verdict: 'unknown',
      evidence: `${shown} now, and the side was not in the positions list before the ${change.action} was sent, so there is nothing to compare with`,
    };
  }
  const before = entry.context?.hedge_id;
  if (typeof before === 'string' && position?.hedgeId !== undefined && position.hedgeId !== before) {
    return {
      verdict: 'unknown',
      evidence: `${shown} now, under another hedge (${safeText(position.hedgeId)}) than before the ${change.action} (${safeText(before)})`,
    };
  }
  const expected = change.action === 'add' ? baseline + change.notionalUsd : baseline - change.notionalUsd;
  const evidence = `${shown} now; it was ${formatUsd(baseline)} before the ${change.action} was sent, and would be ${expected > CENT ? formatUsd(expected) : 'closed'} after it`;
  if (now !== undefined && near(now, expected)) return { verdict: 'landed', evidence, answer };
  if (change.action === 'reduce' && position === undefined && expected <= baseline * 0.01)
    return { verdict: 'landed', evidence, answer };
  // The notional it had before is no proof: a change outside the journal may have moved it back.
  return { verdict: 'unknown', evidence };
}

/** A close: the side's presence in the positions list. */
export async function reconcileClose(
  ports: FlowPorts,
  client: HedgeClient,
  entry: JournalEntry,
  request: { market: string; side: Side },
): Promise<Reconciliation<SubmittedAction>> {
  const { position, filled } = await sideInStep(ports, client, request.market, request.side);
  const answer = submittedAnswer(entry);
  const neverAnswered = entry.outcome === 'pending' || entry.outcome === 'unknown';
  if (!position) {
    const gone = `the ${request.side} side of ${request.market} is no longer in the positions list`;
    const context = entry.context;
    const hedgeBefore = typeof context?.hedge_id === 'string' ? context.hedge_id : undefined;
    // The side read before the send (journaled with the entry) was already empty: a gone side is not this close's doing.
    if (context !== undefined && hedgeBefore === undefined && typeof context.notional_usd !== 'number') {
      const evidence = `${gone}, and it was not open when the close was about to be sent`;
      return { verdict: neverAnswered ? 'not-landed' : 'unknown', evidence };
    }
    // The journal's own reduces since emptied the side: its absence is theirs, not necessarily this close's.
    if (typeof context?.notional_usd === 'number' && context.notional_usd <= CENT) {
      return {
        verdict: 'unknown',
        evidence: `${gone}, but the changes the journal knows landed since this close began had already emptied it`,
      };
    }
    // A hedge past its maturity leaves the list by settling: its absence says nothing of this close.
    if (hedgeBefore !== undefined) {
      const hedge = await client.getHedge(hedgeBefore).catch(() => undefined);
      const maturity = hedge?.maturity_at ? Date.parse(String(hedge.maturity_at)) : Number.NaN;
      // The latest the server's clock can read: a hedge that may have matured may have settled.
      const now = client.transport.serverNow().latestMs;
      if (!hedge || !Number.isFinite(maturity) || maturity <= now) {
        const why = !hedge
          ? `its hedge ${safeText(hedgeBefore)} cannot be read`
          : !Number.isFinite(maturity)
            ? `its hedge ${safeText(hedgeBefore)} shows no maturity`
            : `its hedge ${safeText(hedgeBefore)} reached its maturity (${safeText(String(hedge.maturity_at))}) and may have settled`;
        return { verdict: 'unknown', evidence: `${gone}, but ${why}` };
      }
    }
    return { verdict: 'landed', evidence: gone, answer };
  }
  const before = entry.context?.hedge_id;
  if (typeof before === 'string' && position.hedgeId !== undefined && position.hedgeId !== before) {
    return {
      verdict: 'unknown',
      evidence: `the ${request.side} side of ${request.market} is open under another hedge (${safeText(position.hedgeId)}) than the one it was to close (${safeText(before)})`,
    };
  }
  const evidence = `the ${request.side} side of ${request.market} is still open${position.notionalUsd === undefined ? '' : ` (${formatUsd(position.notionalUsd)})`}`;
  // A close ends every hedge of the side: the one it was to close still filled is proof it did not land.
  if (neverAnswered && typeof before === 'string' && filled.includes(before))
    return { verdict: 'not-landed', evidence: `${evidence}, and its hedge ${safeText(before)} is still filled` };
  return { verdict: 'unknown', evidence };
}

/** The side once its views agree: in step, its positions line and the ids of its filled hedges; flat, none. */
async function sideInStep(ports: FlowPorts, client: HedgeClient, market: string, side: Side) {
  const { book, positions } = await readSideInStep(ports, client, market, side);
  if (book.state !== 'in-step') return { filled: [] };
  return { position: findSide(positions, market, side), filled: book.filled.map((record) => record.id) };
}
