// An add or reduce refused only because the server names the amount otherwise: the refusal did
// nothing, so the action is sent once more under the server's name (a new journal entry and key, the
// refused one noted), and the name learned. The user's confirmation stands: only the name changed.
import { ApiError } from '../../core/errors.js';
import type { HedgeClient } from '../../platform/api/client.js';
import { notionalFieldFrom, refusedField, wireHint } from '../../platform/api/wire/unspecified.js';
import type { FlowPorts } from '../../platform/runtime/context.js';
import { isRejection, runWrite, type WriteAction, type WriteOptions, type WriteOutcome } from './write-flow.js';

/** Builds the action; `retry` is true for the second send (no checks, no preview: they ran for the first). */
export type ActionBuilder<S, R> = (retry: boolean) => WriteAction<S, R>;

export async function runWriteLearning<S, R>(
  ports: FlowPorts,
  client: HedgeClient,
  build: ActionBuilder<S, R>,
  options: WriteOptions,
): Promise<WriteOutcome<S, R>> {
  const first = build(false);
  try {
    return await runWrite(ports, first, options);
  } catch (error) {
    const planned = first.plan('');
    const field = learnableField(client, error, planned, options);
    if (field === undefined) throw withWireHint(error, planned);
    const refused = error as ApiError;
    const previous = client.wire.changeNotionalField;
    client.learnWire({
      setting: 'changeNotionalField',
      value: field,
      how: 'refused',
      evidence: `${refused.endpoint} refused \`${previous}\` with ${refused.code} naming \`${field}\``,
    });
    const journal = await ports.journal();
    const entry = refused.idempotencyKey
      ? (await journal.list()).find((candidate) => candidate.idempotency_key === refused.idempotencyKey)
      : undefined;
    const retry = build(true);
    const before = retry.before?.bind(retry);
    const note = { retry_of: entry?.id ?? null, learned: { notional_field: field } };
    const second: WriteAction<S, R> = {
      ...retry,
      confirmed: true,
      check: undefined,
      preview: undefined,
      before: async (run) => ({ ...((await before?.(run)) ?? {}), ...note }),
    };
    ports.notify({
      kind: 'sending-again',
      level: 'note',
      text: `Sending the ${first.command} again with \`${field}\` (a new idempotency key; the refused request did nothing).`,
      data: { field },
    });
    const result = await runWrite(ports, second, { ...options, idempotencyKey: undefined, fresh: false });
    if (entry && result.kind !== 'dry-run') {
      await journal
        .update(entry.id, {
          message: `${refused.message} — refused for the field name; sent again as ${result.entry.id} with \`${field}\``,
        })
        .catch(() => undefined);
    }
    return result;
  }
}

/**
 * The server's own name for the amount, when this refusal of this action's own request gives one
 * and a second send is safe: a clear 4xx (nothing happened), not a dry run, not a resume of a
 * given key (that names one request: it is not changed behind the user's back).
 */
function learnableField(
  client: HedgeClient,
  error: unknown,
  planned: { method: string; path: string; body?: unknown },
  options: WriteOptions,
) {
  if (options.dryRun || options.idempotencyKey !== undefined) return undefined;
  if (!isRejection(error) || !(error instanceof ApiError)) return undefined;
  if (error.endpoint !== `${planned.method} ${planned.path}`) return undefined;
  const field = notionalFieldFrom(error, planned.body);
  if (field === undefined || field === client.wire.changeNotionalField) return undefined;
  return field;
}

/**
 * A refusal of an add/reduce body naming a field other than market and side is about the amount's
 * name (the one guess in that body): its hint names the setting and `hedge doctor`.
 */
function withWireHint(error: unknown, planned: { method: string; path: string; body?: unknown }) {
  if (!isRejection(error) || error.endpoint !== `${planned.method} ${planned.path}` || error.status !== 400)
    return error;
  const field = refusedField(error);
  if (field === undefined || field === 'market' || field === 'side') return error;
  return error.withHint(
    `The server refused the add/reduce body at \`${field}\` (the amount's name is not shown in the spec). ${wireHint('changeNotionalField')}`,
  );
}
