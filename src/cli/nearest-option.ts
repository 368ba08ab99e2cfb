// The option an unknown one was most likely meant to be: hedge always names the closest (commander
// only when close enough), so a mistyped option is one line that says what to type instead.

/**
 * Optimal string alignment distance (Damerau–Levenshtein without repeated edits of a substring):
 * a swap of two neighbours (`--tneor`) counts as one edit, as a person mistypes.
 */
export function editDistance(a: string, b: string) {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2][j - 2] + 1);
      rows[i][j] = best;
    }
  return rows[a.length][b.length];
}

/** How close is close enough to ask "did you mean": commander's own bar (more than 40% alike). */
const SIMILAR = 0.4;

/**
 * The candidate closest to `typed` (`--tenr` → `--tenor`); ties go to the first given, so the
 * command's own options (listed first) win over the global ones. `--name=value` is compared by its
 * name. `likely`: close enough to be a typo of it (`--tenr`), rather than merely the least far
 * (`--bogus`). Undefined when there is no candidate.
 */
export function nearestOption(typed: string, candidates: readonly string[]) {
  const name = typed.replace(/^-+/, '').split('=')[0];
  let best: { flag: string; distance: number; likely: boolean } | undefined;
  for (const flag of new Set(candidates)) {
    const other = flag.replace(/^-+/, '');
    const distance = editDistance(name, other);
    const length = Math.max(name.length, other.length);
    if (!best || distance < best.distance)
      best = { flag, distance, likely: length > 0 && (length - distance) / length > SIMILAR };
  }
  return best && { flag: best.flag, likely: best.likely };
}

/** The one line for an unknown option: what was typed, the closest option, and where every option is listed. */
export function unknownOptionMessage(typed: string, candidates: readonly string[], commandWords: readonly string[]) {
  const nearest = nearestOption(typed, candidates);
  const help = `\`${['hedge', ...commandWords, '--help'].join(' ')}\``;
  const shown = typed.split('=')[0];
  if (!nearest) return `unknown option '${shown}'; ${help} lists the options.`;
  return nearest.likely
    ? `unknown option '${shown}' (did you mean ${nearest.flag}?); ${help} lists every option.`
    : `unknown option '${shown}'; the closest is ${nearest.flag}, and ${help} lists every option.`;
}
