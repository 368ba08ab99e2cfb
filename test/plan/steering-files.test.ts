// Files that steer trades (a target, an exposures schedule, a policy, `hedge api --input`) are trusted as the journal
// is: read only when this user (or root) owns them and no other user may change them or their folder; else one line
// naming the file and the chown or chmod that fixes it, exit 2, nothing sent. Another local user's edit of a target
// file anyone may write (needs root, to act as `nobody`) moves no money: asserted on the simulator's request log.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { tempDir } from '../support/hedge-cli.js';
import { exits, okJson } from '../support/cli-runs.js';
import { useSimulators, type Simulator } from '../support/simulator.js';
import { asUser, NOBODY, NOT_ROOT } from '../support/another-user.js';

const start = useSimulators({ stepped: true });
// Root may read any file: only a root run can show that another user's edit is not traded on.

const HEADER = 'market,side,notional_usd,tenor_days';

/** A folder of its own for the test's files (removed after), traversable by other users, changeable by this one only. */
function booksFolder() {
  const folder = tempDir('hedge-books-');
  onTestFinished(() => folder.remove());
  chmodSync(folder.path, 0o711);
  return folder.path;
}

/** The first line of a run's stderr, which must have exited 2; the server got no write. */
async function refused(simulator: Simulator, command: string) {
  const run = exits(await simulator.hedge(command), 2);
  expect(simulator.writes()).toEqual([]);
  return run.stderr.split('\n')[0];
}

it.skipIf(NOT_ROOT)(
  "a target file anyone may write, raised from 1,000 to 250,000 by another user (nobody): apply and the keeper's --converge refuse it with the chmod, exit 2, nothing sent; once fixed it is read (needs root)",
  async () => {
    const simulator = await start();
    simulator.seedOpen('buy', 1000);
    const file = join(booksFolder(), 'target.csv');
    writeFileSync(file, `${HEADER}\nUSDTNGN,buy,1000,3\n`);
    chmodSync(file, 0o666);
    execFileSync('sh', ['-c', `printf '${HEADER}\\nUSDTNGN,buy,250000,3\\n' > ${file}`], asUser());
    const open = `hedge: cannot read the target file ${file}: other users can change it (mode 0666); run \`chmod go-w ${file}\`.`;
    expect(await refused(simulator, `apply ${file} --yes`)).toBe(open);
    expect(await refused(simulator, `keep ${file} --once --converge --yes`)).toBe(open);
    expect(await refused(simulator, `plan ${file}`)).toBe(open);

    // Its owner another user, whatever its mode: refused with the chown.
    chmodSync(file, 0o644);
    chownSync(file, NOBODY.uid, NOBODY.gid);
    expect(await refused(simulator, `apply ${file} --yes`)).toBe(
      `hedge: cannot read the target file ${file}: it belongs to another user (uid ${NOBODY.uid}), who may change it; run \`chown ${userInfo().username} ${file}\`.`,
    );

    // Fixed as said: read, and the plan shows what the file now asks for (nothing sent by a plan).
    chownSync(file, 0, 0);
    const plan = JSON.parse(exits(await simulator.hedge(`plan ${file} --json`), 9).stdout);
    expect(plan.steps).toMatchObject([{ action: 'add', side: 'buy', delta_usd: 249_000 }]);
    expect(simulator.trades()).toEqual([]);
  },
);

