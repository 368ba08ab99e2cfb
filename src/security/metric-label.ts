// The one rule for a Prometheus label's value (`hedge keep --metrics`): it is a word of hedge's own fixed set, or it is `other`.

/** What a label value outside its set is counted as. */
const OTHER_LABEL = 'other';

/** The value when `known` accepts it (a set's member, or a grammar's match), else `other`. */
export function boundedLabel(value: string, known: ReadonlySet<string> | ((value: string) => boolean)): string {
  return (typeof known === 'function' ? known(value) : known.has(value)) ? value : OTHER_LABEL;
}
