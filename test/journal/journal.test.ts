// The journal store in-process, on a real folder under the temp dir with an injected clock: what
// goes into journal.jsonl, how events fold into entries, listing and lookup (the "same request" rule
// for every backend: conformance.test.ts), the key guard, and reading a file a crash left with a torn line.
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { KEY_ID, openFields, T0 } from './local-journal.js';
import { tempFolders } from '../support/hedge-cli.js';
import {
  canonicalJson,
  isUnresolved,
  journalDir,
  JournalError,
  keyFingerprint,
  openJournal,
  OUTCOMES,
  type SkippedLine,
} from '../../src/platform/journal/index.js';

const tempFolder = tempFolders('hedge-journal-unit-');

/** A journal in `dir` (a folder not made yet, by default) on the test's clock, with the lines it skips. */
function setUp(dir = join(tempFolder(), 'state')) {
  let time = T0;
  const skipped: SkippedLine[] = [];
  const journal = openJournal({ dir, now: () => time, onSkip: (skip) => skipped.push(skip) });
  return {
    dir,
    journal,
    skipped,
    setTime(ms: number) {
      time = ms;
    },
    fileText: () => readFileSync(journal.file, 'utf8'),
  };
}

it('helpers: journalDir is HEDGE_CONFIG_DIR itself, else an absolute $XDG_STATE_HOME/hedge (a relative one is ignored, as the XDG spec asks), else ~/.local/state/hedge; keyFingerprint is the first 12 hex digits of sha256; isUnresolved holds for planned, pending, submitted and unknown only; canonicalJson sorts keys at every depth, keeps array order and writes numbers as JSON does', () => {
  const home = '/home/ada/.local/state/hedge';
  expect(
    [
      { HEDGE_CONFIG_DIR: '/cfg/hedge', XDG_STATE_HOME: '/state', HOME: '/home/ada' },
      { XDG_STATE_HOME: '/state', HOME: '/home/ada' },
      { HOME: '/home/ada' },
      { HEDGE_CONFIG_DIR: '', XDG_STATE_HOME: '', HOME: '/home/ada' },
      { XDG_STATE_HOME: 'state', HOME: '/home/ada' },
    ].map(journalDir),
  ).toEqual(['/cfg/hedge', '/state/hedge', home, home, home]);
  // sha256("abc") = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
  expect(keyFingerprint('abc')).toBe('ba7816bf8f01');
  expect(OUTCOMES.filter((outcome) => isUnresolved({ outcome }))).toEqual([
    'planned',
    'pending',
    'submitted',
    'unknown',
  ]);
  expect(canonicalJson({ side: 'buy', market: 'USDTNGN', nested: { b: 1, a: [3, { z: 1, y: 2 }] } })).toBe(
    '{"market":"USDTNGN","nested":{"a":[3,{"y":2,"z":1}],"b":1},"side":"buy"}',
  );
  expect(canonicalJson({ notional_usd: 1e4 })).toBe(canonicalJson({ notional_usd: 10000 }));
  expect(canonicalJson({ notional_usd: '10000' })).not.toBe(canonicalJson({ notional_usd: 10000 }));
  expect([canonicalJson({ a: undefined, b: null }), canonicalJson(undefined)]).toEqual(['{"b":null}', 'null']);
});

describe('begin and update', () => {
  it('round trip: begin writes one snake_case line and returns the entry get() reads back', async () => {
    const { journal, fileText } = setUp();
    const given = openFields({ group: 'a_parent', leg: 'open', account: 'acct-7' });
    const entry = await journal.begin(given);

    expect(entry.id).toMatch(new RegExp(`^a_${T0.toString(36)}[0-9a-z]{4}$`));
    const at = '2025-01-15T09:30:00.000Z';
    // Held by this process from its creation: the host and the holder are recorded with it.
    const held = {
      ...given,
      host: hostname(),
      holder: expect.objectContaining({
        pid: process.pid,
        host: hostname(),
        since: at,
        session: expect.stringMatching(/^[0-9a-f]{12}$/),
      }),
      outcome: 'pending',
    };
    // Its place in the journal and its first revision: counters, not times (entry.ts).
    expect(entry).toEqual({ id: entry.id, seq: 1, revision: 1, created_at: at, updated_at: at, ...held });
    expect(fileText().split('\n')).toEqual([expect.any(String), '']);
    expect(JSON.parse(fileText())).toEqual({ id: entry.id, at, seq: 1, ...held });
    expect(await journal.get(entry.id)).toEqual(entry);
  });

  it('an entry is the fold of its events: later fields win, resolved_at is stamped on a final outcome unless the caller gives one', async () => {
    const { journal, setTime, fileText } = setUp();
    const begun = await journal.begin(openFields());

    setTime(T0 + 1_000);
    const change = { outcome: 'submitted', hedge_id: 'hdg_1', order_tx_hash: '0xabc', message: 'accepted' } as const;
    const submitted = await journal.update(begun.id, change);
    expect(submitted).toEqual({ ...begun, revision: 2, updated_at: '2025-01-15T09:30:01.000Z', ...change });

    setTime(T0 + 2_500);
    const filled = await journal.update(begun.id, { outcome: 'filled', message: 'filled at 1534.2' });
    const at = '2025-01-15T09:30:02.500Z';
    expect(filled).toEqual({
      ...submitted,
      revision: 3,
      updated_at: at,
      outcome: 'filled',
      message: 'filled at 1534.2',
      resolved_at: at,
    });
    expect([await journal.get(begun.id), fileText().split('\n').length]).toEqual([filled, 4]);

    const other = await journal.begin(openFields());
    const resolvedAt = '2025-01-15T09:29:59.000Z';
    expect((await journal.update(other.id, { outcome: 'done', resolved_at: resolvedAt })).resolved_at).toBe(resolvedAt);
  });

  it('reads a journal not made yet as empty, refuses to update an entry that does not exist, or to begin one without the fields a reader needs, and writes nothing', async () => {
    const { journal, fileText, dir } = setUp();
    // Reading a journal that does not exist yet is an empty journal and creates nothing (the rest of list and get for
    // every backend: conformance.test.ts).
    const request = { environment: 'test', base_url_host: 'h', key_id: KEY_ID, command: 'open', body: {} } as const;
    expect([
      await journal.list(),
      await journal.get('a_'),
      await journal.findUnresolvedMatch(request),
      existsSync(dir),
    ]).toEqual([[], undefined, undefined, false]);
    await expect(journal.begin({ ...openFields(), key_id: '', environment: 'prod' as 'live' })).rejects.toThrow(
      'Cannot journal this action: environment must be live or test; key_id is required.',
    );
    expect(existsSync(dir)).toBe(false);
    await journal.begin(openFields());
    const before = fileText();
    await expect(journal.update('a_nothere', { outcome: 'filled' })).rejects.toThrow(
      new JournalError('No journal entry a_nothere to update.'),
    );
    expect(fileText()).toBe(before);
  });
});