it('a steering file in a folder other users may change (another could swap it): refused naming the folder and the chmod, exit 2, nothing sent — a target, an exposures file and its policy, an api --input', async () => {
  const simulator = await start();
  simulator.seedOpen('buy', 1000);
  const open = join(booksFolder(), 'shared');
  mkdirSync(open);
  chmodSync(open, 0o777);
  const target = join(open, 'target.csv');
  writeFileSync(target, `${HEADER}\nUSDTNGN,buy,2000,3\n`);
  const folderOpen = (what: string, file: string) =>
    `hedge: cannot read the ${what} ${file}: other users can change its folder ${open} (mode 0777); run \`chmod go-w ${open}\`.`;
  expect(await refused(simulator, `apply ${target} --yes`)).toBe(folderOpen('target file', target));
  expect(await refused(simulator, `keep ${target} --once --converge`)).toBe(folderOpen('target file', target));

  const rows = 'id,market,type,amount,currency,due\nr1,USDTNGN,receivable,1000000,NGN,2026-12-31\n';
  const exposures = join(open, 'exposures.csv');
  writeFileSync(exposures, rows);
  // The policy of an exposures file of this user's own folder.
  const own = join(booksFolder(), 'exposures.csv');
  writeFileSync(own, rows);
  expect(await refused(simulator, `exposures ${exposures}`)).toBe(folderOpen('exposures file', exposures));
  const policy = join(open, 'policy.json');
  writeFileSync(policy, '{}');
  expect(await refused(simulator, `exposures ${own} --policy ${policy}`)).toBe(folderOpen('policy file', policy));
  const body = join(open, 'body.json');
  writeFileSync(body, JSON.stringify({ market: 'USDTNGN', side: 'buy', notional_usd: 500 }));
  expect(await refused(simulator, `api -X POST /hedges/add --input ${body}`)).toBe(folderOpen('--input file', body));

  chmodSync(open, 0o755);
  expect(columns(okJson(await simulator.hedge(`apply ${target} --json --yes`)))).toEqual([['add', 1000]]);
});

const columns = (rows: Array<{ action: string; delta_usd: number }>) => rows.map((row) => [row.action, row.delta_usd]);

describe('a sticky folder open to all (/tmp, mode 1777): no other user may rename or remove what is not theirs there', () => {
  /** A /tmp of its own: sticky, open to all, in a folder of this user's. */
  const stickyFolder = () => {
    const sticky = join(booksFolder(), 'tmp');
    mkdirSync(sticky);
    chmodSync(sticky, 0o1777);
    return sticky;
  };

  it('a file of yours in it is read: plan, apply, keep --once --converge, --demo plan; the target is traded on once', async () => {
    const simulator = await start();
    simulator.seedOpen('buy', 1000);
    const target = join(stickyFolder(), 't.csv');
    writeFileSync(target, `${HEADER}\nUSDTNGN,buy,2000,3\n`);
    expect(JSON.parse(exits(await simulator.hedge(`plan ${target} --json`), 9).stdout).steps).toMatchObject([
      { action: 'add', delta_usd: 1000 },
    ]);
    expect(columns(okJson(await simulator.hedge(`apply ${target} --json --yes`)))).toEqual([['add', 1000]]);
    exits(await simulator.hedge(`keep ${target} --once --converge --yes`), 0);
    expect(simulator.requests('POST', '/hedges/add')).toHaveLength(1);
    exits(await simulator.hedge(`--demo plan ${target}`), 9);
  });

  it.skipIf(NOT_ROOT)(
    'what another user (nobody) owns in it is refused: their file, whatever its mode, and their link to a file of yours; exit 2, nothing sent (needs root)',
    async () => {
      const simulator = await start();
      const sticky = stickyFolder();
      const theirs = join(sticky, 'theirs.csv');
      execFileSync('sh', ['-c', `printf '${HEADER}\\nUSDTNGN,buy,250000,3\\n' > ${theirs}`], asUser());
      expect(await refused(simulator, `apply ${theirs} --yes`)).toBe(
        `hedge: cannot read the target file ${theirs}: it belongs to another user (uid ${NOBODY.uid}), who may change it; run \`chown ${userInfo().username} ${theirs}\`.`,
      );
      const mine = join(booksFolder(), 'mine.csv');
      writeFileSync(mine, `${HEADER}\nUSDTNGN,buy,2000,3\n`);
      const link = join(sticky, 'link.csv');
      execFileSync('ln', ['-s', mine, link], asUser());
      expect(await refused(simulator, `apply ${link} --yes`)).toBe(
        `hedge: cannot read the target file ${link}: its folder ${sticky} is open to all (sticky) and what is there belongs to another user (uid ${NOBODY.uid}); use a file of yours.`,
      );
      expect(simulator.writes()).toEqual([]);
    },
  );
});
