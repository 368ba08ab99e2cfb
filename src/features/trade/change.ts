// The trade commands' flows on top of the one write flow. `hedge open` (flags or the wizard's answers): the optional
// checks, the quote said before the question, then the write — under one lock per client reference, so that a
// second `open --ref` of the same deal waits and then checks the book as the first left it. `add` and `reduce`:
// their options parsed once, then the change action, and the amount's name learnt from a refusal.
import type { HedgeClient, OpenRequest } from '../../platform/api/client.js';
import type { Quote } from '../../platform/api/schemas.js';
import type { WritePorts } from '../write/ports.js';
import { safeText } from '../../core/security/safe-text.js';
import { parseMarket, parseNotional, parseSide } from '../../core/input.js';
import { tradeAction, tradeRecord, type TradeRecord } from './trade-actions.js';
import {
  isRejection,
  runWrite,
  settleWrite,
  withAccountLock,
  writeOptionsFrom,
  type WriteOptions,
} from '../write/write-flow.js';
import {
  notionalFieldFrom,
  refusedField,
  wireHint,
  WIRE_SETTING_SOURCES,
} from '../../platform/api/wire/unspecified.js';

/** The open's outcome and the quote it was decided on (for the struck rate against it). */
export async function openHedge(
  ports: WritePorts,
  client: HedgeClient,
  request: OpenRequest,
  choices: {
    allowDuplicateRef: boolean;
    skipChecks: boolean;
    write: WriteOptions;
    /** The wizard quoted already (its card was shown). */
    quote?: Quote;
    /** The wizard's question: asked on any key with its card in view, bound to the side as shown; no checks again. */
    question?: string;
  },
) {
  const reference = request.client_reference;
  const guarded = reference !== undefined && !choices.allowDuplicateRef;
  // The checks are optional safety: what they could not read is said, and named in a live confirmation. The wizard
  // quoted already; otherwise the quote is said (a card on a terminal) before the question.
  const asked = choices.question !== undefined;
  const record = tradeRecord('open', request, {
    ask: asked,
    question: choices.question,
    quote: choices.quote,
    checks: { duplicateReference: guarded, preTrade: !choices.skipChecks && !asked, quote: !choices.quote },
  });
  const send = () => runWrite(ports, tradeAction(ports, client, record), choices.write);
  const outcome =
    !guarded || choices.write.dryRun
      ? await send()
      : await withAccountLock(
          ports,
          `client reference ${JSON.stringify(safeText(reference))}`,
          ['ref', reference],
          send,
        );
  // The quote it was decided on: the wizard's, else the one its preview showed.
  return { outcome, quote: record.quote ?? ('kept' in outcome ? outcome.kept?.quote : undefined) };
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

/** One add or reduce through the write flow. */
export async function runChange(
  ports: WritePorts,
  action: 'add' | 'reduce',
  opts: ReturnType<typeof parseChangeOptions> & Pick<TradeRecord, 'ask'>,
) {
  const request = { market: opts.market, side: opts.side, notional_usd: opts.notionalUsd };
  // The checks are optional safety: what they could not read is said, and named in a live confirmation.
  const record = tradeRecord(action, request, {
    ask: opts.ask,
    serverDecides: opts.skipChecks,
    checks: { preTrade: action === 'add' && !opts.skipChecks },
  });
  return sendTrade(ports, await ports.client(), record, opts.write);
}

/** A trade through the write flow (a command's, an apply's step, a keeper's). An add or reduce refused only for the
 * amount's name did nothing, so it is sent once more under the server's name (a new key, the refused one noted) and
 * the name learned. */
export async function sendTrade(ports: WritePorts, client: HedgeClient, record: TradeRecord, write: WriteOptions) {
  const first = tradeAction(ports, client, record);
  const tried = await settleWrite(ports, first, write);
  if (tried.kind !== 'failed') return tried;
  const { error } = tried;
  const planned = first.plan('');
  // Only a clear refusal of this action's own request (nothing happened) says anything of the amount's name.
  if (
    (record.kind !== 'add' && record.kind !== 'reduce') ||
    !isRejection(error) ||
    error.endpoint !== `${planned.method} ${planned.path}`
  )
    throw error;
  // Sent again only when that is safe: not a dry run, not a resume of a given key (one request, never changed behind the user's back).
  const named = write.dryRun || write.idempotencyKey !== undefined ? undefined : notionalFieldFrom(error, planned.body);
  // A name in another unit or scale would make the same figure mean another amount: said, never sent or kept.
  if (named?.unit === 'other')
    throw error.withHint(
      `The server asks for the add/reduce amount as \`${named.field}\`, a name that counts it in another unit or scale than USD; hedge sends its amounts in USD, so nothing more was sent and the name is not kept. Only if the server's documentation says it takes USD: ${WIRE_SETTING_SOURCES.changeNotionalField.env}=${named.field}.`,
    );
  const field = named?.field;
  if (field === undefined || field === client.wire.changeNotionalField) {
    // A refusal at a field other than market and side is about the amount's name (the one guess in that body).
    const at = refusedField(error);
    throw error.status !== 400 || at === undefined || at === 'market' || at === 'side'
      ? error
      : error.withHint(
          `The server refused the add/reduce body at \`${at}\` (the amount's name is not shown in the spec). ${wireHint('changeNotionalField')}`,
        );
  }
  client.learnWire({
    setting: 'changeNotionalField',
    value: field,
    evidence: `${error.endpoint} refused \`${client.wire.changeNotionalField}\` with ${error.code} naming \`${field}\``,
  });
  const journal = await ports.journal();
  const [entry] = error.idempotencyKey ? await journal.list({ idempotencyKey: error.idempotencyKey }) : [];
  ports.notify({
    kind: 'sending-again',
    level: 'note',
    text: `Sending the ${first.command} again with \`${field}\` (a new idempotency key; the refused request did nothing).`,
  });
  const outcome = await runWrite(
    ports,
    tradeAction(ports, client, {
      ...record,
      // Checked on its first attempt; its confirmation (a person's "yes", an agent's token) goes with it, for the side as it was then.
      approved: { by: 'retry', trades: tried.approvedOn },
      context: { retry_of: entry?.id ?? null, learned: { notional_field: field } },
    }),
    { ...write, idempotencyKey: undefined, fresh: false },
  );
  if (entry && outcome.kind !== 'dry-run') {
    await journal
      .update(entry.id, {
        message: `${error.message} — refused for the field name; sent again as ${outcome.entry.id} with \`${field}\``,
      })
      .catch(() => undefined);
  }
  return outcome;
}