const KEY = 'hpk_live_Sup3rSecretKeyValue_99';
const body = (value: Record<string, unknown>) => ({ request: { method: 'POST', path: '/hedges', body: value } });

it.each([
  [{ argv: ['hedge', 'open', '--api-key', KEY] }, '(at $.argv[3])'],
  [body({ note: `Bearer ${KEY}` }), '(at $.request.body.note)'],
  [body({ [KEY]: 1 }), '(at $.request.body (a property name))'],
])(
  'the key guard refuses a new entry carrying an API-key-shaped string anywhere, names where %#, never the key, and writes nothing',
  async (overrides, where) => {
    const { journal, dir } = setUp();
    const error = await journal.begin(openFields(overrides)).catch((caught) => caught);
    expect(error).toBeInstanceOf(JournalError);
    expect(error.message).toContain(where);
    expect(error.message).not.toContain('Sup3rSecret');
    expect(existsSync(dir)).toBe(false);
  },
);

/** A begin event as a line of the file, written at 09:00. */
const eventLine = (id: string, more: Record<string, unknown> = {}) =>
  JSON.stringify({ id, at: '2025-01-15T09:00:00.000Z', ...openFields(), outcome: 'submitted', ...more });
const idsOf = async (journal: ReturnType<typeof openJournal>) => (await journal.list()).map((entry) => entry.id);

describe('a file a crash or a hand edit damaged', () => {
  it('skips lines that are not events and says which; an append after a torn last line starts a fresh line', async () => {
    const { journal, dir, skipped, fileText } = setUp(tempFolder());
    const { file } = journal;
    const orphan = JSON.stringify({ id: 'a_orphan', at: '2025-01-15T09:00:01.000Z', outcome: 'filled' });
    writeFileSync(file, `${eventLine('a_good')}\n[1,2]\n${orphan}\n{"id":"a_torn","at":"2025-01-15T09:0`);

    expect(await idsOf(journal)).toEqual(['a_good']);
    expect(skipped).toEqual([
      { file, line: 2, reason: 'not a JSON object' },
      { file, line: 4, reason: 'incomplete last line (not valid JSON)' },
      { file, line: 3, reason: 'entry a_orphan has no creation event' },
    ]);

    const next = await journal.begin(openFields());
    expect(fileText().split('\n').slice(3)).toEqual([
      '{"id":"a_torn","at":"2025-01-15T09:0',
      expect.stringContaining(`{"id":"${next.id}"`),
      '',
    ]);
    skipped.length = 0;
    expect(await idsOf(journal)).toEqual([next.id, 'a_good']);
    expect(skipped.map((skip) => [skip.line, skip.reason])).toEqual([
      [2, 'not a JSON object'],
      [4, 'not valid JSON'],
      [3, 'entry a_orphan has no creation event'],
    ]);
    // Reading past damaged lines archives nothing.
    expect(readdirSync(dir)).toEqual(['journal.jsonl']);
  });

  it('a line over the bound is skipped unread, said with its file and line, the other lines read; a write that large is refused, nothing recorded', async () => {
    const { journal, skipped, fileText } = setUp(tempFolder());
    const { file } = journal;
    // A whole event, valid JSON, past 1 MiB: hedge writes none (a hand edit, or someone filling the disk).
    const huge = eventLine('a_huge', {
      idempotency_key: 'idem-huge',
      outcome: 'unknown',
      message: 'x'.repeat(3 * 1024 * 1024),
    });
    const lines = `${huge}\n${eventLine('a_good')}\n`;
    writeFileSync(file, lines);

    expect(await idsOf(journal)).toEqual(['a_good']);
    expect(skipped).toEqual([{ file, line: 1, reason: 'longer than 1 MiB: not read' }]);

    const big = openFields({
      request: { method: 'POST', path: '/hedges', body: { note: 'y'.repeat(2 * 1024 * 1024) } },
    });
    await expect(journal.begin(big)).rejects.toThrow(/A journal event over 1 MiB is not written/);
    expect(fileText()).toBe(lines);
  });
});

it('the lock: takes over a lock left by a process that died holding it, once the lock is stale', async () => {
  const { journal, dir } = setUp(tempFolder());
  const lock = join(dir, 'journal.jsonl.lock');
  mkdirSync(lock);
  const anHourAgo = new Date(Date.now() - 3_600_000);
  utimesSync(lock, anHourAgo, anHourAgo);

  const entry = await journal.begin(openFields());
  expect(await idsOf(journal)).toEqual([entry.id]);
  expect(readdirSync(dir)).toEqual(['journal.jsonl']);
});
