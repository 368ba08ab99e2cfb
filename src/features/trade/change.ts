// What `add` and `reduce` share: their options parsed once, then the one write flow with the change action (the
// commands' files hold only their parse and run), and the amount's name learnt from a refusal.
import { parseMarket, parseNotional, parseSide } from '../../core/input.js';
import { questionWithUnchecked, runPreTradeChecks, uncheckedList } from './pre-trade.js';
import { changeAction, changeArgv } from './trade-actions.js';
import { isRejection, runWrite, writeOptionsFrom } from '../write/write-flow.js';
import { notionalFieldFrom, refusedField, wireHint } from '../../platform/api/wire/unspecified.js';
import type { FlowPorts } from '../../platform/runtime/context.js';

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

/**
 * Sends one add or reduce through the write flow and returns what it did, with the request it sent. A refusal only
 * because the server names the amount otherwise did nothing, so the action is sent once more under the server's name
 * (a new journal entry and key, the refused one noted), and the name learned: the confirmation stands.
 */
export async function runChange(
  ports: FlowPorts,
  action: 'add' | 'reduce',
  opts: ReturnType<typeof parseChangeOptions>,
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
  const argv = changeArgv(action, request);
  const build = () => {
    const built = changeAction(ports, client, action, request, { argv, check, serverDecides: opts.skipChecks });
    return { ...built, question: () => questionWithUnchecked(built.question(), unchecked) };
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
