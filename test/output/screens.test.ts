// What a desk sees on a terminal at 80, 100, 120 and 160 columns (drawn in-process as on one; a hedge's
// card also on a real pseudo-terminal, the same to the byte): the read commands (markets, price,
// account, a quote), the lists that carry the deal reference (positions, hedges, history, maturities,
// the report by day and deal by deal, the journal) and a hedge's card. On every screen: no line wider
// than the terminal (measured as the terminal measures, string-width of the visible text), no word
// split at a line end, and the Ref column present at every width where a narrower terminal showed it.
// The screens (frozen simulator, pinned clock) are reviewed snapshots.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { writeStore } from '../support/config-store.js';
import { tempDir, type HedgeArgs } from '../support/hedge-cli.js';
import { FROZEN_KEY, LIVE_KEY } from '../support/keys.js';
import { drawScreen } from '../support/servers/pseudo-terminal.js';
import { pinnedClockEnv, seedReadBook, startSimulator, type Simulator } from '../support/simulator.js';
import { tableHeaders } from '../support/output/table-text.js';
import { ok, okJson, exits } from '../support/cli-runs.js';

const WIDTHS = [80, 100, 120, 160] as const;
/** Wide enough that nothing is hidden, cut or wrapped: the words a narrower screen may show. */
const WIDE = 400;

let simulator: Simulator;
let profiles: { path: string; remove: () => void };
let buyId: string;

/** The command with the CLI's clock pinned to the simulator's (`env` added). */
const run = (args: HedgeArgs, env = {}) => simulator.hedge(args, { env: { ...pinnedClockEnv(simulator), ...env } });

const SCREENS = [
  'markets',
  'price',
  'account',
  'quote USDTNGN buy 10000 --tenor 3',
  'positions',
  'hedges',
  'history',
  'maturities',
  'report',
  'report --by hedge',
  'journal',
];

/** Drawn in-process as on a terminal (`real`: on a pseudo-terminal); it exits 0 and every line fits the terminal. */
async function onTerminal(args: string[], cols: number, configDir = simulator.configDir, real = false) {
  const drawn = await drawScreen({
    configDir,
    args,
    env: { ...simulator.env, ...pinnedClockEnv(simulator) },
    cols,
    rows: 60,
    real,
  });
  expect(drawn.code, drawn.screen).toBe(0);
  for (const line of drawn.screen.split('\n')) expect(stringWidth(line), `${cols}: ${line}`).toBeLessThanOrEqual(cols);
  return drawn;
}

/** Every word the command can show: its screen with room for everything, and its TSV header (the keys a note names). */
async function wordsOf(args: string[]) {
  const [wide, tsv] = await Promise.all([
    run(args, { HEDGE_FORCE_TTY: '1', COLUMNS: String(WIDE) }),
    run([...args, '--format', 'tsv']),
  ]);
  exits(wide, 0);
  const words = new Set(`${wide.stdout}\n${wide.stderr}`.split(/\s+/).filter(Boolean));
  for (const key of tsv.stdout.split('\n')[0].split('\t')) for (const word of [key, `${key},`]) words.add(word);
  return words;
}

/**
 * Words broken across a line end: a line filled to the edge, whose last word and the next line's
 * first word make a word the command shows whole. (Table rows are never wrapped: a cell too wide
 * is cut with … instead.)
 */
function splitWords(screen: string, cols: number, words: Set<string>) {
  const lines = screen.split('\n');
  const split = [];
  for (let index = 0; index + 1 < lines.length; index++) {
    const line = lines[index];
    if (stringWidth(line) < cols - 1) continue;
    const last = /(\S+)$/.exec(line)?.[1];
    const first = /^(\S+)/.exec(lines[index + 1])?.[1];
    if (last && first && words.has(last + first)) split.push(`${last}|${first}`);
  }
  return split;
}

/** Whether the (first) table has a Ref column (its header read over its rule: one line or two). */
function hasRef(screen: string) {
  return tableHeaders(screen).includes('Ref');
}

