// The files that hold or steer the key, guarded as ssh guards its keys: a config store others may
// read or change, a CA file others may change, one that is a link, a FIFO or too large, a folder
// another user owns or may change — each refused in one line naming it (and the chmod or chown that
// fixes it), before any request; a FIFO at once, never waited on (those runs are spawned: a read that
// blocks would block the test's own process).
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { userInfo } from 'node:os';
import { join, relative } from 'node:path';
import { storeFile, writeStore } from '../support/config-store.js';
import { ROOT, runHedge, type RunResult } from '../support/hedge-cli.js';
import { useSimulators, type Simulator } from '../support/simulator.js';
import { ok, exits } from '../support/cli-runs.js';
import { STACK_FRAME } from '../support/output/text.js';

const start = useSimulators();

/** A run that must exit `code`: the first line of its stderr. */
const refusal = async (run: Promise<RunResult>, code: number) => exits(await run, code).stderr.split('\n')[0];
/** Options for a run whose CA file is `file`. */
const caFile = (file: string) => ({ env: { HEDGE_CA_FILE: file } });
/** The folder's mode and what it holds. */
const leftAsItWas = (folder: string) => [statSync(folder).mode & 0o777, readdirSync(folder)];

function profileOf(simulator: Simulator) {
  return { current: 'desk', profiles: { desk: { base_url: simulator.baseUrl, api_key: simulator.apiKey } } };
}

it('the config store open to other users: never opened with HEDGE_API_KEY and HEDGE_BASE_URL both set and no profile asked for (a read and a write go on, the file left as it is); else refused before any request, naming the file and the chmod, a rewritten base_url getting nothing; a FIFO refused at once, never waited on', async () => {
  const desk = await start();
  // Where another local user pointed the profile's base_url and journal, in a store anyone may write.
  const listener = await start();
  const file = storeFile(desk.configDir);
  const poisoned = profileOf(listener);
  writeStore(desk.configDir, {
    ...poisoned,
    profiles: { desk: { ...poisoned.profiles.desk, journal_url: 'postgres://nobody@127.0.0.1:9/none' } },
  });
  chmodSync(file, 0o666);
  const text = readFileSync(file, 'utf8');

  ok(await desk.hedge('positions'));
  expect(desk.requests('GET', '/positions')).toHaveLength(1);
  ok(await desk.hedge('open USDTNGN buy 1000 --tenor 3'));
  expect(desk.active('buy').map((hedge) => hedge.notionalUsd)).toEqual([1000]);
  expect([listener.requests(), readFileSync(file, 'utf8'), statSync(file).mode & 0o777]).toEqual([[], text, 0o666]);
  // Asked for by name, it is opened, and refused.
  exits(await desk.hedge('positions', { env: { HEDGE_PROFILE: 'desk' } }), 1, `Cannot read the config store ${file}`);
  const fromStore = { env: { HEDGE_BASE_URL: '', HEDGE_API_KEY: '' } };
  for (const mode of [0o666, 0o644]) {
    chmodSync(file, mode);
    expect(await refusal(desk.hedge('positions', fromStore), 1)).toBe(
      `hedge: Cannot read the config store ${file}: other users can read or change it (mode ${mode.toString(8).padStart(4, '0')}); run \`chmod 600 ${file}\`.`,
    );
  }
  expect(listener.requests()).toEqual([]);
  chmodSync(file, 0o600);
  writeStore(desk.configDir, profileOf(desk));
  const reads = desk.requests('GET', '/positions').length;
  ok(await desk.hedge('positions', fromStore));
  expect(desk.requests('GET', '/positions')).toHaveLength(reads + 1);
  // A FIFO is refused at once, never waited on.
  rmSync(file);
  execFileSync('mkfifo', ['-m', '600', file]);
  exits(
    await runHedge('positions', { configDir: desk.configDir, onSpawn: () => undefined }),
    1,
    `Cannot read the config store ${file}: it is a FIFO (named pipe), not a regular file.`,
  );
});

