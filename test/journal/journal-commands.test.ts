// `hedge journal`, `hedge journal show ID` and the refusals of `hedge resume`, over a journal file
// written by hand (no server needed: none of these sends anything). Hand-written entries also
// carry hostile text, which must reach the screen as visible escapes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runHedge, tempFolders, type HedgeArgs, type RunOptions } from '../support/hedge-cli.js';
import { keyFingerprint } from '../../src/platform/journal/index.js';
import { writeStore } from '../support/config-store.js';

const KEY = 'hpk_test_AbCdEfGhIjKlMnOpQrStUvWx';
const OTHER_KEY = 'hpk_test_ZyXwVuTsRqPoNmLkJiHgFeDc';
// Port 9 (discard): nothing listens, so any request would fail the test loudly.
const BASE_URL = 'http://127.0.0.1:9/partners/sandbox/v2';
const ENV = { HEDGE_API_KEY: KEY, HEDGE_BASE_URL: BASE_URL };
const HOSTILE = 'evil\u001b]0;pwned\u0007\u202emsg';

const tempFolder = tempFolders('hedge-journal-');
let dir = '';
beforeEach(() => {
  dir = tempFolder();
});

const now = Date.now();
const ago = (ms: number) => new Date(now - ms).toISOString();

function entry(id: string, at: string, fields: Record<string, unknown>) {
  return {
    id,
    at,
    environment: 'test',
    base_url_host: '127.0.0.1:9',
    key_id: keyFingerprint(KEY),
    command: 'add',
    argv: ['add', 'USDTNGN', 'buy', '500'],
    request: { method: 'POST', path: '/hedges/add', body: { market: 'USDTNGN', side: 'buy', notional_usd: 500 } },
    idempotency_key: `key-${id}`,
    outcome: 'pending',
    ...fields,
  };
}

/** The journal file of `rows`, a line each. */
function writeRows(...rows: object[]) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'journal.jsonl'), rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
}

/** Three entries, oldest first: a filled open (10 days ago), an unknown add (3 h ago), a submitted close (1 min ago). */
function writeJournal() {
  writeRows(
    entry('a_open0001', ago(10 * 86_400_000), {
      command: 'open',
      argv: ['open', 'USDTNGN', 'buy', '10000', '--tenor', '3'],
      request: {
        method: 'POST',
        path: '/hedges',
        body: { market: 'USDTNGN', side: 'buy', notional_usd: 10000, tenor_days: 3, client_reference: 'DEAL-42' },
      },
      profile: 'desk',
    }),
    {
      id: 'a_open0001',
      at: ago(10 * 86_400_000 - 5000),
      outcome: 'filled',
      hedge_id: 'hdg_1',
      resolved_at: ago(10 * 86_400_000 - 5000),
    },
    entry('a_add00002', ago(3 * 3_600_000), {}),
    { id: 'a_add00002', at: ago(3 * 3_600_000 - 1000), outcome: 'unknown', message: HOSTILE },
    entry('a_close003', ago(60_000), {
      command: 'close',
      argv: ['close', 'USDTNGN', 'buy'],
      request: { method: 'POST', path: '/hedges/close', body: { market: 'USDTNGN', side: 'buy' } },
      key_id: keyFingerprint(OTHER_KEY),
      profile: 'ops',
    }),
    { id: 'a_close003', at: ago(59_000), outcome: 'submitted', hedge_id: `hdg_${HOSTILE}` },
  );
}

const hedge = (args: HedgeArgs, options?: RunOptions) => runHedge(args, { configDir: dir, env: ENV, ...options });
/** The entries `hedge journal --json` lists with `flags` (exit 0), and their ids. */
const listed = async (...flags: string[]) => JSON.parse((await exits(0, ['journal', '--json', ...flags])).stdout);
const ids = async (...flags: string[]) => (await listed(...flags)).map((e: any) => e.id);

/** Runs `args` and checks its exit code and that its stderr says each of `said`. */
async function exits(code: number, args: HedgeArgs, ...said: string[]) {
  const result = await hedge(args);
  expect(result.code, result.stderr).toBe(code);
  for (const text of said) expect(result.stderr).toContain(text);
  return result;
}

