// PLACEHOLDER: replaced by the real command (work in progress).
import type { CommandContext } from '../context.js';

export async function run(_ctx: CommandContext): Promise<void> {
  throw new Error('hedge whoami: not built yet');
}
