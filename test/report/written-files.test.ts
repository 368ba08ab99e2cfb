// Every file hedge writes where a person named it (`report --html`, `exposures --report --html`, `acct designate --html`) goes through the one
// durable write — a temporary file beside it, renamed over it — so a link at that path is replaced, never followed,
// and never into a folder another user may change, where they could plant one. Another user (nobody, so this needs
// root) plants a link to the journal: the journal is left as it was, byte for byte.
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDir } from '../support/hedge-cli.js';
import { exits, ok } from '../support/cli-runs.js';
import { useSimulators } from '../support/simulator.js';
import { asUser, NOT_ROOT } from '../support/another-user.js';

const start = useSimulators({ stepped: true });

/** As user nobody: a symbolic link at `at` to `to`. */
const plantLink = (to: string, at: string) => execFileSync('ln', ['-s', to, at], asUser());

it.skipIf(NOT_ROOT)(
  'a link to the journal planted by another user (nobody) where --html writes: in a folder others may change, refused before anything is read (exit 2, the chmod), the journal untouched; in a folder of ours, the link itself replaced by the report (0600), the journal untouched (needs root)',
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

    // The folder made ours alone, the planted links still in it: each replaced by its page, never followed.
    chmodSync(shared, 0o755);
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