describe('hedge journal', () => {
  it('--json prints the entries as stored, newest first; --pending only the unresolved ones', async () => {
    writeJournal();
    expect(await listed()).toMatchObject([
      { id: 'a_close003' },
      { id: 'a_add00002', message: HOSTILE },
      { id: 'a_open0001', outcome: 'filled', hedge_id: 'hdg_1', profile: 'desk', request: { path: '/hedges' } },
    ]);

    expect(await listed('--pending')).toMatchObject([
      { id: 'a_close003', outcome: 'submitted' },
      { id: 'a_add00002', outcome: 'unknown' },
    ]);
  });

  it('--since takes a date, an ISO time or a time ago (m is minutes, as in every duration hedge reads; a calendar month is 1mo); --limit keeps the newest ("more" said only when there is more); a bad --since is exit 2 naming the forms', async () => {
    writeJournal();
    const newest = ['a_close003', 'a_add00002'];
    const all = [...newest, 'a_open0001'];
    const close = ['a_close003'];
    for (const [since, expected] of Object.entries({
      '1d': newest,
      '2h': close,
      '2w': all,
      [ago(3 * 3_600_000 + 1000)]: newest,
      [new Date(now + 2 * 86_400_000).toISOString().slice(0, 10)]: [],
      '30m': close,
      '179m': close,
      '181m': newest,
      '1mo': all,
    }))
      expect(await ids('--since', since), since).toEqual(expected);
    expect(await ids('--limit', '1')).toEqual(close);

    expect((await exits(2, 'journal --since yesterday', '--since', '2h')).stdout).toBe('');
    await exits(2, 'journal --limit 0');
    // On a screen, "more" is said only when more entries exist than were shown.
    const more = async (limit: number) =>
      (await hedge(['journal', '--limit', String(limit)], { screen: { columns: 120, rows: 60 } })).stdout.includes(
        `Showing the newest ${limit}; more with --limit.`,
      );
    expect([await more(2), await more(3), await more(4)]).toEqual([true, false, false]);
  });

  it('piped: a header row of keys, then one row per entry, the raw values in a fixed column order; journal text is escaped', async () => {
    writeJournal();
    const result = await exits(0, 'journal');
    const [header, ...lines] = result.stdout.trimEnd().split('\n');
    expect(header).toBe(
      'id\tcreated_at\tcommand\tmarket\tside\tclient_reference\tnotional_usd\toutcome\thedge_id\tenvironment\thost\tseal\tseal_check',
    );
    expect(lines).toHaveLength(3);
    // Columns: id, time, command, market, side, the deal reference sent, notional, outcome, hedge id, where (then host: empty here, trimmed).
    const cells = lines.map((line) => line.split(/\t|\\x09/));
    expect(cells[2]).toEqual([
      'a_open0001',
      ago(10 * 86_400_000),
      'open',
      'USDTNGN',
      'buy',
      'DEAL-42',
      '10000',
      'filled',
      'hdg_1',
      'test · desk',
    ]);
    expect(cells[0].slice(0, 8)).toEqual(['a_close003', ago(60_000), 'close', 'USDTNGN', 'buy', '', '', 'submitted']);
    // --ref keeps the actions sent with that reference.
    expect(await ids('--ref', 'DEAL-42')).toEqual(['a_open0001']);
    expect(result.stdout).not.toMatch(/\u001b|\u202e/);
    expect(result.stdout).toContain('\\x1b]0;pwned');
  });

  it('show: one entry by a unique prefix: JSON as stored, field lines when piped with text escaped; an unknown id and an ambiguous prefix are exit 2 naming what was typed (and the candidates)', async () => {
    writeJournal();
    expect(JSON.parse((await exits(0, 'journal show a_add --json')).stdout)).toMatchObject({
      id: 'a_add00002',
      outcome: 'unknown',
      idempotency_key: 'key-a_add00002',
      message: HOSTILE,
    });

    const plain = await exits(0, 'journal show a_add00002');
    // One record: a header row of keys and one row (a tab inside a value is written \x09).
    const [keys, values, ...more] = plain.stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.split('\t'));
    expect(more).toEqual([]);
    const shown = Object.fromEntries(keys.map((key, index) => [key, values[index]]));
    expect(shown).toMatchObject({
      idempotency_key: 'key-a_add00002',
      body: '{"market":"USDTNGN","side":"buy","notional_usd":500}',
    });
    expect(plain.stdout).not.toContain('\u001b');
    expect(plain.stdout).toContain('\\x1b]0;pwned');
    await exits(2, 'journal show a_nope', 'a_nope');
    await exits(2, 'journal show a_', 'a_close003', 'a_open0001');
  });

  it('resolve: hand-written unresolved rows whose id carries a quote and control characters, or is spelled with a JSON escape, resolved by the part a person types: recorded, said so, exit 0', async () => {
    const id = `a_odd"${HOSTILE}`;
    writeRows(entry(id, ago(60_000), { outcome: 'unknown' }));
    const result = await exits(0, 'journal resolve a_odd --not-landed', 'not landed: outcome abandoned');
    expect(result.stderr).not.toContain('No journal entry');
    // The same id spelled with a JSON escape, as a hand may write it.
    const spelled = JSON.stringify(entry('a_esc1', ago(30_000), { outcome: 'unknown' })).replace(
      '"a_esc1"',
      '"\\u0061_esc1"',
    );
    writeFileSync(join(dir, 'journal.jsonl'), `${spelled}\n`, { flag: 'a' });
    await exits(0, 'journal resolve a_esc --landed', 'landed: outcome done');
    expect(await listed()).toMatchObject([
      { id: 'a_esc1', outcome: 'done', message: 'resolved by hand: landed' },
      { id, outcome: 'abandoned', message: 'resolved by hand: did not land' },
    ]);
  });

  it('an unverified planned roll leg: resume refuses it (exit 13) naming `journal resolve ID --not-landed`, which records it (exit 0): its hint runs as printed, and a later `hedge resume` has nothing left to do', async () => {
    writeRows(entry('a_leg00001', ago(60_000), { command: 'open', group: 'roll:USDTNGN:buy', outcome: 'planned' }));
    await exits(13, 'resume', 'does not verify', 'hedge journal resolve a_leg00001 --not-landed');
    await exits(0, 'journal resolve a_leg00001 --not-landed', 'not landed: outcome abandoned', 'does not verify');
    await exits(0, 'resume', 'Nothing to resume');
    expect(await listed()).toMatchObject([
      { id: 'a_leg00001', outcome: 'abandoned', message: 'resolved by hand: did not land' },
    ]);
  });
});

