// hedge demo reset — the --demo simulator starts afresh: its state file (test funds only) and the demo's accounting
// records are removed, so the next `hedge --demo …` opens a new account with a new seed balance and empty books.
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DEMO_STATE_FILE } from '../../../platform/runtime/start-demo.js';
import type { CommandContext } from '../command-input.js';
import { configDir } from '../../../platform/config/credentials.js';
import { storeFolder } from '../../../features/acct/acct-store.js';

/** What this command uses of its context. */
export type Options = Pick<CommandContext, 'env' | 'output'>;

export async function run(ctx: Options) {
  const file = join(configDir(ctx.env), DEMO_STATE_FILE);
  const existed = existsSync(file);
  await rm(file, { force: true });
  // The demo's books are of the account just removed: a relationship over its hedges could never be valued again.
  const books = storeFolder(ctx.env, 'demo');
  const hadBooks = existsSync(books);
  await rm(books, { recursive: true, force: true });
  ctx.output.document({ reset: true, state_file: file, removed: existed, books, books_removed: hadBooks });
  ctx.output.done(
    `The demo starts afresh: ${existed ? `${file} removed (test funds only)` : `it had no state yet (${file})`}${hadBooks ? `; its accounting records ${books} removed` : ''}.`,
  );
}
