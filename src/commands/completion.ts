// hedge completion bash|zsh|fish — prints the completion script generated from the command specs
// (src/cli/completion-scripts.ts), so the script always matches the command tree it runs with.
// The build writes the same text to dist/completions/.
import type { CommandContext } from '../runtime/context.js';
import { UsageError } from '../errors.js';
import type { InputOf } from '../cli/command-spec.js';
import { completionScript } from '../cli/completion-scripts.js';
import { SHELL_VALUES, type COMPLETION } from './completion.spec.js';

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
  ctx.output.write(completionScript(shell));
}
