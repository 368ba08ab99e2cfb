// The one rule for a Prometheus label's value (`hedge keep --metrics`): it is a word of hedge's
// own fixed set, or it is `other`. A label is printed raw into the exposition that dashboards,
// alert managers and people at a terminal read, and every distinct value is a new series kept for
// the process's life; a value the server chose (an error code) could otherwise carry escape
// sequences into a scrape, or grow the series without bound, one new code at a time.

/** What a label value outside its set is counted as. */
const OTHER_LABEL = 'other';

/** The value when `known` accepts it (a set's member, or a grammar's match), else `other`. */
export function boundedLabel(value: string, known: ReadonlySet<string> | ((value: string) => boolean)): string {
  return (typeof known === 'function' ? known(value) : known.has(value)) ? value : OTHER_LABEL;
}
