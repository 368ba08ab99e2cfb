// `hedge maturities [--within 3d]`: what settles when. Reads the positions list (what is open, with
// mark, P&L and carry; tolerant of its field names) and the filled hedges (each one's maturity),
// then shows them soonest first, grouped by UTC day; `--json` is the flat list (each item carries
// its `day`).
import type { InputOf } from '../cli/command-spec.js';
import type { MATURITIES } from './maturities.spec.js';
import { parseClientReference } from '../domain/input.js';
import { collectMaturities, groupByDay, parseWithin } from '../domain/maturities.js';
import { readBook } from '../flows/positions.js';
import type { CommandContext } from '../runtime/context.js';
import { renderMaturities } from '../ui/maturities-view.js';

export interface MaturitiesOptions {
  /** --within in milliseconds; undefined: every open hedge. */
  withinMs?: number;
  /** --within as typed, for the "nothing within" sentence. */
  within?: string;
  /** --ref: only the hedges that carry this reference. */
  ref?: string;
}

export function parseMaturitiesOptions(input: InputOf<typeof MATURITIES>): MaturitiesOptions {
  const raw = input.options.within;
  return { withinMs: parseWithin(raw), within: raw?.trim(), ref: parseClientReference(input.options.ref) };
}

export async function runMaturities(ctx: CommandContext, opts: MaturitiesOptions): Promise<number> {
  const client = await ctx.client();
  // The status filter is a spec'd query; a server that ignores it is filtered again in the domain.
  const [book, hedges] = await Promise.all([readBook({ client, log: (line) => ctx.log(line) }), client.listHedges({ status: 'filled' })]);
  const nowMs = ctx.clock.now();
  const collected = collectMaturities(book, hedges, nowMs, opts.withinMs);
  const maturities = opts.ref === undefined ? collected.maturities : collected.maturities.filter((item) => item.client_reference === opts.ref);
  const empty =
    book.length === 0
      ? 'No open hedges: nothing to settle.'
      : opts.ref !== undefined
        ? `No open hedge carries the reference ${opts.ref}${opts.within === undefined ? '' : ` and matures within ${opts.within}`}.`
        : `Nothing matures within ${opts.within}.`;
  await renderMaturities(ctx.output, groupByDay(maturities), { empty, undated: collected.undated });
  return 0;
}

export function run(ctx: CommandContext, input: InputOf<typeof MATURITIES>): Promise<number> {
  return runMaturities(ctx, parseMaturitiesOptions(input));
}