it('the CA file (HEDGE_CA_FILE, a profile ca_file): one other users may change, larger than the bound, a symbolic link (even to a good CA file), one that holds no certificate (a key, a wrong file: bad input, not an untrusted server) or a FIFO (at once, never waited on) is refused naming it: exit 2 before any request', async () => {
  const tls = await start({ preset: 'plain', tls: true });
  const ca = join(tls.configDir, 'ca.pem');
  copyFileSync(tls.sandbox.caFile!, ca);
  chmodSync(ca, 0o666);
  expect(await refusal(tls.hedge('markets', caFile(ca)), 2)).toBe(
    `hedge: CA file: cannot read ${ca}: other users can change it (mode 0666); run \`chmod go-w ${ca}\`; nothing was sent.`,
  );
  // hedge doctor says so as the write would: "Base URL" fails naming the chmod, exit 2, and no key is said to be accepted.
  const doctor = exits(await tls.hedge('doctor --json', caFile(ca)), 2);
  expect(doctor.stderr).not.toMatch(STACK_FRAME);
  const { checks, ...verdict } = JSON.parse(doctor.stdout);
  const byId = (id: string) => checks.find((check: any) => check.check === id);
  expect([verdict, byId('base_url'), byId('auth')]).toMatchObject([
    { ready: false, exit_code: 2 },
    { status: 'fail', detail: expect.stringContaining(`run \`chmod go-w ${ca}\``) },
    undefined,
  ]);
  const large = join(tls.configDir, 'large.pem');
  writeFileSync(large, '');
  truncateSync(large, 5 * 1024 * 1024);
  exits(
    await tls.hedge('markets', caFile(large)),
    2,
    `CA file: cannot read ${large}: it holds more than 4 MiB; nothing was sent.`,
  );

  chmodSync(ca, 0o644);
  const link = join(tls.configDir, 'ca-link.pem');
  symlinkSync(ca, link);
  expect(await refusal(tls.hedge('markets', caFile(link)), 2)).toBe(
    `hedge: CA file: cannot read ${link}: a symbolic link where a file was expected; nothing was sent.`,
  );
  const notPem = join(tls.configDir, 'server.key');
  writeFileSync(notPem, '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n', { mode: 0o644 });
  const run = exits(await tls.hedge('markets --json', caFile(notPem)), 2);
  expect(JSON.parse(run.stderr).error).toMatchObject({
    class: 'usage',
    message: `CA file: ${notPem} is not a PEM certificate file (no BEGIN CERTIFICATE block); nothing was sent.`,
  });
  const fifo = join(tls.configDir, 'ca.fifo');
  execFileSync('mkfifo', [fifo]);
  exits(
    await tls.hedge('markets', { ...caFile(fifo), onSpawn: () => undefined }),
    2,
    `CA file: cannot read ${fifo}: it is a FIFO (named pipe), not a regular file`,
  );
  expect(tls.requests()).toEqual([]);
  ok(await tls.hedge('markets', caFile(ca)));
});

// Root may change any folder: only a root run shows that hedge still trusts no other user's.
const ROOT_ONLY = process.getuid?.() !== 0;
const NOBODY = 65534;