describe('hedge resume refusals (nothing is sent)', () => {
  it("a resolved entry is exit 2 saying its outcome; an entry sent with other credentials is exit 2 naming its profile; without an ID, this account's own unresolved entry before a newer one of another; with no unresolved entry (an empty journal, which `hedge journal` says on stderr), a sentence on stderr, exit 0", async () => {
    await exits(0, 'resume', 'Nothing to resume');
    // An empty journal says so on stderr, stdout holds the header row alone (nothing with --no-header).
    expect((await exits(0, 'journal', 'journal is empty')).stdout).toBe(
      'id\tcreated_at\tcommand\tmarket\tside\tclient_reference\tnotional_usd\toutcome\thedge_id\tenvironment\thost\tseal\tseal_check\n',
    );
    expect((await hedge('journal --no-header')).stdout).toBe('');
    writeJournal();
    await exits(2, 'resume a_open0001', 'outcome is filled');
    await exits(2, 'resume a_close003', 'key fingerprint', 'hedge --profile ops resume a_close003');
    // Without an ID: this key's own unknown add (hand-written, so unsealed: exit 13), not the newer close of profile ops.
    const own = await exits(13, 'resume', 'Journal a_add00002', 'does not verify');
    expect(own.stderr).not.toContain('a_close003');
    // With none of its own left, the other account's is named with the credentials to resume it.
    await exits(0, 'journal resolve a_add00002 --not-landed', 'not landed: outcome abandoned');
    await exits(2, 'resume', 'a_close003', 'key fingerprint', 'hedge --profile ops resume a_close003');
  });

  it("an entry sent under another profile, resumed or shown under --profile desk: the command suggested is the entry's own profile's, its words as typed then (quoted to read back in a shell), never this run's profile", async () => {
    writeStore(dir, {
      current: 'desk',
      profiles: { desk: { base_url: BASE_URL, api_key: KEY, saved_at: ago(86_400_000) } },
    });
    writeRows(
      entry('a_open0009', ago(60_000), {
        command: 'open',
        argv: ['open', 'USDTNGN', 'buy', '100', '--tenor', '1', '--ref', "DEAL 7's"],
        key_id: keyFingerprint(OTHER_KEY),
        profile: 'ops',
        outcome: 'unknown',
      }),
    );
    const refused = await runHedge('--profile desk resume a_open0009', { configDir: dir });
    expect(refused.code, refused.stderr).toBe(2);
    // A word with a space or a quote in it is quoted.
    const typed = `open USDTNGN buy 100 --tenor 1 --ref 'DEAL 7'\\''s'`;
    expect(refused.stderr).toContain(`Journal a_open0009 (${typed}) was sent`);
    expect(refused.stderr).toMatch(
      /resume it with the credentials it was sent with: `hedge --profile ops resume a_open0009`$/m,
    );
    expect(refused.stderr).not.toContain('--profile desk');
    // Its page in the journal, read under this profile, points at the same resume.
    const shown = await runHedge('--profile desk journal show a_open0009', {
      configDir: dir,
      screen: { columns: 120, rows: 60 },
    });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('Unresolved: finish it with `hedge --profile ops resume a_open0009`');
    expect(shown.stdout).not.toContain('--profile desk');
    expect((await exits(0, 'journal show a_open0009 --fields argv --no-header')).stdout).toBe(`hedge ${typed}\n`);
  });
});
