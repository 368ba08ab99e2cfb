// `hedge maturities`: the positions list and each hedge's record reconciled side by side, so a side holding
// several hedges is a row per hedge.
import { type CommandContext, type In, parseClientReference, sameReference } from '../command-input.js';
import { collectMaturities, parseWithin } from '../../../features/book/maturities.js';
import { readSides } from './positions.js';
import { settlingSentence } from '../../../features/book/positions-view.js';
import { renderMaturities } from '../../../features/book/maturities-view.js';

/** What this command uses of its context. */
export type Options = Pick<CommandContext, 'client' | 'log' | 'output'>;

export async function run(ctx: Options, input: In<'MATURITIES'>) {
  // withinMs undefined: every open hedge; within, as typed, for the "nothing within" sentence.
  const raw = input.options.within;
  const withinMs = parseWithin(raw);
  const within = raw?.trim();
  const ref = parseClientReference(input.options.ref);
  // Each hedge's maturity from its record, for every side as all its views show it: every
  // filled hedge however old (not one default page), a side's hedges however many, a fill the
  // positions list has not caught up with, and not a hedge the history shows ended.
  const { book, sides, nowMs } = await readSides(
    ctx,
    ref,
    (problem) => `Hedges not read: ${problem}; each side is listed from its positions line alone.`,
  );
  const hedges = sides.lines.flatMap((side) => side?.hedges ?? []);
  const unlisted = sides.unlisted.flatMap((side) => side.hedges);
  const collected = collectMaturities(book, hedges, nowMs, withinMs, unlisted);
  const maturities = collected.maturities.filter(
    (item) => ref === undefined || sameReference(item.client_reference, ref),
  );
  for (const side of [...sides.lines, ...sides.unlisted])
    if (
      side?.state === 'settling' &&
      (ref === undefined || maturities.some((item) => item.market === side.market && item.side === side.side))
    )
      ctx.output.warn(settlingSentence(side));
  const empty =
    !book.length && !unlisted.length
      ? 'No open hedges: nothing to settle.'
      : ref !== undefined
        ? `No open hedge carries the reference ${ref}${within === undefined ? '' : ` and matures within ${within}`}.`
        : `Nothing matures within ${within}.`;
  await renderMaturities(ctx.output, maturities, empty, collected.undated, nowMs);
}
