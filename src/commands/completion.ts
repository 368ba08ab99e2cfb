// hedge completion bash|zsh|fish — prints the script kept in completions/ (shipped next to dist/
// in the package), so the installed script always matches the installed command tree.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { CommandContext } from '../runtime/context.js';
import { ConfigError, UsageError } from '../errors.js';
import type { InputOf } from '../cli/command-spec.js';
import { SHELL_VALUES, type COMPLETION } from './completion.spec.js';
import { builtInAsset } from '../runtime/packaged-file.js';

const FILE_FOR_SHELL: Record<(typeof SHELL_VALUES)[number], string> = {
  bash: 'hedge.bash',
  zsh: 'hedge.zsh',
  fish: 'hedge.fish',
};

// The bundle's chunks sit in dist/ (→ ../completions); the source file sits in src/commands/
// (→ ../../completions) when a test imports it directly.
const CANDIDATE_DIRS = ['../completions/', '../../completions/'];

export interface CompletionOptions {
  shell: (typeof SHELL_VALUES)[number];
}

export function parseCompletionOptions(input: InputOf<typeof COMPLETION>): CompletionOptions {
  const shell = input.args.shell ?? '';
  if (!(SHELL_VALUES as readonly string[]).includes(shell)) {
    throw new UsageError(`shell: expected ${SHELL_VALUES.join(', ')} (got "${shell}").`);
  }
  return { shell: shell as CompletionOptions['shell'] };
}

export function run(ctx: CommandContext, input: InputOf<typeof COMPLETION>): Promise<void> {
  return runCompletion(ctx, parseCompletionOptions(input));
}

export async function runCompletion(ctx: CommandContext, { shell }: CompletionOptions): Promise<void> {
  const fileName = FILE_FOR_SHELL[shell];
  // The single executable carries the scripts inside it (scripts/sea.mjs).
  const builtIn = builtInAsset(`completions/${fileName}`);
  if (builtIn !== undefined) {
    ctx.output.write(builtIn);
    return;
  }
  for (const dir of CANDIDATE_DIRS) {
    const path = fileURLToPath(new URL(`${dir}${fileName}`, import.meta.url));
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      continue;
    }
    ctx.output.write(text);
    return;
  }
  throw new ConfigError(`The ${shell} completion script (completions/${fileName}) is missing from this installation.`, {
    hint: 'Reinstall hedge; the package ships the completions/ folder next to dist/.',
  });
}