describe('the folders of the store and the journal (HEDGE_CONFIG_DIR, the state folder)', () => {
  /** The refusal of a folder that user NOBODY owns. */
  const notMine = (folder: string) =>
    `hedge: Cannot use the folder ${folder}: it belongs to another user (uid ${NOBODY}), who may change it; run \`chown ${userInfo().username} ${folder}\`.`;

  it("a relative one is refused before any request (exit 2, one line): the journal in it would move with the working folder, and a re-run from another would not find its own action; this user's own HEDGE_CONFIG_DIR that others may change is refused with the chmod, left as it is (by --demo too, whose state it would hold)", async () => {
    const desk = await start();
    // Longer than any shortened echo, wherever the checkout is: the message gives both paths whole.
    const moved = join(desk.configDir, 'moved-with-the-working-folder');
    const given = relative(ROOT, moved);
    const run = exits(
      await desk.hedge('open USDTNGN buy 1000 --tenor 3 --json', {
        env: { HEDGE_CONFIG_DIR: given },
      }),
      2,
    );
    expect(JSON.parse(run.stderr).error).toMatchObject({
      class: 'usage',
      message: `HEDGE_CONFIG_DIR: "${given}" is not an absolute path; the journal and profiles in it would move with the working folder. Give the whole path, e.g. "${moved}".`,
    });
    expect([desk.requests(), existsSync(moved)]).toEqual([[], false]);

    desk.seedOpen('sell', 2000);
    const open = join(desk.configDir, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    const refused = `hedge: Cannot use the folder ${open}: other users can change it (mode 0777); run \`chmod 700 ${open}\`.`;
    expect(await refusal(desk.hedge('add USDTNGN sell 700', { configDir: open }), 2)).toBe(refused);
    const demo = exits(await runHedge('--demo markets', { configDir: open }), 2);
    expect(demo.stderr.split('\n')).toContain(refused);
    expect([desk.writes(), ...leftAsItWas(open)]).toEqual([[], 0o777, []]);

    chmodSync(open, 0o700);
    ok(await desk.hedge('add USDTNGN sell 700', { configDir: open }));
    expect(desk.sends()).toHaveLength(1);
  });

  it('a file where a folder goes (HEDGE_CONFIG_DIR, or the state folder for the journal): one line naming it, exit 13, before the demo starts or any request; the file left as it was', async () => {
    const desk = await start();
    const file = join(desk.configDir, 'a-file');
    writeFileSync(file, 'not a folder\n');
    const refused = (folder: string, source = '') =>
      `hedge: Cannot use the folder ${folder}${source}: it ${folder === file ? 'is a file' : `lies under a file (${file})`}, not a folder; name a folder (one that is missing is made).`;
    for (const folder of [file, join(file, 'hedge')]) {
      const demo = exits(await runHedge('--demo markets', { env: { HEDGE_CONFIG_DIR: folder } }), 13);
      expect([demo.stderr, demo.stdout]).toEqual([`${refused(folder, ' (HEDGE_CONFIG_DIR)')}\n`, '']);
      const live = exits(await desk.hedge('markets', { env: { HEDGE_CONFIG_DIR: folder } }), 13);
      expect(live.stderr).toBe(`${refused(folder, ' (HEDGE_CONFIG_DIR)')}\n`);
    }
    // The journal's folder under XDG_STATE_HOME, a file: said by the write that would journal there, nothing sent.
    const env = { HEDGE_CONFIG_DIR: undefined, XDG_CONFIG_HOME: join(desk.configDir, 'config'), XDG_STATE_HOME: file };
    expect(await refusal(desk.hedge('open USDTNGN buy 1000 --tenor 3', { env }), 13)).toBe(
      refused(join(file, 'hedge')),
    );
    expect([desk.requests(), readFileSync(file, 'utf8')]).toEqual([[], 'not a folder\n']);
  });

  it.skipIf(ROOT_ONLY)(
    "another user's HEDGE_CONFIG_DIR, open to all: a write run as root is refused before any request (exit 2, the chown), and the folder keeps its owner and mode (needs root)",
    async () => {
      const desk = await start();
      desk.seedOpen('sell', 2000);
      const shared = join(desk.configDir, 'shared');
      mkdirSync(shared);
      chownSync(shared, NOBODY, NOBODY);
      chmodSync(shared, 0o777);
      expect(await refusal(desk.hedge('add USDTNGN sell 700', { configDir: shared }), 2)).toBe(notMine(shared));
      expect([desk.writes(), statSync(shared).uid, ...leftAsItWas(shared)]).toEqual([[], NOBODY, 0o777, []]);
    },
  );

  it.skipIf(ROOT_ONLY)(
    'a journal folder (XDG_STATE_HOME/hedge) another user owns is refused before any request, whatever its mode (needs root)',
    async () => {
      const desk = await start();
      const state = join(desk.configDir, 'state');
      const journalFolder = join(state, 'hedge');
      mkdirSync(journalFolder, { recursive: true, mode: 0o700 });
      chownSync(journalFolder, NOBODY, NOBODY);
      const env = {
        HEDGE_CONFIG_DIR: undefined,
        XDG_CONFIG_HOME: join(desk.configDir, 'config'),
        XDG_STATE_HOME: state,
      };
      expect(await refusal(desk.hedge('open USDTNGN buy 1000 --tenor 3', { env }), 2)).toBe(notMine(journalFolder));
      expect([desk.writes(), statSync(journalFolder).uid, readdirSync(journalFolder)]).toEqual([[], NOBODY, []]);
    },
  );
});
