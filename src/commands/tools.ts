// PLACEHOLDER — replaced by the agent interface work (issue 19).
import type { CommandContext } from '../runtime/context.js';
import type { InputOf } from '../cli/command-spec.js';
import type { TOOLS } from '../cli/manifest.js';

export async function run(_ctx: CommandContext, _input: InputOf<typeof TOOLS>): Promise<number> {
  throw new Error('PLACEHOLDER: hedge tools is not built yet');
}
