// hedge demo reset — the --demo simulator starts afresh: its state file (test funds only) is
// removed, so the next `hedge --demo …` opens a new account with a new seed balance.
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DEMO_STATE_FILE } from '../../../platform/runtime/start-demo.js';
import type { CommandContext } from '../command-input.js';
import { configDir } from '../../../platform/config/credentials.js';

/** What this command uses of its context. */
export type Options = Pick<CommandContext, 'env' | 'output'>;

export async function run(ctx: Options) {
  const file = join(configDir(ctx.env), DEMO_STATE_FILE);
  const existed = existsSync(file);
  await rm(file, { force: true });
  ctx.output.document({ reset: true, state_file: file, removed: existed });
  ctx.output.done(
    existed
      ? `The demo starts afresh: ${file} removed (test funds only).`
      : `The demo starts afresh: it had no state yet (${file}).`,
  );
}