beforeAll(async () => {
  simulator = await startSimulator({ preset: 'frozen' });
  buyId = await seedReadBook(simulator);
  // Two actions through the CLI, so that the journal lists them (one with a reference).
  ok(await run('open USDTNGN sell 10000 --tenor 3 --ref DESK-7 --no-wait'));
  ok(await run('add USDTNGN buy 5000 --no-wait'));
  simulator.sandbox.clock.advance(60_000);
  profiles = tempDir();
  writeStore(profiles.path, {
    current: 'desk',
    profiles: {
      desk: {
        base_url: 'https://hedging-partner.example.com/partners/sandbox/v2',
        api_key: FROZEN_KEY,
        saved_at: '2026-03-01T09:00:00.000Z',
      },
      prod: {
        base_url: 'https://hedging-partner.example.com/partners/v2',
        api_key: LIVE_KEY,
        ca_file: '/etc/ssl/certs/partner-ca-bundle.pem',
      },
      gone: { base_url: 'https://hedging-partner.example.com/partners/v2' },
    },
  });
});

afterAll(async () => {
  await simulator?.close();
  profiles?.remove();
});

describe.each(SCREENS)('%s', (line) => {
  it(`at ${WIDTHS.join(', ')} columns: fits, splits no word, keeps Ref once shown, reads as reviewed`, async () => {
    const args = line.split(' ');
    const words = await wordsOf(args);
    let refShown = false;
    for (const cols of WIDTHS) {
      const { screen } = await onTerminal(args, cols);
      expect(splitWords(screen, cols, words), `${cols} columns:\n${screen}`).toEqual([]);
      if (refShown) expect(hasRef(screen), `Ref shown narrower, hidden at ${cols}:\n${screen}`).toBe(true);
      refShown ||= hasRef(screen);
      // A journal id's four random characters (`a_` + time + 4) masked: the screen is the same on every run.
      expect(screen.replace(/\b(a_[0-9a-z]{8})[0-9a-z]{4}\b/g, '$1····')).toMatchSnapshot(`${cols} columns`);
    }
  });
});

describe('a hedge card and the profiles', () => {
  // Its hashes shortened on screen, whole in TSV and CSV: test/book/read-commands.test.ts ("hedges ID shows one
  // hedge in full"); what the profile list says: test/setup/profiles-manage.test.ts.
  // On a real terminal (its width read from the terminal itself), the card is the screen drawn in-process.
  it(`at ${WIDTHS.join(', ')} columns: a hedge's card and the profile list fit; both read as reviewed`, async () => {
    for (const cols of WIDTHS) {
      const { screen } = await onTerminal(['hedges', buyId], cols);
      expect(screen).toMatchSnapshot(`${cols} columns`);
      if (cols === 80) expect((await onTerminal(['hedges', buyId], 80, simulator.configDir, true)).screen).toBe(screen);
      expect((await onTerminal(['profile', 'list'], cols, profiles.path)).screen).toMatchSnapshot(
        `profile list, ${cols} columns`,
      );
    }
  });
});

it('the deal reference: --ref filters every list the same way', async () => {
  const [positions, hedges, maturities, journal, history] = await Promise.all(
    'positions hedges maturities journal history'
      .split(' ')
      .map(async (list) => okJson(await run([list, '--ref', 'DESK-7', '--json']))),
  );
  expect([
    positions.map((row: any) => row.side),
    hedges.map((row: any) => row.client_reference),
    maturities.map((row: any) => row.client_reference),
    journal.map((entry: any) => entry.command),
  ]).toEqual([['sell'], ['DESK-7'], ['DESK-7'], ['open']]);
  // Nothing with that reference has closed yet.
  expect(history).toEqual([]);
});

