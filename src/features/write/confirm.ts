// The confirmation of a write. Live keys are unmistakable: every state-changing command on a `*_live_*` key shows a
// red LIVE banner on stderr and asks before it sends; without a terminal it needs --yes. What a confirmation binds — a
// person's "yes" on a live key, an agent's token, apply's one yes — is the trades it was given on, each with the hedges
// its side held and their notional (Trade.held), not a number alone. Every kind compares them here, just before the
// send under the side's lock: when they differ, nothing is sent and it is asked again.
import { redactKey } from '../../core/security/secrets.js';
import { DeclinedError, UsageError } from '../../core/errors.js';
import { formatUsd } from '../../core/number-format.js';
import { createHash } from 'node:crypto';
import { cents, toCents } from '../../core/money.js';
import { canonicalJson } from '../../core/files/canonical-json.js';
import type { Trade } from '../../platform/runtime/context.js';
import { sameHedges, type SideShown } from '../book/book.js';
import type { Approval, WritePlan } from './write-run.js';
import { safeText } from '../../core/security/safe-text.js';
import type { WritePorts } from './ports.js';

/** What a confirmation binds of a write's plan, as a hash: its kind and request, and the side it acts on and what it
 * trades there, each sum to the cent (never a figure read alongside, such as what a close returns). */
export function planHash({ kind, request, side, shown }: WritePlan) {
  const sum = (held?: SideShown) => held && { hedge_ids: held.hedge_ids, usd_cents: toCents(held.notional_usd) };
  const trades = shown.map(({ market, notionalUsd, held }) => ({
    market: market.toUpperCase(),
    usd_cents: toCents(notionalUsd),
    held: sum(held) ?? null,
  }));
  return createHash('sha256')
    .update(canonicalJson({ kind, request, side: sum(side) ?? null, trades }))
    .digest('hex');
}

/** Whether two plans of a write bind alike (both unset: alike). */
export const samePlan = (a?: WritePlan, b?: WritePlan) =>
  a === undefined || b === undefined ? a === b : planHash(a) === planHash(b);

/** Declining a confirmation ends the run with nothing sent: exit 8 (`declined`), not Ctrl-C's 130. */
export class NotConfirmedError extends DeclinedError {
  constructor() {
    super('Not confirmed; nothing was sent.');
  }
}

/** `action` completes "this will …" and "--yes is required to …": "open a hedge", "close a position". The guard says
 * whether a confirmation prompt must come before the write (live key, terminal, no --yes), and asks (default No) when
 * needed: a "No" ends the command with nothing sent. */
export async function guardLiveAction(
  ports: Pick<WritePorts, 'credentials' | 'notify' | 'interactive' | 'globals'>,
  input: { action: string; dryRun?: boolean; approved?: Approval },
) {
  const credentials = await ports.credentials();
  const live = credentials.environment === 'live';
  if (live)
    ports.notify({
      kind: 'live-key',
      level: 'live',
      text: `production key ${redactKey(credentials.apiKey)}: this will ${input.action} with real funds.`,
    });
  // Confirmed ahead: by --yes, or by the plan or the command's run the write is part of.
  const by = input.approved?.by;
  const needsConfirmation = live && !input.dryRun && !ports.globals.yes && by !== 'plan' && by !== 'run';
  if (needsConfirmation && !ports.interactive) {
    const why = ports.globals.input ? 'there is no terminal to confirm on' : '--no-input forbids asking';
    throw new UsageError(`--yes is required to ${input.action} with a LIVE key (${why}); nothing was sent.`);
  }
  return { live, needsConfirmation };
}

/** A yes/no question defaulting to No (`live`: marked LIVE); anything but Yes stops the command before it sends. */
export async function confirmOrStop(
  ports: Pick<WritePorts, 'confirm'>,
  question: string,
  options: { live?: boolean } = {},
) {
  const yes = await ports.confirm({ message: question, default: false, live: options.live });
  if (!yes) throw new NotConfirmedError();
}

/** The USD the trades move, to the cent. */
export const tradesUsd = (trades: readonly Trade[]) =>
  cents(trades.reduce((sum, trade) => sum + Math.abs(trade.notionalUsd), 0));

/** A side's hedges in words: "hdg_1, hdg_2", or "no hedge". */
export function hedgesWords(held: { hedge_ids: readonly string[] }) {
  return held.hedge_ids.length ? held.hedge_ids.map(safeText).join(', ') : 'no hedge';
}

/** The hedges that differ between what was shown and now, side by side: "hdg_3 then, hdg_4 now" (undefined: none differ). */
export function hedgesMoved(shown: readonly Trade[], now: readonly Trade[]) {
  const moved = shown.flatMap((trade, index) => {
    const then = trade.held;
    const later = now[index]?.held;
    return then && later && !sameHedges(then, later) ? [`${hedgesWords(then)} then, ${hedgesWords(later)} now`] : [];
  });
  return moved.length ? moved.join('; ') : undefined;
}

/** A person's answer came after the side moved: nothing was sent (the question comes again, naming what it holds now). */
export function sayMovedSinceAsked(
  ports: Pick<WritePorts, 'notify'>,
  { market, side }: { market: string; side: string },
  shown: readonly Trade[],
  now: readonly Trade[],
) {
  const [then, later] = [shown[0], now[0]];
  const named = !sameHedges(then?.held, later?.held);
  const holds = (trade: Trade | undefined) => {
    const usd = formatUsd(trade?.held?.notional_usd ?? trade?.notionalUsd ?? 0);
    return named && trade?.held?.hedge_ids.length ? `${usd} in ${hedgesWords(trade.held)}` : usd;
  };
  ports.notify({
    kind: 'moved-since-asked',
    level: 'warn',
    text: `The ${side} side of ${safeText(market)} moved while you were asked: it holds ${holds(later)} now, not the ${holds(then)} shown. Nothing was sent.`,
  });
}
