// What the build generates from the specs (scripts/build.mjs bundles this as dist/reference.js):
// the manual page's input, the completion scripts and docs/command-reference.md. Not loaded by
// hedge when it runs.
import { COMMAND_GROUPS, commandPaths, type CommandSpec } from './runner/command-spec.js';
import { COMMANDS, GLOBAL_OPTIONS } from './manifest.js';
import { groupedCommands } from './help.js';
import { EXIT_CODES } from '../platform/terminal/exit-codes.js';
import { VERSION } from '../core/version.js';

export { completionScript } from './completion-scripts.js';
/** `hedge --help` (at 80 columns, as the front door prints it: bin/hedge.js answers with dist/help.txt). */
export { rootHelp } from './help.js';

/** The input of scripts/man-page.mjs's renderManPage. */
export function manPageInput() {
  return {
    commands: COMMANDS,
    globalOptions: GLOBAL_OPTIONS,
    groups: COMMAND_GROUPS,
    exitCodes: EXIT_CODES,
    version: VERSION,
  };
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function usageOf(path: string[], spec: CommandSpec) {
  const args = (spec.args ?? []).map((arg) => (arg.required ? `<${arg.name}>` : `[${arg.name}]`));
  return ['hedge', ...path, ...args, ...(spec.options?.length ? ['[options]'] : [])].join(' ');
}

function commandSection(path: string[], spec: CommandSpec) {
  // Compact: a list may interrupt the description, a fence the list and a heading either, as CommonMark allows.
  return [
    `### hedge ${path.join(' ')}`,
    `${cell(spec.description ?? spec.summary)}. Usage: \`${usageOf(path, spec)}\``,
    ...(spec.args ?? []).map(
      (arg) => `- \`${arg.name}\` (argument${arg.required ? '' : ', optional'}): ${cell(arg.description)}`,
    ),
    ...(spec.options ?? []).map((option) => `- \`${option.flags}\`: ${cell(option.description)}`),
    ...(spec.examples.length ? ['```sh', ...spec.examples, '```'] : []),
  ];
}

/** docs/command-reference.md: every command, argument, option and example, from the specs (scripts/command-reference.mjs writes it; a test compares). */
export function commandReference() {
  const groups = groupedCommands().flatMap(({ heading, members }) => [
    `## ${heading}`,
    '',
    ...commandPaths(members).flatMap(({ spec, path }) => (spec.subcommands ? [] : commandSection(path, spec))),
    '',
  ]);
  return `# Command reference

<!-- Generated from the command specs by \`node scripts/command-reference.mjs\` (after \`npm run build\`); do not edit. -->

Every command with its arguments, options and examples, as \`hedge COMMAND --help\` and the manual page
give them; [commands.md](commands.md) explains them in depth. Commands are written \`hedge …\` as
installed; in a checkout, \`./bin/hedge.js …\`.

${groups.join('\n')}
## Global options

Every command takes these.

| option | meaning |
|---|---|
${GLOBAL_OPTIONS.map((option) => `| \`${option.flags}\` | ${cell(option.description)} |\n`).join('')}
The exit codes are in [exit-codes.md](exit-codes.md).
`;
}
