// Local state that cannot be used, through the real binary: a journal that is a symbolic link, a
// journal this user may not write, a damaged line and a damaged lock record. Each write is refused before anything leaves
// the machine (exit 13, the path named, the server's request log without a write); a damaged line
// is skipped with a warning naming its file and line.
import {
  appendFileSync,
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  lstatSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { keyFingerprint } from '../../src/platform/journal/index.js';
import { useSimulators } from '../support/simulator.js';
import { NOBODY, NOT_ROOT } from '../support/another-user.js';
import { exits, ok } from '../support/cli-runs.js';
import { NESTED_HERE, nestedJson } from '../support/journal-rows.js';

const start = useSimulators({ stepped: true });

it('a journal that cannot be used is exit 13, naming its path; nothing is sent: a journal.jsonl that is a symbolic link is refused, the file it points to untouched; a read-only journal: the path and what to do, not "unexpected"', async () => {
  const t = await start();
  const journal = join(t.configDir, 'journal.jsonl');
  const target = join(t.configDir, 'elsewhere.txt');
  writeFileSync(target, "someone else's file\n");
  chmodSync(target, 0o644);
  symlinkSync(target, journal);

  const open = exits(await t.hedge('open USDTNGN buy 1000 --tenor 3'), 13, `${journal} is a symbolic link`);
  expect(open.stderr).not.toMatch(/unexpected/i);
  expect([t.writes(), readFileSync(target, 'utf8'), lstatSync(target).mode & 0o777]).toEqual([
    [],
    "someone else's file\n",
    0o644,
  ]);
  const listed = exits(await t.hedge('journal --json'), 13);
  expect(JSON.parse(listed.stderr)).toMatchObject({
    error: { code: 'state', class: 'state', details: { path: journal } },
  });

  // The link gone, a journal of its own, then read-only.
  rmSync(journal);
  ok(await t.hedge('open USDTNGN sell 1000 --tenor 3'));
  chmodSync(journal, 0o444);
  // Root may write any file: run the CLI as another user who owns the folder (as a desk user would).
  const asUser = NOT_ROOT ? undefined : NOBODY;
  if (asUser) {
    // The whole folder is the desk user's (its lock files included): only the journal is read-only.
    for (const path of [
      t.configDir,
      ...readdirSync(t.configDir, { recursive: true, encoding: 'utf8' }).map((name) => join(t.configDir, name)),
    ])
      chownSync(path, asUser.uid, asUser.gid);
  }
  // The add's quote (POST /quotes) is a read: what must not leave is the add itself.
  const add = exits(
    await t.hedge('add USDTNGN sell 100', { user: asUser }),
    13,
    `Cannot write the action journal ${journal}: permission denied.`,
    'Nothing was sent.',
    `Make ${journal} writable`,
  );
  expect(add.stderr).not.toMatch(/unexpected|report it/i);
  expect(t.requests('POST', '/hedges/add')).toEqual([]);
});

it('a damaged lock record is said in one line naming its file and taken as held by nobody: `open --ref` takes the lock, opens once, and removes the record; a damaged journal line: a line nested 150,000 deep (300 KB) is skipped with a warning naming it: journal, journal show, journal resolve, resume and a write go on, each saying it once', async () => {
  const t = await start();
  // The record of `open … --ref DEAL-7`'s lock: locks/<hash of ENV|KEYFP|ref|DEAL-7>.json (docs/journal.md).
  const scope = ['test', keyFingerprint(t.apiKey), 'ref', 'DEAL-7'].join('|');
  const record = join(t.configDir, 'locks', `${createHash('sha256').update(scope).digest('hex').slice(0, 24)}.json`);
  mkdirSync(join(t.configDir, 'locks'), { recursive: true, mode: 0o700 });
  writeFileSync(record, '{"scope": "test|', { mode: 0o600 });
  const opened = exits(
    await t.hedge('open USDTNGN buy 1000 --tenor 3 --ref DEAL-7'),
    0,
    `Lock record skipped: ${record} (not valid JSON); taken as held by nobody.`,
  );
  expect([opened.stderr.split(record).length, t.sends('/hedges').length, existsSync(record)]).toEqual([2, 1, false]);

  const journal = join(t.configDir, 'journal.jsonl');
  const begin = JSON.parse(readFileSync(journal, 'utf8').split('\n')[0]);
  // An unresolved add of this account on the side the write below adds to: the row a write looks at first.
  const { seal: _seal, ...fields } = begin;
  const row = {
    ...fields,
    id: 'a_nested000001',
    seq: begin.seq + 100,
    command: 'add',
    outcome: 'pending',
    idempotency_key: 'nested-row',
    request: {
      method: 'POST',
      path: '/hedges/add',
      body: { market: 'USDTNGN', side: 'buy', notional_usd: 100, extra: NESTED_HERE },
    },
  };
  const line = readFileSync(journal, 'utf8').split('\n').length;
  appendFileSync(journal, `${nestedJson(row, 150_000)}\n`);
  const skipped = `Journal line skipped: ${journal}:${line} (nested deeper than 64 levels).`;

  const listed = exits(await t.hedge('journal --json'), 0, skipped);
  expect(JSON.parse(listed.stdout)).toMatchObject([{ command: 'open', outcome: 'filled' }]);
  exits(await t.hedge('journal'), 0, skipped);
  exits(await t.hedge('journal show a_nested000001'), 2, skipped, 'a_nested000001');
  exits(await t.hedge('journal resolve a_nested000001 --landed --yes'), 2, skipped);
  exits(await t.hedge('resume'), 0, skipped);
  const added = exits(await t.hedge('add USDTNGN buy 100'), 0, skipped);
  // Said once by a command, however often it reads the journal.
  expect(added.stderr.split(skipped)).toHaveLength(2);
  expect(added.stderr).not.toMatch(/unexpected|call stack/i);
  expect(t.sends('/hedges/add')).toHaveLength(1);
  expect(t.active('buy').map((hedge) => hedge.notionalUsd)).toEqual([1100]);
});
