// What `hedge acct test`, `reserve` and `journal` share: the relationships asked for, each computed up to a date,
// from the rates and the desk's hedges or from a values file.
import type { CommandContext } from '../command-input.js';
import { UsageError } from '../command-input.js';
import { readInputFile, type InputPorts } from '../../../features/write/input-file.js';
import { parseValuesFile } from '../../../features/acct/acct-files.js';
import {
  compute,
  fromValues,
  functionalCurrency,
  recorded,
  todayOf,
  type Computed,
} from '../../../features/acct/acct.js';
import { readRecords } from '../../../features/acct/acct-store.js';

/** What this command uses of its context. */
export type Options = InputPorts & Pick<CommandContext, 'client' | 'env'>;

export async function computeAll(
  ctx: Options,
  id: string | undefined,
  until: string | undefined,
  valuesFile: string | undefined,
): Promise<Computed[]> {
  const state = recorded(readRecords(ctx));
  if (valuesFile !== undefined && id === undefined)
    throw new UsageError('--values: give the relationship ID the values are of.');
  const chosen = id === undefined ? [...state.relationships.values()] : [state.relationships.get(id)];
  if (chosen[0] === undefined)
    throw new UsageError(
      `id: ${id === undefined ? 'no relationship is designated yet' : `no relationship ${id} is designated`}; record one with hedge acct designate FILE.`,
    );
  const end = until ?? todayOf(ctx.clock.now());
  const computed: Computed[] = [];
  for (const designation of chosen) {
    if (valuesFile !== undefined) {
      const { text, sourceName } = await readInputFile(ctx, valuesFile, 'values file');
      const read = parseValuesFile(text, sourceName);
      if ('problems' in read)
        throw new UsageError(`${sourceName}: ${read.problems.map((p) => `line ${p.line}: ${p.message}`).join('\n')}`);
      const lines = read.values.filter((line) => line.date <= end);
      const quoted = state.rates.get(designation!.relationship.market)?.quote;
      computed.push({
        designation: designation!,
        results: fromValues(designation!, lines),
        rates: new Map(),
        hedgeIds: [],
        currency: quoted ? functionalCurrency(designation!.relationship, quoted) : 'functional',
      });
    } else {
      computed.push(await compute(ctx, designation!, state.rates, until, until === undefined ? 'today' : '--as-of'));
    }
  }
  return computed;
}

/** One row a relationship and period, in the issue's names first. */
export function periodRows(computed: readonly Computed[], keep: (end: string) => boolean = () => true) {
  return computed.flatMap(({ designation, results, rates, currency, criticalTerms }) =>
    results
      .filter((result) => keep(result.period_end))
      .map((result) => ({
        relationship_id: designation.relationship.id,
        ...result,
        currency,
        rate: rates.has(result.period_end) ? rateText(rates.get(result.period_end)!.spot) : null,
        rate_source: rates.get(result.period_end)?.source ?? null,
        ...(criticalTerms && { critical_terms: criticalTerms }),
      })),
  );
}

/** An exact rate as the decimal it was given as. */
export function rateText([numerator, denominator]: readonly [bigint, bigint]) {
  const places = denominator.toString().length - 1;
  const digits = (numerator < 0n ? -numerator : numerator).toString().padStart(places + 1, '0');
  const text = places ? `${digits.slice(0, -places)}.${digits.slice(-places)}` : digits;
  return numerator < 0n ? `-${text}` : text;
}
