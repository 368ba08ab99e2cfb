// docs/command-reference.md from the command specs, as scripts/man-page.mjs renders the manual page from the same
// input (dist/reference.js's manPageInput()): every command, argument, option and example.

const cell = (text) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function usageOf(path, spec) {
  const args = (spec.args ?? []).map((arg) => (arg.required ? `<${arg.name}>` : `[${arg.name}]`));
  return ['hedge', ...path, ...args, ...(spec.options?.length ? ['[options]'] : [])].join(' ');
}

function commandSection(path, spec) {
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

/** Every leaf command below `specs`, each with its path of names. */
const leaves = (specs, parents = []) =>
  specs.flatMap((spec) =>
    spec.subcommands ? leaves(spec.subcommands, [...parents, spec.name]) : [{ spec, path: [...parents, spec.name] }],
  );

/** The page, by the groups of `hedge --help`, then the global options. */
export function commandReference({ commands, globalOptions, groups }) {
  const sections = groups.flatMap(({ id, heading }) => [
    `## ${heading}`,
    '',
    ...leaves(commands.filter((spec) => spec.group === id)).flatMap(({ spec, path }) => commandSection(path, spec)),
    '',
  ]);
  return `# Command reference

<!-- Generated from the command specs by \`node scripts/command-reference.mjs\` (after \`npm run build\`); do not edit. -->

Every command with its arguments, options and examples, as \`hedge COMMAND --help\` and the manual page
give them; [commands.md](commands.md) explains them in depth. Commands are written \`hedge …\` as
installed; in a checkout, \`./bin/hedge.js …\`.

${sections.join('\n')}
## Global options

Every command takes these.

| option | meaning |
|---|---|
${globalOptions.map((option) => `| \`${option.flags}\` | ${cell(option.description)} |\n`).join('')}
The exit codes are in [exit-codes.md](exit-codes.md).
`;
}
