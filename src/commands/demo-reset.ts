// hedge demo reset — the --demo simulator starts afresh: its state file (test funds only) is
// removed, so the next `hedge --demo …` opens a new account with a new seed balance.
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { InputOf } from '../runner/command-spec.js';
import type { DEMO_RESET } from './demo-reset.spec.js';
import { DEMO_STATE_FILE } from '../demo/start-demo.js';
import type { CommandContext } from '../runtime/context.js';

/** `hedge demo reset` takes no arguments or options. */
export type DemoResetOptions = Record<string, never>;

export function parseDemoResetOptions(_input: InputOf<typeof DEMO_RESET>): DemoResetOptions {
  return {};
}

export function run(ctx: CommandContext, input: InputOf<typeof DEMO_RESET>): Promise<number> {
  return runDemoReset(ctx, parseDemoResetOptions(input));
}

export async function runDemoReset(ctx: CommandContext, _opts: DemoResetOptions): Promise<number> {
  const file = join(ctx.configDir, DEMO_STATE_FILE);
  const existed = existsSync(file);
  await rm(file, { force: true });
  if (ctx.output.isJson) ctx.output.json({ reset: true, state_file: file, removed: existed });
  else if (existed) ctx.output.success(`The demo starts afresh: ${file} removed (test funds only).`);
  else ctx.output.success(`The demo starts afresh: it had no state yet (${file}).`);
  return 0;
}
