// The overview, the grouped `hedge --help` and the end of each command's help, wrapped with
// commander's own wrapping so that the front loads nothing more.
import { Help } from 'commander';
import { COMMAND_GROUPS, flagNames, type CommandSpec } from './runner/command-spec.js';
import { COMMANDS, GLOBAL_OPTIONS } from './manifest.js';
import { hedgeCommandLine } from '../core/program.js';

const INDENT = '  ';

/** commander's Help at `width`; its boxWrap leaves text unwrapped below minWidthToWrap, ours decides that itself. */
const wrapper = (width: number) => Object.assign(new Help(), { minWidthToWrap: 1, helpWidth: width });

/** Plain text wrapped at spaces to `width`, every line after the first indented by `hanging`. */
const wrapText = (text: string, width: number, hanging = 0) =>
  wrapper(width)
    .boxWrap(text, Math.max(10, width - hanging))
    .replace(/\n(?=[^\n])/g, `\n${' '.repeat(hanging)}`);

/**
 * A heading, two columns (each term, then its description wrapped beside it: commander's layout), a
 * blank line; when too little room is left beside the widest term, each description goes under it.
 */
function section(heading: string, items: [string, string][], width: number) {
  const termWidth = Math.max(0, ...items.map(([term]) => term.length));
  const help = wrapper(width);
  // Below 24 columns beside a term, its description goes on the lines under it instead.
  const under = width - termWidth - 4 < 24;
  return [
    heading,
    ...items.map(([term, description]) =>
      under
        ? `${INDENT}${term}\n${wrapText(description, width - 6).replace(/^/gm, '      ')}`
        : help.formatItem(term, termWidth, description, help),
    ),
    '',
  ];
}

/**
 * A shell command shown as an example, at most `width` columns: broken only at spaces, with the
 * shell's own continuation (` \`) so that a copied example still runs.
 */
function exampleLines(example: string, width: number) {
  const lines: string[] = [];
  let line = `${INDENT}$ `;
  example.split(' ').forEach((word, index) => {
    // Room for a space, the word and, unless it is the last one, the ` \` that would follow it.
    if (index && line.length + word.length + 3 > width) {
      lines.push(`${line} \\`);
      line = `      ${word}`;
    } else line += index ? ` ${word}` : word;
  });
  lines.push(line);
  return lines;
}

/**
 * Help names the program `hedge` in every usage line and example; run by another name (`./bin/hedge.js`,
 * a long path from cron), this first line says so once, so that no example outgrows the width.
 */
export function invokedNote(program: string) {
  return program === 'hedge' ? undefined : `hedge below is ${program}`;
}

/** What every command's help ends with: its examples, then the global options by name. */
export function commandHelpEnd(spec: CommandSpec, width: number) {
  const examples = spec.examples.flatMap((example) => exampleLines(example, width));
  const names = GLOBAL_OPTIONS.map((option) => flagNames(option).at(-1)).join(' ');
  const inherited = wrapText(`Global options (hedge --help says what each does): ${names}`, width, 2);
  return `\nExamples:\n${examples.join('\n')}\n\n${inherited}\n`;
}

/** `hedge` alone: what it is, the first commands to run (named as run when they fit the width, else as help names them), and where help is. At most 24 lines. */
export function overview(width: number, program: string) {
  const named = startScreen(width, program);
  const note = invokedNote(program);
  return note === undefined || named.split('\n').every((line) => line.length <= width)
    ? named
    : `${note}\n${startScreen(width, 'hedge')}`;
}

/** The start screen's sections: a heading, then each line's words after `hedge` and, after two spaces, what it does. */
const START = `Try it with no account (a local simulator with test funds):
--demo markets  what can be hedged now
--demo quote USDTNGN buy 10000 --tenor 3  price a hedge; sends nothing
--demo open  a wizard that opens a hedge
--demo positions  your book: entry, mark, P&L
--demo close USDTNGN buy  close the buy side

With your own key:
login --profile desk  save the base URL and key (asked hidden)
whoami  check the key works

Help:
--help  every command, grouped
COMMAND --help  one command: arguments, options, examples
help exit-codes  what each exit code means`;

function startScreen(width: number, program: string) {
  const intro = wrapText(
    `hedge is a command-line desk for the Hedging Partner API: quote, open, watch and close FX hedges on frontier-market currencies, from a terminal, a script (--json) or an AI agent (${hedgeCommandLine({ program }, ['mcp'])}).`,
    width,
  );
  const sections = START.split('\n\n').flatMap((block) => {
    const [heading, ...lines] = block.split('\n');
    const items = lines.map((line) => line.split('  ') as [string, string]);
    return section(
      heading,
      items.map(([words, text]) => [hedgeCommandLine({ program }, [words]), text]),
      width,
    );
  });
  return [intro, '', ...sections].join('\n');
}

/**
 * `hedge --help`: the commands by group, one line each, then the options every command takes. Not
 * commander's `.helpGroup()`: its help puts options before commands, in one term column for all.
 */
export function rootHelp(width: number) {
  const nameWidth = Math.max(...COMMANDS.map((spec) => spec.name.length));
  return [
    // The first section follows the description at once: the list, the options and the banner of a run by path fit 60 lines.
    'Usage: hedge <command> [arguments] [options]',
    wrapText('Quote, open and manage FX hedges through the Hedging Partner API.', width),
    // In the groups' order (test/cli/help-text.test.ts holds every command to a group).
    ...COMMAND_GROUPS.flatMap(({ id, heading }) =>
      section(
        `${heading}:`,
        COMMANDS.filter((spec) => spec.group === id).map((spec) => [spec.name.padEnd(nameWidth), spec.summary]),
        width,
      ),
    ),
    ...section(
      'Options for every command:',
      GLOBAL_OPTIONS.map((option) => [option.flags, option.description]),
      width,
    ),
    wrapText('Learn more: hedge COMMAND --help · hedge help exit-codes · man hedge', width),
    '',
  ].join('\n');
}
