// The book of a side as every decision reads it: the hedge records (GET /hedges) and the positions
// line (GET /positions) read together and reconciled by domain/book.ts — never one view alone.
import type { HedgeClient } from '../api/client.js';
import type { Hedge } from '../api/schemas.js';
import { numberOf } from '../api/wire/read-position.js';
import { reconcileSide, type HedgeRecord, type SideBook } from '../domain/book.js';
import type { Side } from '../domain/vocabulary.js';
import { UnresolvedError } from '../errors.js';
import type { CommandContext } from '../runtime/context.js';
import { safeText } from '../security/safe-text.js';
import { findSide, readBook, type BookPosition } from './positions.js';

export type { SideBook } from '../domain/book.js';

/** A hedge record in the book's terms. */
export function hedgeRecord(hedge: Hedge): HedgeRecord {
  const maturity = typeof hedge.maturity_at === 'string' ? Date.parse(hedge.maturity_at) : NaN;
  const reference = (hedge as Record<string, unknown>).client_reference;
  // Read leniently, as every amount the spec types is (a decimal string is a number).
  const notional = numberOf(hedge.notional_usd);
  return {
    id: hedge.id,
    status: hedge.status,
    ...(notional !== undefined ? { notionalUsd: notional } : {}),
    ...(Number.isFinite(maturity) ? { maturityAtMs: maturity } : {}),
    ...(typeof reference === 'string' && reference !== '' ? { clientReference: reference } : {}),
  };
}

/** The side's book from views already read (one read serves every side of a cycle). */
export function sideBookOf(hedges: readonly Hedge[], positions: readonly BookPosition[], market: string, side: Side, nowMs: number): SideBook {
  const records = hedges.filter((hedge) => hedge.market.toUpperCase() === market.toUpperCase() && hedge.side === side).map(hedgeRecord);
  const line = findSide([...positions], market, side);
  const maturity = line?.maturityAt ? Date.parse(line.maturityAt) : NaN;
  return reconcileSide(
    records,
    line ? { ...(line.notionalUsd !== undefined ? { notionalUsd: line.notionalUsd } : {}), ...(line.hedgeId ? { hedgeId: line.hedgeId } : {}), ...(Number.isFinite(maturity) ? { maturityAtMs: maturity } : {}) } : undefined,
    nowMs,
  );
}

/** Both views read now (the positions list, then the records: a change seen in the list is on its record too), and the server's time. */
export async function readViews(client: HedgeClient, log?: (line: string) => void): Promise<{ hedges: Hedge[]; positions: BookPosition[] }> {
  const positions = await readBook({ client, log });
  const hedges = await client.listHedges();
  return { hedges, positions };
}

/** How long a one-shot command waits for a settling side's views to agree before it cannot tell (exit 12); --timeout shortens it. */
export const SETTLE_WAIT_MS = 60_000;
/** The spec's advised polling cadence. */
const SETTLE_POLL_MS = 1_500;

/**
 * The side's book once its views agree (in step, or flat): read again every 1.5 s while it is
 * settling — a fill the positions list has not caught up with, a close it still shows, a hedge
 * past its maturity not settled yet — up to SETTLE_WAIT_MS (or --timeout); past that, "cannot
 * tell" (UnresolvedError, exit 12), never a decision on one view alone. The views read last are
 * returned with it.
 */
export async function readSideInStep(
  ctx: CommandContext,
  client: HedgeClient,
  market: string,
  side: Side,
): Promise<{ book: SideBook; hedges: Hedge[]; positions: BookPosition[] }> {
  const started = ctx.clock.now();
  const bound = Math.min(SETTLE_WAIT_MS, ctx.deadline === undefined ? Infinity : ctx.deadline - started);
  for (;;) {
    const { hedges, positions } = await readViews(client, (line) => ctx.log(line));
    const book = sideBookOf(hedges, positions, market, side, client.transport.serverNow() ?? ctx.clock.now());
    if (book.state !== 'settling') return { book, hedges, positions };
    const waited = ctx.clock.now() - started;
    if (waited + SETTLE_POLL_MS > bound) {
      throw new UnresolvedError(
        `The ${side} side of ${market} is settling: ${safeText(book.why ?? 'its views disagree')}; they still disagreed after ${Math.round(waited / 1000)} s, so nothing was sent.`,
        { details: { market, side, why: book.why ?? null }, hint: 'Compare `hedge positions` with `hedge hedges`, and run the command again once both show the same book.' },
      );
    }
    ctx.log(`${market} ${side}: settling (${safeText(book.why ?? '')}); reading again in ${SETTLE_POLL_MS / 1000} s`);
    await ctx.clock.sleep(SETTLE_POLL_MS, ctx.signal);
  }
}
