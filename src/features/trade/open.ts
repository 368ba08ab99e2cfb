// One `hedge open` (flags or the wizard's answers): the optional checks, the quote said before the
// question, then the one write flow — under one lock per client reference, so that a second
// `open --ref` of the same deal waits and then checks the book as the first left it.
import type { HedgeClient, OpenRequest } from '../../platform/api/client.js';
import type { Quote } from '../../platform/api/schemas.js';
import type { FlowPorts } from '../../platform/runtime/context.js';
import { messageOf, safeText } from '../../core/security/safe-text.js';
import { HEDGE_STATUSES } from '../../core/vocabulary.js';
import { sameReference } from '../../core/input.js';
import { formatUsd } from '../../core/number-format.js';
import { PreTradeCheckError } from '../../core/errors.js';
import { withAccountLock } from '../write/account-lock.js';
import {
  mustStop,
  questionWithUnchecked,
  quoteOpen,
  runPreTradeChecks,
  uncheckedList,
  type Unchecked,
} from './pre-trade.js';
import { openAction, openArgv } from './trade-actions.js';
import { runWrite, type WriteOptions } from '../write/write-flow.js';

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
export async function openHedge(ports: FlowPorts, client: HedgeClient, request: OpenRequest, choices: OpenChoices) {
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
  return { outcome, quote };
}

const ACTIVE = new Set(['submitting', 'submitted', 'filled']);
const KNOWN = new Set<string>(HEDGE_STATUSES);

/** `open --ref REF`: a client reference names one deal; an active hedge carrying it already refuses the open. */
async function refuseDuplicateReference(
  ports: FlowPorts,
  client: HedgeClient,
  reference: string,
  unchecked?: Unchecked,
) {
  let hedges;
  try {
    hedges = await client.listHedges({ clientReference: reference, limit: 20 });
  } catch (error) {
    if (!unchecked || mustStop(error)) throw error;
    unchecked.items.push('the duplicate reference');
    unchecked.warn(
      `Could not check whether an active hedge already carries client reference ${JSON.stringify(reference)} (GET /hedges: ${messageOf(error)}); the open goes on.`,
    );
    return;
  }
  const carrying = hedges.filter((hedge) => sameReference(hedge.client_reference, reference));
  const unknown = carrying.filter((hedge) => !KNOWN.has(hedge.status));
  if (unknown.length > 0) {
    ports.notify({
      kind: 'reference-unknown-status',
      level: 'note',
      text: `Note: ${unknown.map((hedge) => `${hedge.id} (${hedge.status})`).join(', ')} carries this reference with a status hedge does not know; not counted as active.`,
      data: { hedge_ids: unknown.map((hedge) => hedge.id) },
    });
  }
  const active = carrying.filter((hedge) => ACTIVE.has(hedge.status));
  if (active.length === 0) return;
  const first = active[0]!;
  throw new PreTradeCheckError(
    'duplicate_client_reference',
    `An active hedge already carries client reference ${JSON.stringify(reference)}: ${first.id} (${first.status}, ${first.side} ${formatUsd(first.notional_usd)} on ${first.market}). Nothing was sent.`,
    { client_reference: reference, hedge_ids: active.map((hedge) => hedge.id) },
    `Look at it with \`${ports.hedgeCommand('hedges', '--ref', reference)}\`; to open another one anyway, add --allow-duplicate-ref.`,
  );
}
