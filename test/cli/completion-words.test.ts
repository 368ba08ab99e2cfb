// The words shell completion reads (test/cli/completion-shells.test.ts runs them in real shells): what a read keeps,
// within its bounds, written only when it changes, and nothing taken from a file hedge would not trust.
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  COMPLETION_WORDS_FILE,
  accountKey,
  readCompletionWords,
  rememberCompletionWords,
} from '../../src/platform/journal/completion-words.js';
import { tempFolders } from '../support/hedge-cli.js';

const folder = tempFolders('hedge-completion-words-');
/** The saved profile `desk`, and the key of the hedge ids read through it. */
const ACCOUNT = accountKey({ profile: 'desk' });
const DESK = `hedges${ACCOUNT}`;

it('keeps the latest hedge ids first (200 at most) and the markets the markets list named (others add theirs); a word a shell could read as more than one, or as code, is never kept', () => {
  const dir = join(folder(), 'state');
  rememberCompletionWords(dir, { marketsList: ['USDTNGN', 'USDTKES'], markets: [], hedges: ['hdg_a'] }, ACCOUNT);
  const many = Array.from({ length: 250 }, (_, index) => `hdg_${index}`);
  rememberCompletionWords(
    dir,
    { markets: ['USDTGHS', 'USD TNGN', '$(reboot)'], hedges: [...many, 'a b', "x'y"] },
    ACCOUNT,
  );
  const words = readCompletionWords(dir)!;
  expect(words.markets).toEqual(['USDTGHS', 'USDTNGN', 'USDTKES']);
  expect(words[DESK]).toEqual(many.slice(0, 200));
  // A markets list read again replaces the markets.
  rememberCompletionWords(dir, { marketsList: ['USDTNGN'], markets: [], hedges: [] }, ACCOUNT);
  expect(readCompletionWords(dir)!.markets).toEqual(['USDTNGN']);
  // Private, like everything hedge writes.
  expect(statSync(join(dir, COMPLETION_WORDS_FILE)).mode & 0o777).toBe(0o600);
});

it('rewrites the file only when what it keeps changes; a file others may change, too large or of another shape is not read (and is replaced whole by the next read)', () => {
  const dir = folder();
  const file = join(dir, COMPLETION_WORDS_FILE);
  rememberCompletionWords(dir, { marketsList: ['USDTNGN'], markets: [], hedges: ['hdg_1'] }, ACCOUNT);
  // The durable write renames a new file over it: a rewrite would be another inode.
  const inode = statSync(file).ino;
  rememberCompletionWords(dir, { markets: ['USDTNGN'], hedges: ['hdg_1'] }, ACCOUNT);
  expect(statSync(file).ino).toBe(inode);
  rememberCompletionWords(dir, { markets: [], hedges: ['hdg_0'] }, ACCOUNT);
  expect(statSync(file).ino).not.toBe(inode);
  chmodSync(file, 0o666);
  expect(readCompletionWords(dir)).toBeUndefined();
  chmodSync(file, 0o600);
  writeFileSync(file, JSON.stringify({ markets: 'USDTNGN', hedges: [] }));
  expect(readCompletionWords(dir)).toBeUndefined();
  writeFileSync(file, `{"markets": [], "hedges": [${'"hdg_x",'.repeat(10_000)}"hdg_y"]}`);
  expect(readCompletionWords(dir)).toBeUndefined();
  rememberCompletionWords(dir, { markets: [], hedges: ['hdg_2'] }, ACCOUNT);
  expect(readCompletionWords(dir)).toEqual({ markets: [], hedges: [], [DESK]: ['hdg_2'] });
});

it("keeps each account's hedge ids apart: the demo's, each profile's; a run on credentials from the environment keeps none; an older file's mixed list is dropped", () => {
  const dir = folder();
  writeFileSync(join(dir, COMPLETION_WORDS_FILE), JSON.stringify({ markets: [], hedges: ['hdg_mixed'] }));
  rememberCompletionWords(dir, { markets: [], hedges: ['hdg_demo'] }, accountKey({ demo: true }));
  rememberCompletionWords(dir, { markets: [], hedges: ['hdg_desk'] }, ACCOUNT);
  rememberCompletionWords(dir, { markets: [], hedges: ['hdg_old'] }, accountKey({ profile: 'old-desk' }));
  rememberCompletionWords(dir, { markets: ['USDTNGN'], hedges: ['hdg_sandbox'] });
  expect(readCompletionWords(dir)).toEqual({
    markets: ['USDTNGN'],
    hedges: [],
    'hedges@demo': ['hdg_demo'],
    'hedges@profile:desk': ['hdg_desk'],
    'hedges@profile:old-desk': ['hdg_old'],
  });
});

it("keeps each account's relationship ids (hedge acct) apart, as its hedge ids", () => {
  const dir = folder();
  rememberCompletionWords(dir, { markets: [], hedges: [], relationships: ['DEMO-REL'] }, accountKey({ demo: true }));
  rememberCompletionWords(dir, { markets: [], hedges: [], relationships: ['LIVE-REL'] }, ACCOUNT);
  rememberCompletionWords(dir, { markets: [], hedges: [], relationships: ['SANDBOX-REL'] });
  const words = readCompletionWords(dir)!;
  expect([words['relationships@demo'], words[`relationships${ACCOUNT}`], JSON.stringify(words)]).toEqual([
    ['DEMO-REL'],
    ['LIVE-REL'],
    expect.not.stringContaining('SANDBOX-REL'),
  ]);
});
