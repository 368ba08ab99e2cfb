// The one rule for a Prometheus label's value (`hedge keep --metrics`): it is a word of hedge's own fixed set, or it is `other`.

const OTHER_LABEL = 'other';

export function boundedLabel(value: string, known: ReadonlySet<string> | ((value: string) => boolean)) {
  return (typeof known === 'function' ? known(value) : known.has(value)) ? value : OTHER_LABEL;
}
