// The keeper folder (XDG_STATE_HOME/hedge/keepers) and its heartbeat files are read as the journal is: only when this
// user's (or root's) and no other user may change them, else one line with the fix, exit 2.
import { chmodSync, chownSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { exits } from '../support/cli-runs.js';
import { tempDir } from '../support/hedge-cli.js';
import { useSimulators } from '../support/simulator.js';

const start = useSimulators();
const root = process.geteuid?.() === 0;

/** `hedge keep status` with HOME in a folder of its own, its keepers folder made as `plant` leaves it. */
async function statusOver(plant: (keepers: string) => void) {
  const simulator = await start();
  const home = tempDir();
  onTestFinished(home.remove);
  const keepers = join(home.path, '.local', 'state', 'hedge', 'keepers');
  mkdirSync(keepers, { recursive: true, mode: 0o700 });
  plant(keepers);
  return { keepers, result: await simulator.hedge(['keep', 'status'], { env: { HOME: home.path } }) };
}

it('a keepers folder other users may change: keep status refuses it with the chmod, exit 2', async () => {
  const { keepers, result } = await statusOver((keepers) => chmodSync(keepers, 0o777));
  expect(exits(result, 2).stderr).toBe(
    `hedge: Cannot use the folder ${keepers}: other users can change it (mode 0777); run \`chmod 700 ${keepers}\`.\n`,
  );
});

it.runIf(root)(
  'as root: a keepers folder another user owns (nobody, 0755) is refused with the chown, exit 2',
  async () => {
    const { keepers, result } = await statusOver((keepers) => {
      chmodSync(keepers, 0o755);
      chownSync(keepers, 65534, 65534);
    });
    expect(exits(result, 2).stderr).toContain(
      `Cannot use the folder ${keepers}: it belongs to another user (uid 65534)`,
    );
  },
);
