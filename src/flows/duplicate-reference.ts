// `open --ref REF`: a client reference names one deal. Before opening, the hedges already carrying
// it are looked up (GET /hedges?client_reference=), and an active one (submitting, submitted or
// filled) refuses the open — nothing is sent — unless --allow-duplicate-ref says it is meant.
import type { HedgeClient } from '../api/client.js';
import { PreTradeCheckError } from '../errors.js';
import type { CommandContext } from '../runtime/context.js';

const ACTIVE = new Set(['submitting', 'submitted', 'filled']);

export async function refuseDuplicateReference(ctx: CommandContext, client: HedgeClient, reference: string): Promise<void> {
  const hedges = await client.listHedges({ clientReference: reference, limit: 20 });
  const active = hedges.filter((hedge) => hedge.client_reference === reference && ACTIVE.has(hedge.status));
  if (active.length === 0) return;
  const first = active[0]!;
  throw new PreTradeCheckError(
    'duplicate_client_reference',
    `An active hedge already carries client reference ${JSON.stringify(reference)}: ${first.id} (${first.status}, ${first.side} ${first.notional_usd} USD on ${first.market}). Nothing was sent.`,
    { client_reference: reference, hedge_ids: active.map((hedge) => hedge.id) },
    `Look at it with \`${ctx.hedgeCommand('hedges', '--ref', reference)}\`; to open another one anyway, add --allow-duplicate-ref.`,
  );
}
