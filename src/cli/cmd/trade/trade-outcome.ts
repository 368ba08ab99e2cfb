// Shared by open, close, add, reduce and resume (not a command): the one place a trade's outcome,
// returned by the write flow, is shown and turned into the command's ending — an open that failed
// on-chain is raised as its error (exit code from errors.ts), anything else ends with 0.
import type { Hedge, OpenedHedge, Quote } from '../../../platform/api/schemas.js';
import type { CloseResult, LandedChange } from '../../../features/trade/trade-actions.js';
import type { WriteOutcome } from '../../../features/write/write-flow.js';
import type { JournalEntry } from '../../../platform/journal/entry.js';
import { type CommandContext, formatUsd, OrderFailedError, readNumber, safeText } from '../command-input.js';
import type { Output } from '../../../platform/terminal/output.js';
import { recordStanding } from '../../../features/book/book.js';
import {
  CHANGED_SIDE_FIELDS,
  renderClosed,
  renderHedge,
  renderPositionChange,
  SUBMITTED_FIELDS,
} from '../../../platform/results/write-outcome.js';
import { historyRecordForPeople, positionInOneShape } from '../../../platform/api/wire/fields.js';
import { RESULT_FIELDS, writeResult } from '../../../platform/results/result-fields.js';

/** What showing a write's outcome uses of its context. */
type Options = Pick<CommandContext, 'hedgeCommand' | 'output'>;

/** What a write command prints (a trade's, or `api`'s envelope), so that --fields is checked before anything is sent
 * (platform/results/result-fields.ts). `--dry-run`: nothing sent, so a read as far as output goes; in text formats it is HTTP text,
 * which has no fields. */
export const writeFields =
  (name: keyof typeof RESULT_FIELDS, dryRunNames = ['method', 'url', 'headers', 'body']) =>
  (input: { options: { dryRun?: boolean } }) =>
    input.options.dryRun
      ? { kind: 'records' as const, names: dryRunNames, open: true, sends: false, jsonOnly: 'the request as HTTP text' }
      : writeResult(RESULT_FIELDS[name]);

/** How a kind's result is shown: the result as the wait left it, the server's answer and its journal entry. */
type TradeView = (ctx: Options, result: unknown, answer: OpenedHedge, entry: JournalEntry) => void;

/** Shown by the view of its kind, which its command passes (a resume, the view of the kind it finished). An action
 * recorded without sending shows nothing. */
export function showTrade(ctx: Options, outcome: WriteOutcome<unknown, unknown>, view?: TradeView) {
  const { output, hedgeCommand } = ctx;
  if (outcome.kind === 'dry-run') renderDryRun(output, outcome.planned);
  if (outcome.kind === 'dry-run' || outcome.kind === 'recorded') return 0;
  const { entry } = outcome;
  const answer = outcome.answer as OpenedHedge;
  // A wait always resolves to a result: none is an answer not waited for.
  const result = outcome.kind === 'resolved' && outcome.result;
  if (result) (view ?? TRADE_VIEWS[entry.command as keyof typeof TRADE_VIEWS])(ctx, result, answer, entry);
  else if (entry.command === 'open') {
    const follow = hedgeCommand('hedges', answer.hedge_id, '--wait');
    submitted(ctx, answer, 'Hedge submitted', `Follow it with: \`${follow}\``);
    output.plainNote(`Submitted ${answer.hedge_id}; follow it with: ${follow}`);
  } else submitted(ctx, answer, `${{ close: 'Close', add: 'Add', reduce: 'Reduce' }[entry.command]} submitted`);
  return 0;
}

/** `--no-wait`: the record the write returned, status `submitted`. */
function submitted({ output, hedgeCommand }: Options, answer: OpenedHedge, title: string, footer?: string) {
  output.record(
    answer,
    SUBMITTED_FIELDS.filter((field) => field.key !== 'id' || !('hedge_id' in answer)),
    // Quoted: a command is wrapped as one word, never split while it fits a line.
    { title, footer: [footer ?? `Check it with: \`${hedgeCommand('positions')}\``] },
  );
}

/** An open's card title by how its record stands: a failed order's is 'Order failed', a standing not listed 'Hedge'. */
const OPENED_TITLES: Partial<Record<string, string>> = { filled: 'Hedge filled', ended: 'Hedge (closed)' };

