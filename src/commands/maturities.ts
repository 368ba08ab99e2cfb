// PLACEHOLDER — replaced by the maturities/roll work (issue 16).
import type { CommandContext } from '../runtime/context.js';
import type { InputOf } from '../cli/command-spec.js';
import type { MATURITIES } from '../cli/manifest.js';

export async function run(_ctx: CommandContext, _input: InputOf<typeof MATURITIES>): Promise<number> {
  throw new Error('PLACEHOLDER: hedge maturities is not built yet');
}
