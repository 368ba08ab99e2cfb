// The manual page is generated from the command specs and the exit-code table by the build
// (scripts/man-page.mjs), so it names every command, option and exit code there is.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderManPage } from '../../scripts/man-page.mjs';
import { COMMAND_GROUPS, commandPaths } from '../../src/cli/runner/command-spec.js';
import { COMMANDS, GLOBAL_OPTIONS } from '../../src/cli/manifest.js';
import { EXIT_CODES } from '../../src/platform/terminal/exit-codes.js';
import { ROOT } from '../support/hedge-cli.js';

const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
const page = renderManPage({
  commands: COMMANDS,
  globalOptions: GLOBAL_OPTIONS,
  groups: COMMAND_GROUPS,
  exitCodes: EXIT_CODES,
  version: VERSION,
});
const asRoff = (text: string) => text.replace(/-/g, '\\-');

it('hedge.1 is what the build wrote into dist/ (from the same specs)', () => {
  expect(readFileSync(join(ROOT, 'dist', 'hedge.1'), 'utf8')).toBe(page);
});

it('hedge.1 has the sections of a manual page, and the version; every exit code with its name; plain ASCII for groff: other characters by their code point', () => {
  expect(page).toMatch(new RegExp(`^\\.TH HEDGE 1 "" "hedge ${VERSION.replace(/\./g, '\\.')}"`, 'm'));
  for (const section of 'NAME,SYNOPSIS,DESCRIPTION,COMMANDS,OPTIONS,ENVIRONMENT,EXIT STATUS,FILES,SEE ALSO'.split(
    ',',
  )) {
    expect(page).toContain(`\n.SH ${section}\n`);
  }
  for (const { heading } of COMMAND_GROUPS) expect(page).toContain(`\n.SS ${heading}\n`);
  for (const { code, name } of EXIT_CODES) expect(page).toContain(`.TP\n.B ${code}\n${asRoff(name)}: `);
  expect(page).toMatch(/^[\x00-\x7f]*$/);
});

it('hedge.1 describes every command with its arguments, options and examples', () => {
  for (const { path, spec } of commandPaths(COMMANDS).filter(({ spec }) => !spec.subcommands)) {
    expect(page, path.join(' ')).toContain(`\\fBhedge ${asRoff(path.join(' '))}\\fR`);
    for (const arg of spec.args ?? []) expect(page).toContain(`.I ${arg.name}`);
    for (const option of spec.options ?? []) expect(page, option.flags).toContain(`.B ${asRoff(option.flags)}`);
    for (const example of spec.examples) expect(page).toContain(asRoff(example).replace(/…/g, '\\[u2026]'));
  }
  for (const option of GLOBAL_OPTIONS) expect(page, option.flags).toContain(`.B ${asRoff(option.flags)}`);
});