/** An open's hedge, filled or failed; `quote`: the one shown before it (its price is compared with the fill). */
export const showOpened =
  (quote?: Quote): TradeView =>
  ({ output, hedgeCommand }, result) => {
    const hedge = result as Hedge;
    // Its record as the side model reads it: filled, failed, ended since (filled, then closed or settled), or not known.
    const { standing, ...read } = recordStanding(hedge);
    const failed = 'failed' in read;
    const closed = standing === 'ended' && !failed;
    if (closed)
      output.warn(`Hedge ${hedge.id} was already closed when it was read (it filled and then closed or settled).`);
    else if (standing === 'filled') output.done(`Filled: hedge ${hedge.id}.`);
    renderHedge(output, hedge, failed ? 'Order failed' : (OPENED_TITLES[standing] ?? 'Hedge'), quote);
    // An open that failed on-chain is an error once shown (exit code from errors.ts, as any failure).
    if (failed)
      throw new OrderFailedError(
        `The order for hedge ${hedge.id} failed on-chain: nothing was opened, and the reserved margin and fee were released.`,
        hedge.id,
        `Check the market with \`${hedgeCommand('markets')}\`, then open again (a new run uses a new idempotency key).`,
      );
  };

export const showClosed: TradeView = ({ output }, result, answer) => {
  const closed = result as CloseResult;
  const open = closed.openNow;
  if (open) {
    const ids = open.hedge_ids.map(safeText).join(', ');
    output.warn(
      `Closed${closed.hedgeId ? ` ${safeText(closed.hedgeId)}` : ''}, but the ${closed.side} side of ${closed.market} is open now: ${ids} (${formatUsd(open.notional_usd)}), which this close did not close.`,
    );
  } else output.done(`Closed: the ${closed.side} position on ${closed.market} is no longer open.`);
  renderClosed(output, answer, closed.hedgeId, closed.estimate, closed.realized);
};

/** An add's or a reduce's side before and after it. */
export const showChanged: TradeView = ({ output, hedgeCommand }, result, answer, entry) => {
  const change = result as LandedChange;
  const baselineUsd = readNumber(entry.context?.baseline_notional_usd);
  const { action, market, side, notionalUsd, before, position } = change;
  const now = change.closed
    ? 'is now closed'
    : change.afterNotionalUsd !== undefined
      ? `is now ${formatUsd(change.afterNotionalUsd)}${baselineUsd !== undefined ? ` (was ${formatUsd(baselineUsd)})` : ''}`
      : 'has changed';
  output.done(
    `${action === 'add' ? 'Added' : 'Reduced by'} ${formatUsd(notionalUsd)}: the ${side} hedge on ${market} ${now}.`,
  );
  const hedgeId = change.hedge?.id ?? answer.hedge_id ?? before?.hedgeId;
  // People get the position before → after; other modes the same figures in a line on stderr. The command names the
  // hedge the card's Hedge ID row does: on a side of several, the one the answer named may be one the reduce closed.
  if (!change.closed) {
    const shownId = (position ?? before)?.hedgeId ?? hedgeId;
    renderPositionChange(
      output,
      { ...change, orderTxHash: answer.order_tx_hash ?? undefined },
      shownId ? [`The hedge in full: ${hedgeCommand('hedges', shownId)}`] : [],
    );
  }
  // Scripts get the side after the change, however the server books it, with the server's answer beside it.
  const after = position
    ? output.named(position.raw, (raw) => positionInOneShape(raw, position))
    : { market, side, notional_usd: change.closed ? 0 : (change.afterNotionalUsd ?? null) };
  // A change that closed the side says what it realized, as a close does (in the one shape, as `hedge history`).
  const realized = change.closed && {
    realized: change.realized ? output.named(change.realized, historyRecordForPeople) : null,
  };
  output.record({ ...after, hedge: change.hedge ?? null, answer, ...realized }, CHANGED_SIDE_FIELDS, {
    // A reduce of about the whole position closes it: shown to people as a close; a change, by the card above.
    people: (shown) => {
      if (change.closed) renderClosed(shown, answer, hedgeId, before?.netMarginUsd, change.realized);
    },
  });
};

const TRADE_VIEWS = { open: showOpened(), close: showClosed, add: showChanged, reduce: showChanged };

/** --dry-run as shown: the request a write would send (method, url, headers with its key, body), never sent. */
export function renderDryRun(
  output: Output,
  planned: { method: string; url: string; headers: Record<string, string>; body: unknown },
) {
  // Said once, before the request: what it is and what to do next.
  output.warn(
    'Dry run: this request was NOT sent. Run the same command without --dry-run to send it (with its own key).',
  );
  // No advice to reuse the key: --idempotency-key resumes an earlier run, skipping the pre-trade checks.
  output.document(planned, () => requestText(planned));
}

/** A request as HTTP reads: the request line, the headers, a blank line and the body. */
export function requestText(request: Parameters<typeof renderDryRun>[1]) {
  const lines = [`${request.method} ${request.url}`];
  for (const [name, value] of Object.entries(request.headers)) lines.push(`${name}: ${value}`);
  if (request.body !== null) lines.push('', JSON.stringify(request.body, null, 2));
  return lines.join('\n');
}
