// The option an unknown one was most likely meant to be: hedge always names the closest (commander
// only when close enough), so a mistyped option is one line that says what to type instead; and the
// habits of other CLIs (gh, Stripe), as data, each with what does it here.
import { shellWord } from '../core/program.js';

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

/** `hedge` and the global options the user typed, then `words`: a command line a usage hint suggests. */
export const suggestedLine = (globals: readonly string[], words: readonly string[]) =>
  ['hedge', ...globals, ...words].join(' ');

/** A command line as typed (`argv`), each word as the shell reads it back. */
const typedLine = (argv: readonly string[]) => suggestedLine([], argv.map(shellWord));

const API_KEY_NEVER_AN_OPTION =
  'the API key is never an option: `hedge login` reads it from standard input or the prompt (hidden)';
const JQ = 'hedge filters JSON with --query (a JMESPath expression), e.g. --query "[].market"';

/** Options other CLIs have (gh's --jq, Stripe's --api-key) and what hedge does instead: said for them, not the closest. */
const OPTION_HABITS: Readonly<Record<string, string>> = {
  '--jq': JQ,
  '-q': JQ,
  '--key': API_KEY_NEVER_AN_OPTION,
  '--api-key': API_KEY_NEVER_AN_OPTION,
};

/** Commands other CLIs have (gh's `auth login`, Stripe's `config`, `version`) or a user may guess (`watch`), and hedge's own, as words typed in their place. */
const COMMAND_HABITS = Object.entries({
  'auth login': 'login',
  'auth logout': 'logout',
  'auth status': 'whoami',
  auth: 'login',
  version: '--version',
  config: 'profile',
  watch: 'positions --watch',
}).map(([typed, instead]) => ({ typed: typed.split(' '), instead: instead.split(' ') }));

/** Commands that take no argument, and the one that takes what was typed after them (`markets USDTNGN`: `price USDTNGN`). */
const COMMAND_FOR_ARGUMENT: Readonly<Record<string, string>> = { markets: 'price' };

/** The one line for an unknown option: what was typed, the closest option (or what hedge has instead), and where every option is listed. */
export function unknownOptionMessage(
  typed: string,
  candidates: readonly string[],
  commandWords: readonly string[],
  globals: readonly string[] = [],
) {
  const nearest = nearestOption(typed, candidates);
  const help = `\`${suggestedLine(globals, [...commandWords, '--help'])}\``;
  const shown = typed.split('=')[0];
  const habit = OPTION_HABITS[shown];
  if (habit) return `unknown option '${shown}': ${habit}; ${help} lists every option.`;
  if (!nearest) return `unknown option '${shown}'; ${help} lists the options.`;
  return nearest.likely
    ? `unknown option '${shown}' (did you mean ${nearest.flag}?); ${help} lists every option.`
    : `unknown option '${shown}'; the closest is ${nearest.flag}, and ${help} lists every option.`;
}

/** An unknown command another CLI has (`auth login`): the line that does it here, the typed line with those words replaced. */
export function commandHabitMessage(argv: readonly string[], operands: readonly string[]) {
  const habit = COMMAND_HABITS.find(({ typed }) => typed.every((word, index) => operands[index] === word));
  if (!habit) return;
  const at = argv.indexOf(habit.typed[0]);
  const meant = [...argv.slice(0, at), ...habit.instead, ...argv.slice(at + habit.typed.length)];
  return `unknown command '${habit.typed.join(' ')}'; hedge's is \`${typedLine(meant)}\`.`;
}

/**
 * More arguments than `command` takes, and the line that was likely meant: a last word that reads as a
 * tenor (`quote USDTNGN buy 10000 3`, no --tenor typed) given as `--tenor`, or the command that takes
 * the argument (COMMAND_FOR_ARGUMENT). Undefined when neither fits.
 */
export function meantForExtraArguments(
  argv: readonly string[],
  command: { name: string; takesTenor: boolean; expected: number },
  operands: readonly string[],
) {
  const extra = operands.slice(command.expected);
  const instead = COMMAND_FOR_ARGUMENT[command.name];
  if (instead && command.expected === 0 && extra.length === 1) {
    const at = argv.indexOf(command.name);
    return typedLine([...argv.slice(0, at), instead, ...argv.slice(at + 1)]);
  }
  const tenorTyped = argv.some((word) => /^(-t|--tenor)(=|$)/.test(word));
  if (!command.takesTenor || tenorTyped || extra.length !== 1 || !/^\d{1,3}d?$/.test(extra[0])) return;
  const at = argv.lastIndexOf(extra[0]);
  return typedLine([...argv.slice(0, at), '--tenor', extra[0], ...argv.slice(at + 1)]);
}
