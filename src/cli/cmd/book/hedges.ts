// `hedge hedges [ID]`: the list, newest first, with the spec's filters; or one hedge in full
// (every field, tx hashes whole), optionally waiting for it to reach a final state.
import { watchAsked } from '../../../features/book/watch.js';
import { watchCommand } from './watch-outcome.js';
import { HEDGE_FIELDS, HEDGE_RESOURCE } from '../../../platform/fields/resource-fields.js';
import {
  type CommandContext,
  type In,
  firstGiven,
  parseClientReference,
  parseHedgeId,
  parseListLength,
  parseStatus,
  OrderFailedError,
  StillPendingError,
  UsageError,
  safeText,
} from '../command-input.js';
import { moreNote } from '../../../platform/fields/list-notes.js';
import { findHedge } from '../../../features/book/hedge-id.js';
import { shellWord } from '../../../core/program.js';
import { isObject } from '../../../core/objects.js';
import { recordStanding } from '../../../features/book/book.js';
import type { WritePorts } from '../../../features/write/ports.js';

/** What this command uses of its context. */
export type Options = WritePorts & Pick<CommandContext, 'onDispose' | 'output'>;

export async function run(ctx: Options, { args, options }: In<'HEDGES'>) {
  const { output } = ctx;
  if (watchAsked(options)) return watchCommand(ctx, { kind: 'hedge', id: args.id, filters: options }, options);
  const id = args.id === undefined ? undefined : parseHedgeId(args.id);
  const status = parseStatus(options.status);
  const clientReference = parseClientReference(options.ref);
  const { limit, defaulted: defaultLength } = parseListLength(options.limit, options.all);
  const wait = options.wait === true;
  if (id === undefined && wait)
    throw new UsageError('--wait: needs a hedge ID to wait for, e.g. `hedge hedges hdg_… --wait`.');
  const filter = firstGiven(options, 'status ref limit all');
  if (id !== undefined && filter)
    throw new UsageError(`${filter}: filters the list; it cannot be combined with a hedge ID.`);
  const client = await ctx.client();
  if (id === undefined) {
    const list = await client.readHedges({
      status,
      clientReference,
      limit,
      checkCut: !defaultLength,
      lookAhead: defaultLength,
    });
    // The list's filters, kept in the command for the rest of it.
    const filters = [
      ...(status ? ['--status', status] : []),
      ...(clientReference ? ['--ref', shellWord(clientReference)] : []),
    ];
    await output.list(list.items, HEDGE_RESOURCE, {
      empty: filters.length ? 'No hedges match these filters.' : 'No hedges yet.',
      nowMs: client.transport.serverNow().bestMs,
    });
    // Never fewer rows without a word: said on stderr in every format.
    const short = moreNote(list, limit, 'hedges', ctx.hedgeCommand('hedges', ...filters, '--all'), defaultLength);
    if (short) output.warn(short);
    if (list.items.length)
      output.tableNote(output.chalk.dim(`One hedge in full: ${ctx.hedgeCommand('hedges', '<ID>')}`));
    return;
  }
  const startedAt = ctx.clock.now();
  let hedge = await findHedge(client, id);
  if (wait) {
    // Owned by the trading commands: polls GET /hedges/{id} at the spec's cadence, with a spinner
    // on a TTY; a hedge already final is returned at once.
    const { waitForHedgeStatus } = await import('../../../features/write/wait.js');
    try {
      hedge = await waitForHedgeStatus(ctx, hedge.id, {
        label: `Waiting for hedge ${safeText(hedge.id)}`,
        initial: hedge,
        startedAt,
      });
    } catch (error) {
      // Like open: a script still gets the hedge's last known state when the wait runs out.
      if (error instanceof StillPendingError) output.document(error.record ?? hedge);
      throw error;
    }
  }
  output.record(hedge, HEDGE_FIELDS, {
    title: `Hedge ${hedge.id}`,
    nowMs: client.transport.serverNow().bestMs,
    footer: [output.chalk.dim('Hashes are shortened on screen; whole with --format tsv, csv or json.')],
  });
  if (wait && 'failed' in recordStanding(hedge))
    throw new OrderFailedError(
      `Hedge ${hedge.id} failed on-chain: nothing was opened and its margin was released.`,
      hedge.id,
      'Check `hedge markets` and `hedge account`, then open again.',
    );
}

/** One hedge closed or failed can no longer change: `--until` stops at once when its condition is false on it. */
export const FINAL_DATA = (data: unknown) =>
  isObject(data) &&
  typeof data.status === 'string' &&
  recordStanding({ id: String(data.id), status: data.status }).standing === 'ended'
    ? `hedge ${safeText(String(data.id))} is ${data.status}, which is final`
    : undefined;
