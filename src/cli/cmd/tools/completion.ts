// Prints the script the build generated into dist/completions/, so it matches the command tree it ships with.
// Read, not generated here: the generator needs the manifest, which loads this command (an import cycle).
import { readFile } from 'node:fs/promises';
import { getAsset, isSea } from 'node:sea';
import { type CommandContext, type In, ConfigError, UsageError } from '../command-input.js';
import { SHELL_VALUES } from '../specs.js';

/** What this command uses of its context. */
export type Options = Pick<CommandContext, 'output'>;

export async function run(ctx: Options, input: In<'COMPLETION'>) {
  const { shell } = input.args;
  if (!(SHELL_VALUES as readonly string[]).includes(shell))
    throw new UsageError(`shell: expected ${SHELL_VALUES.join(', ')} (got "${shell}").`);
  const name = `completions/hedge.${shell}`;
  let text: string;
  try {
    text = isSea() ? getAsset(name, 'utf8') : await readFile(new URL(`./${name}`, import.meta.url), 'utf8');
  } catch {
    throw new ConfigError(`The ${shell} completion script (dist/${name}) is missing from this installation.`, {
      hint: 'Rebuild (npm run build) or reinstall hedge: the build writes the scripts into dist/completions/.',
    });
  }
  ctx.output.write(text);
}
