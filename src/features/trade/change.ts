// The trade commands' flows on top of the one write flow. `hedge open` (flags or the wizard's answers): the optional
// checks, the quote said before the question, then the write — under one lock per client reference, so that a
// second `open --ref` of the same deal waits and then checks the book as the first left it. `add` and `reduce`:
// their options parsed once, then the change action, and the amount's name learnt from a refusal.
import type { HedgeClient, OpenRequest } from '../../platform/api/client.js';
import type { Quote } from '../../platform/api/schemas.js';
import type { FlowPorts } from '../../platform/runtime/context.js';
import { messageOf, safeText } from '../../core/security/safe-text.js';
import { HEDGE_STATUSES } from '../../core/vocabulary.js';
import { parseMarket, parseNotional, parseSide, sameReference } from '../../core/input.js';
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
import { changeAction, openAction } from './trade-actions.js';
import { isRejection, runWrite, writeOptionsFrom, type WriteAction, type WriteOptions } from '../write/write-flow.js';
import { notionalFieldFrom, refusedField, wireHint } from '../../platform/api/wire/unspecified.js';

interface OpenChoices {
  allowDuplicateRef: boolean;
  skipChecks: boolean;
  write: WriteOptions;
  /** The wizard quoted already (its card was shown). */
  quote?: Quote;
  /** The wizard's question: asked on any key with its card in view, bound to the side as shown; no checks again. */
  question?: string;
}

/** The open's outcome and the quote it was decided on (for the struck rate against it). */
export async function openHedge(ports: FlowPorts, client: HedgeClient, request: OpenRequest, choices: OpenChoices) {
  let quote = choices.quote;
  // The checks are optional safety: what they could not read is said, and named in a live confirmation.
  const unchecked = uncheckedList(ports);
  const action = openAction(ports, client, request, {
    check: async () => {
      if (request.client_reference && !choices.allowDuplicateRef)
        await refuseDuplicateReference(ports, client, request.client_reference, unchecked);
      if (!choices.skipChecks && choices.question === undefined) {
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
      {
        ...action,
        ask: choices.question !== undefined,
        question: () => questionWithUnchecked(choices.question ?? action.question(), unchecked),
      },
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
  if (unknown.length) {
    ports.notify({
      kind: 'reference-unknown-status',
      level: 'note',
      text: `Note: ${unknown.map((hedge) => `${hedge.id} (${hedge.status})`).join(', ')} carries this reference with a status hedge does not know; not counted as active.`,
      data: { hedge_ids: unknown.map((hedge) => hedge.id) },
    });
  }
  const active = carrying.filter((hedge) => ACTIVE.has(hedge.status));
  if (!active.length) return;
  const first = active[0];
  throw new PreTradeCheckError(
    'duplicate_client_reference',
    `An active hedge already carries client reference ${JSON.stringify(reference)}: ${first.id} (${first.status}, ${first.side} ${formatUsd(first.notional_usd)} on ${first.market}). Nothing was sent.`,
    { client_reference: reference, hedge_ids: active.map((hedge) => hedge.id) },
    `Look at it with \`${ports.hedgeCommand('hedges', '--ref', reference)}\`; to open another one anyway, add --allow-duplicate-ref.`,
  );
}

export function parseChangeOptions(
  args: { market: string; side: string; notional: string },
  options: Parameters<typeof writeOptionsFrom>[0] & { skipChecks?: boolean },
) {
  return {
    market: parseMarket(args.market),
    side: parseSide(args.side),
    notionalUsd: parseNotional(args.notional),
    skipChecks: options.skipChecks === true,
    write: writeOptionsFrom(options),
  };
}

/** One add or reduce through the write flow. A refusal only of the amount's name did nothing, so it is sent once more under the server's name (a new key, the refused one noted) and the name learned. */
export async function runChange(
  ports: FlowPorts,
  action: 'add' | 'reduce',
  opts: ReturnType<typeof parseChangeOptions> & Pick<WriteAction<unknown, unknown>, 'ask'>,
) {
  const client = await ports.client();
  const request = { market: opts.market, side: opts.side, notional_usd: opts.notionalUsd };
  // The checks are optional safety: what they could not read is said, and named in a live confirmation.
  const unchecked = uncheckedList(ports);
  const check =
    action === 'add' && !opts.skipChecks
      ? async () => {
          await runPreTradeChecks(client, { ...opts, action: 'add' }, unchecked);
        }
      : undefined;
  const build = () => {
    const built = changeAction(ports, client, action, request, { check, serverDecides: opts.skipChecks });
    return { ...built, ask: opts.ask, question: () => questionWithUnchecked(built.question(), unchecked) };
  };
  const first = build();
  try {
    return { outcome: await runWrite(ports, first, opts.write), body: { ...request } };
  } catch (error) {
    const planned = first.plan('');
    // Only a clear refusal of this action's own request (nothing happened) says anything of the amount's name.
    if (!isRejection(error) || error.endpoint !== `${planned.method} ${planned.path}`) throw error;
    const refused = error;
    // Sent again only when that is safe: not a dry run, not a resume of a given key (one request, never changed behind the user's back).
    const field =
      opts.write.dryRun || opts.write.idempotencyKey !== undefined
        ? undefined
        : notionalFieldFrom(refused, planned.body);
    if (field === undefined || field === client.wire.changeNotionalField) {
      // A refusal at a field other than market and side is about the amount's name (the one guess in that body).
      const at = refusedField(refused);
      throw refused.status !== 400 || at === undefined || at === 'market' || at === 'side'
        ? refused
        : refused.withHint(
            `The server refused the add/reduce body at \`${at}\` (the amount's name is not shown in the spec). ${wireHint('changeNotionalField')}`,
          );
    }
    client.learnWire({
      setting: 'changeNotionalField',
      value: field,
      how: 'refused',
      evidence: `${refused.endpoint} refused \`${client.wire.changeNotionalField}\` with ${refused.code} naming \`${field}\``,
    });
    const journal = await ports.journal();
    const [entry] = refused.idempotencyKey ? await journal.list({ idempotencyKey: refused.idempotencyKey }) : [];
    const retry = build();
    const before = retry.before?.bind(retry);
    const note = { retry_of: entry?.id ?? null, learned: { notional_field: field } };
    ports.notify({
      kind: 'sending-again',
      level: 'note',
      text: `Sending the ${first.command} again with \`${field}\` (a new idempotency key; the refused request did nothing).`,
      data: { field },
    });
    const outcome = await runWrite(
      ports,
      {
        ...retry,
        confirmed: true,
        check: undefined,
        preview: undefined,
        before: async (run) => ({ ...((await before?.(run)) ?? {}), ...note }),
      },
      { ...opts.write, idempotencyKey: undefined, fresh: false },
    );
    if (entry && outcome.kind !== 'dry-run') {
      await journal
        .update(entry.id, {
          message: `${refused.message} — refused for the field name; sent again as ${outcome.entry.id} with \`${field}\``,
        })
        .catch(() => undefined);
    }
    return { outcome, body: { ...request } };
  }
}