// What a person acts on at 80 and 60 columns: keep's "reported only" on a drifted row, a watch's title
// with the time of its last good refresh, whoami's base URL and labels whole, and a narrow report that
// drops its bar (a figure drawn again) before any figure. Nothing is cut where it is read, no word
// split across lines.
describe.each([80, 60])('at %i columns', (cols) => {
  /** Its lines as drawn (none wrapped by the terminal, none wider than it), and the text as read: lines joined, a wrapped line's indent gone. */
  async function read(args: string[], width = cols) {
    const { drawn } = await onTerminal(args, width);
    expect(drawn.filter((line) => line.wrapped)).toEqual([]);
    const lines = drawn.map((line) => line.text);
    return { lines, text: lines.join('\n').replace(/\s+/g, ' ') };
  }

  it('positions: the time left stays, before the rates, whatever the references', async () => {
    const { lines } = await read(['positions']);
    expect(tableHeaders(lines.join('\n'))).toEqual(expect.arrayContaining(['Side', 'Ref', 'Left']));
  });

  it('--demo: the banner is one line, its state folder shortened in the middle where it does not fit', async () => {
    const deep = tempDir();
    const folder = join(deep.path, 'a-folder-deep-enough-that-the-banner-would-wrap', 'config');
    try {
      const { drawn } = await drawScreen({ configDir: folder, args: ['--demo', 'markets'], env: {}, cols, rows: 40 });
      const banner = drawn.map((line) => line.text).filter((line) => line.startsWith('DEMO —'));
      expect(banner).toHaveLength(1);
      expect(stringWidth(banner[0])).toBeLessThanOrEqual(cols);
      expect(drawn[1].text).not.toMatch(/^\S*\)$/);
      expect(banner[0]).toMatch(/^DEMO — .*\(state in \/.*….*config\)$/);
    } finally {
      deep.remove();
    }
  });

  it('keep: a drifted row says, whole, that it is reported only and how to bring it back', async () => {
    const file = join(simulator.configDir, 'target.csv');
    // The row names the deal of the side's hedge: it is the row's, so its notional is the row's drift.
    writeFileSync(
      file,
      'market,side,notional_usd,tenor_days,client_reference,until,roll_before\nUSDTNGN,sell,2000,7,DESK-7,,\n',
    );
    const writes = simulator.writes().length;
    const { lines, text } = await read(['keep', file, '--once']);
    // The row itself (it stays on screen while events scroll away) and the drift event.
    expect(text).toContain('drifted to 10,000.00 USD (target 2,000.00 USD): reported only (run with --converge');
    expect(text).toContain('reported only; run with --converge to bring it back');
    expect(lines.filter((line) => line.includes('…'))).toEqual([]);
    expect(simulator.writes()).toHaveLength(writes);
  });

  it.each([['price', 'USDTNGN'], ['hedges']])(
    '%s --watch: the title keeps the time of the last good refresh and how to stop',
    async (...command) => {
      // `hedges ID --watch`: the title carries the hedge's id.
      const { lines } = await read([
        ...(command[0] === 'hedges' ? ['hedges', buyId] : command),
        '--watch',
        '--count',
        '1',
      ]);
      // Each part of the title whole on a line (a narrow title wraps between them), none cut.
      const title = lines.slice(0, 2);
      for (const part of [/every 2 s/, /last good refresh \d\d:\d\d:\d\d/, /\* changed/, /Ctrl-C to stop/])
        expect(
          title.some((line) => part.test(line)),
          `${part}\n${lines.join('\n')}`,
        ).toBe(true);
      expect(title.filter((line) => line.includes('…'))).toEqual([]);
    },
  );

  it('whoami: the base URL and every label whole, no word broken across lines', async () => {
    const wide = (await read(['whoami'], 200)).lines.join(' ');
    const { lines } = await read(['whoami']);
    expect(
      lines.some((line) => line.includes(simulator.baseUrl)),
      lines.join('\n'),
    ).toBe(true);
    // Every word on the narrow card is one the wide card shows (none is the piece of a broken one).
    const words = (text: string) => text.split(/[\s│┌┐└┘┬┴─]+/).filter(Boolean);
    const known = new Set(words(wide));
    expect(words(lines.join('\n')).filter((word) => !known.has(word))).toEqual([]);
  });

  it('report: the bar goes before any figure; a figure left out is named', async () => {
    const { lines, text } = await read(['report']);
    const notShown = /Not shown at \d+ columns: ([^(]*)\(/.exec(text)?.[1] ?? '';
    const left = notShown.split(/[,;]\s*/).map((word) => word.trim());
    const figures = ['gross P&L', 'carry', 'fees'].filter((figure) => left.includes(figure));
    // A bar (net P&L drawn again) on screen only when every figure is.
    if (figures.length) expect(left, lines.join('\n')).toContain('bars');
    expect(lines.some((line) => /[▒█│]$/.test(line))).toBe(figures.length === 0);
    if (cols === 60) expect(figures, lines.join('\n')).not.toEqual([]);
  });
});
