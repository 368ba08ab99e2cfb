// One `hedge open` (flags or the wizard's answers): the optional checks, the quote said before the
// question, then the one write flow — under one lock per client reference, so that a second
// `open --ref` of the same deal waits and then checks the book as the first left it.
import type { HedgeClient, OpenRequest } from '../../platform/api/client.js';
import type { Quote } from '../../platform/api/schemas.js';
import type { FlowPorts } from '../../platform/runtime/context.js';
import { safeText } from '../../core/security/safe-text.js';
import { withAccountLock } from '../write/account-lock.js';
import { refuseDuplicateReference } from './duplicate-reference.js';
import { questionWithUnchecked, quoteOpen, runPreTradeChecks, uncheckedList } from './pre-trade.js';
import { openAction, openArgv } from './trade-actions.js';
import { runWrite, type WriteOptions, type WriteOutcome } from '../write/write-flow.js';

export interface OpenChoices {
  allowDuplicateRef: boolean;
  skipChecks: boolean;
  write: WriteOptions;
  /** The wizard quoted already (its card was shown). */
  quote?: Quote;
  /** The wizard's own confirmation: nothing more is asked, no checks again. */
  confirmed?: boolean;
}

/** The open's outcome and the quote it was decided on (for the struck rate against it). */
export async function openHedge(
  ports: FlowPorts,
  client: HedgeClient,
  request: OpenRequest,
  choices: OpenChoices,
): Promise<{ outcome: WriteOutcome<unknown, unknown>; quote?: Quote }> {
  let quote = choices.quote;
  // The checks are optional safety: what they could not read is said, and named in a live confirmation.
  const unchecked = uncheckedList(ports);
  const action = openAction(ports, client, request, {
    argv: openArgv(request),
    check: async () => {
      if (request.client_reference && !choices.allowDuplicateRef)
        await refuseDuplicateReference(ports, client, request.client_reference, unchecked);
      if (!choices.skipChecks && !choices.confirmed) {
        await runPreTradeChecks(
          client,
          { market: request.market, side: request.side, notionalUsd: request.notional_usd, action: 'open' },
          unchecked,
        );
      }
    },
    // The wizard quoted already; otherwise the quote is said (a card on a terminal) before the question.
    preview: choices.quote
      ? undefined
      : async () => {
          quote = await quoteOpen(ports, client, request);
        },
    get quote() {
      return quote;
    },
  });
  const send = () =>
    runWrite(
      ports,
      { ...action, confirmed: choices.confirmed, question: () => questionWithUnchecked(action.question(), unchecked) },
      choices.write,
    );
  const reference = request.client_reference;
  const outcome =
    reference === undefined || choices.allowDuplicateRef || choices.write.dryRun
      ? await send()
      : await withAccountLock(
          ports,
          `client reference ${JSON.stringify(safeText(reference))}`,
          ['ref', reference],
          send,
        );
  return { outcome: outcome as WriteOutcome<unknown, unknown>, quote };
}
