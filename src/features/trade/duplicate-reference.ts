// `open --ref REF`: a client reference names one deal.
import type { HedgeClient } from '../../platform/api/client.js';
import { HEDGE_STATUSES } from '../../core/vocabulary.js';
import { sameReference } from '../../core/input.js';
import { formatUsd } from '../../core/number-format.js';
import { PreTradeCheckError } from '../../core/errors.js';
import type { FlowPorts } from '../../platform/runtime/context.js';
import { mustStop, type Unchecked } from './pre-trade.js';
import { messageOf } from '../../core/security/safe-text.js';

const ACTIVE = new Set(['submitting', 'submitted', 'filled']);
const KNOWN = new Set<string>(HEDGE_STATUSES);

export async function refuseDuplicateReference(
  ports: Pick<FlowPorts, 'notify' | 'hedgeCommand'>,
  client: HedgeClient,
  reference: string,
  unchecked?: Unchecked,
): Promise<void> {
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
