// hedge keep status — the keeper of this account, from its heartbeat (features/keeper/keeper-service.ts):
// exit 0 while one runs, 15 (keeper-down) when it is dead, hung, stopped or was never started, so a
// monitoring script can page on it.
import { isKeeperUp, readKeeperStatus } from '../../../features/keeper/keeper-service.js';
import { type CommandContext, exitCodeNamed } from '../command-input.js';
import { loadTableDrawer } from '../../../platform/terminal/table.js';
import { renderKeeperStatus } from '../../../features/keeper/keep-view.js';

/** What this command uses of its context. */
export type Options = Pick<
  CommandContext,
  'clock' | 'credentials' | 'env' | 'journal' | 'notify' | 'origin' | 'output'
>;

export async function run(ctx: Options) {
  const { output } = ctx;
  const status = await readKeeperStatus(ctx);
  // A card on a terminal, drawn by cli-table3 (loaded already for a screen); a line per row in a pipe; JSON, which
  // monitors poll, loads none.
  await output.document(status, async () => {
    if (output.isHuman) await loadTableDrawer();
    output.write(renderKeeperStatus(status, { columns: output.columns, chalk: output.chalk, card: output.isHuman }));
  });
  return isKeeperUp(status.state) ? 0 : exitCodeNamed('keeper-down');
}
