// Every file hedge writes where a person named it (`report --html`, `exposures --report --html`, `acct designate --html`) goes through the one
// durable write — a temporary file beside it, renamed over it — and only where that is safe: never over a link, a
// device, a FIFO or a socket, nor under /dev, /proc or /sys, nor into a folder another user may change, where they
// could plant one (a sticky one, /tmp, excepted for a file of this user's). Another user (nobody, so this needs root)
// plants a link to the journal: the journal is left as it was, byte for byte.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ROOT, runHedge, tempDir } from '../support/hedge-cli.js';
import { exits, ok } from '../support/cli-runs.js';
import { useSimulators } from '../support/simulator.js';
import { asUser, NOBODY, NOT_ROOT } from '../support/another-user.js';
import { writeFileDurably } from '../../src/core/files/durable-write.js';

const start = useSimulators({ stepped: true });

/** As user nobody: a symbolic link at `at` to `to`. */
const plantLink = (to: string, at: string) => execFileSync('ln', ['-s', to, at], asUser());

it.skipIf(NOT_ROOT)(
  'a link to the journal planted by another user (nobody) where --html writes: in a folder others may change, refused before anything is read (exit 2, the chmod), the journal untouched; in a folder of ours, the link refused too (never followed, never replaced); once removed, each page is written (0600), the journal untouched (needs root)',
  async () => {
    const simulator = await start();
    ok(await simulator.hedge('open USDTNGN buy 1000 --tenor 3'));
    const journal = join(simulator.configDir, 'journal.jsonl');
    const before = readFileSync(journal);

    const books = tempDir('hedge-reports-');
    onTestFinished(() => books.remove());
    chmodSync(books.path, 0o711);
    const shared = join(books.path, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    const report = join(shared, 'report.html');
    plantLink(journal, report);

    const reads = simulator.requests('GET').length;
    const refused = (at: string) =>
      `hedge: --html: cannot write ${at}: other users can change its folder ${shared} (mode 0777); run \`chmod go-w ${shared}\`; nothing was written.\n`;
    expect(exits(await simulator.hedge(`report --html ${report}`), 2).stderr).toBe(refused(report));
    const exposures = join(books.path, 'exposures.csv');
    writeFileSync(exposures, 'id,market,type,amount,currency,due\nr1,USDTNGN,receivable,1000000,NGN,2026-12-31\n');
    const page = join(shared, 'exposures.html');
    plantLink(journal, page);
    expect(exits(await simulator.hedge(`exposures ${exposures} --report --html ${page}`), 2).stderr).toBe(
      refused(page),
    );
    const memo = join(shared, 'memo.html');
    plantLink(journal, memo);
    const designate = `acct designate ${join(ROOT, 'docs', 'examples', 'relationship.json')} --recorded-late moved`;
    expect(exits(await simulator.hedge(`${designate} --html ${memo}`), 2).stderr).toBe(refused(memo));
    expect([simulator.requests('GET').length, readFileSync(journal), readlinkSync(report)]).toEqual([
      reads,
      before,
      journal,
    ]);

    // The folder made ours alone, the planted links still in it: each refused as a link (never followed, never
    // replaced); once removed, each page is written.
    chmodSync(shared, 0o755);
    const aLink = (at: string) =>
      `hedge: --html: cannot write ${at}: it is a symbolic link, not a regular file; expected the path of a regular file, or of none yet; nothing was written.\n`;
    expect(exits(await simulator.hedge(`report --html ${report}`), 2).stderr).toBe(aLink(report));
    expect(exits(await simulator.hedge(`exposures ${exposures} --report --html ${page}`), 2).stderr).toBe(aLink(page));
    expect(exits(await simulator.hedge(`${designate} --html ${memo}`), 2).stderr).toBe(aLink(memo));
    expect([readFileSync(journal), readlinkSync(report), readlinkSync(page), readlinkSync(memo)]).toEqual([
      before,
      journal,
      journal,
      journal,
    ]);
    for (const link of [report, page, memo]) rmSync(link);
    ok(await simulator.hedge(`report --html ${report}`));
    ok(await simulator.hedge(`exposures ${exposures} --report --html ${page}`));
    // Refused above before anything was recorded: the same designation is recorded now, not "already designated".
    ok(await simulator.hedge(`${designate} --html ${memo}`));
    expect(readFileSync(journal)).toEqual(before);
    for (const written of [report, page, memo]) {
      const stats = lstatSync(written);
      expect([stats.isFile(), stats.mode & 0o777, readFileSync(written, 'utf8').slice(0, 15)]).toEqual([
        true,
        0o600,
        '<!doctype html>',
      ]);
    }
    // Nothing is left beside them: no temporary file, no spill of the report's rows.
    expect(execFileSync('ls', ['-A', shared], { encoding: 'utf8' }).split('\n').filter(Boolean).sort()).toEqual([
      'exposures.html',
      'memo.html',
      'report.html',
    ]);
  },
);

describe('where a page is never written: refused before anything is read or recorded, exit 2, one line naming --html', () => {
  const refusal = (at: string, why: string) => `hedge: --html: cannot write ${at}: ${why}; nothing was written.\n`;
  const UNDER = (area: string) =>
    `it is under ${area}, where hedge writes no file; expected a path outside /dev, /proc and /sys`;
  const NOT_REGULAR = (what: string) =>
    `it is ${what}, not a regular file; expected the path of a regular file, or of none yet`;

  it('under /dev or /proc, a FIFO, a socket: refused, each left as it was, no designation recorded', async () => {
    const simulator = await start();
    const designate = `acct designate ${join(ROOT, 'docs', 'examples', 'relationship.json')} --recorded-late moved`;
    // A name of its own in /dev (removed, should a build write it): /dev/stdout and /dev/null are met below as another
    // user, whom a build that wrote them could not harm.
    const inDev = join('/dev', `hedge-page-${process.pid}.html`);
    onTestFinished(() => rmSync(inDev, { force: true }));
    expect(exits(await simulator.hedge(`report --html ${inDev}`), 2).stderr).toBe(refusal(inDev, UNDER('/dev')));
    expect(exits(await simulator.hedge(`${designate} --html /proc/self/fd/1`), 2).stderr).toBe(
      refusal('/proc/self/fd/1', UNDER('/proc')),
    );
    expect(existsSync(inDev)).toBe(false);

    const books = tempDir('hedge-reports-');
    onTestFinished(() => books.remove());
    const fifo = join(books.path, 'page.fifo');
    execFileSync('mkfifo', [fifo]);
    expect(exits(await simulator.hedge(`report --html ${fifo}`), 2).stderr).toBe(
      refusal(fifo, NOT_REGULAR('a FIFO (named pipe)')),
    );
    const socket = join(books.path, 'page.sock');
    const server = createServer().listen(socket);
    onTestFinished(() => void server.close());
    await once(server, 'listening');
    expect(exits(await simulator.hedge(`${designate} --html ${socket}`), 2).stderr).toBe(
      refusal(socket, NOT_REGULAR('a socket')),
    );
    expect([lstatSync(fifo).isFIFO(), lstatSync(socket).isSocket()]).toEqual([true, true]);
    // Nothing was recorded: the designation is made now, not "already designated".
    ok(await simulator.hedge(designate));
  });

  it('/dev/stdout and /dev/null, as a user other than root (nobody, when the suite runs as root): refused as anywhere under /dev, never an unexpected failure; the link and the device left as they were', async () => {
    const books = tempDir('hedge-reports-');
    onTestFinished(() => books.remove());
    chmodSync(books.path, 0o755);
    // Their own config folder; hedge itself is run from a copy they can read (runHedge).
    const home = join(books.path, 'home');
    mkdirSync(home, { mode: 0o700 });
    const user = NOT_ROOT ? undefined : NOBODY;
    if (user) chownSync(home, user.uid, user.gid);
    const designate = ['acct', 'designate', join(ROOT, 'docs', 'examples', 'relationship.json')];
    const run = (args: string[]) => runHedge(args, { configDir: home, user });
    expect(exits(await run(['--demo', 'report', '--html', '/dev/stdout']), 2).stderr).toBe(
      refusal('/dev/stdout', UNDER('/dev')),
    );
    expect(exits(await run([...designate, '--recorded-late', 'moved', '--html', '/dev/null']), 2).stderr).toBe(
      refusal('/dev/null', UNDER('/dev')),
    );
    expect([lstatSync('/dev/stdout').isSymbolicLink(), lstatSync('/dev/null').isCharacterDevice()]).toEqual([
      true,
      true,
    ]);
    if (!user) return;
    // A folder they may not write: said as such before anything is read.
    const rootOnly = join(books.path, 'r.html');
    expect(exits(await run(['--demo', 'report', '--html', rootOnly]), 2).stderr).toBe(
      refusal(rootOnly, 'permission denied'),
    );
  });

  it('a sticky folder open to all (/tmp): a page of yours is written there, and written again over your own', async () => {
    const simulator = await start();
    const books = tempDir('hedge-reports-');
    onTestFinished(() => books.remove());
    const sticky = join(books.path, 'tmp');
    mkdirSync(sticky);
    chmodSync(sticky, 0o1777);
    const page = join(sticky, 'r.html');
    ok(await simulator.hedge(`report --html ${page}`));
    ok(await simulator.hedge(`report --html ${page}`));
    const stats = lstatSync(page);
    expect([stats.isFile(), stats.uid, stats.mode & 0o777]).toEqual([true, process.getuid?.(), 0o600]);
    expect(execFileSync('ls', ['-A', sticky], { encoding: 'utf8' })).toBe('r.html\n');
  });

  it.skipIf(NOT_ROOT)(
    'in a sticky folder, a file another user (nobody) owns is refused, and left as it was (needs root)',
    async () => {
      const simulator = await start();
      const books = tempDir('hedge-reports-');
      onTestFinished(() => books.remove());
      chmodSync(books.path, 0o755);
      const sticky = join(books.path, 'tmp');
      mkdirSync(sticky);
      chmodSync(sticky, 0o1777);
      const theirs = join(sticky, 'r.html');
      execFileSync('touch', [theirs], asUser());
      expect(exits(await simulator.hedge(`report --html ${theirs}`), 2).stderr).toBe(
        refusal(
          theirs,
          `its folder ${sticky} is open to all (sticky) and what is there belongs to another user (uid ${NOBODY.uid}); use a file of yours`,
        ),
      );
      expect([lstatSync(theirs).uid, lstatSync(theirs).size]).toEqual([NOBODY.uid, 0]);
    },
  );
});

it('the durable write itself, for any file of hedge: a link, a FIFO or a socket at the path is refused and left as it was; a regular file is replaced (0600)', async () => {
  const books = tempDir('hedge-durable-');
  onTestFinished(() => books.remove());
  const elsewhere = join(books.path, 'elsewhere');
  writeFileSync(elsewhere, 'kept\n');
  const link = join(books.path, 'link');
  symlinkSync(elsewhere, link);
  const fifo = join(books.path, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const socket = join(books.path, 'socket');
  const server = createServer().listen(socket);
  onTestFinished(() => void server.close());
  await once(server, 'listening');
  for (const [at, what] of [
    [link, 'a symbolic link'],
    [fifo, 'a FIFO (named pipe)'],
    [socket, 'a socket'],
  ])
    expect(() => writeFileDurably(at, 'new\n')).toThrow(
      `cannot write ${at}: it is ${what}, not a regular file; expected the path of a regular file, or of none yet`,
    );
  expect([readlinkSync(link), readFileSync(elsewhere, 'utf8'), lstatSync(fifo).isFIFO()]).toEqual([
    elsewhere,
    'kept\n',
    true,
  ]);
  writeFileDurably(elsewhere, 'new\n');
  expect([readFileSync(elsewhere, 'utf8'), lstatSync(elsewhere).mode & 0o777]).toEqual(['new\n', 0o600]);
  expect(execFileSync('ls', ['-A', books.path], { encoding: 'utf8' }).split('\n').filter(Boolean).sort()).toEqual([
    'elsewhere',
    'fifo',
    'link',
    'socket',
  ]);
});

it('a page that cannot be written once judged fit (its temporary name taken): one line naming --html, exit 1, never an unexpected failure; nothing written', async () => {
  const simulator = await start();
  const books = tempDir('hedge-reports-');
  onTestFinished(() => books.remove());
  const exposures = join(books.path, 'exposures.csv');
  writeFileSync(exposures, 'id,market,type,amount,currency,due\nr1,USDTNGN,receivable,1000000,NGN,2026-12-31\n');
  const page = join(books.path, 'cover.html');
  // The durable write's temporary name for this process (an in-process run is the test's own): a folder there.
  mkdirSync(join(books.path, `.cover.html.${process.pid}.tmp`));
  const run = exits(await simulator.hedge(`exposures ${exposures} --report --html ${page}`), 1);
  expect(run.stderr).toBe(
    `hedge: --html: cannot write ${page}: something is in the way of its temporary file; nothing was written.\n`,
  );
  expect(existsSync(page)).toBe(false);
});
