// Two edges of "show what the server returned": a fresh account (empty lists: `[]` for scripts,
// a sentence for people, the header row alone on stdout in plain mode), and a richer server that
// sends a field the CLI has never heard of (it must appear in the table when it fits, or be named
// as hidden, and in the TSV; the JSON keeps it: json-keeps-everything.test.ts).
import { startFieldProxy, type FieldProxy } from '../support/servers/field-proxy.js';
import { runHedge, tempDir, type HedgeArgs } from '../support/hedge-cli.js';
import { FROZEN_KEY } from '../support/keys.js';
import { ok } from '../support/cli-runs.js';
import { apiData, envFor, startSimulator, type Simulator } from '../support/simulator.js';
import { HEDGE_COLUMNS, HISTORY_COLUMNS, POSITION_COLUMNS } from './columns.js';
import { openBody } from '../support/engine.js';

let empty: Simulator;
let rich: Simulator;
let proxy: FieldProxy;
let config: { path: string; remove: () => void };
let hedgeId: string;

const EXTRA_FIELD = 'desk_region';
const EXTRA_LABEL = 'Desk region';
const EXTRA_VALUE = 'lagos-2';

beforeAll(async () => {
  [empty, rich] = await Promise.all([startSimulator({ preset: 'frozen' }), startSimulator({ preset: 'frozen' })]);
  rich.sandbox.seedHedges({ apiKey: FROZEN_KEY, count: 1, status: 'closed' });
  hedgeId = (await apiData(rich, 'POST', '/hedges', openBody('sell', 20_000, 1))).id;
  rich.advance(60_000);
  proxy = await startFieldProxy(rich.sandbox, EXTRA_FIELD, EXTRA_VALUE);
  config = tempDir();
});

/** The command against the server of `env`, in this file's config dir (`more` env added). */
const on =
  (env: Record<string, string>) =>
  (args: HedgeArgs, more = {}) =>
    runHedge(args, { env: { ...env, ...more }, configDir: config.path });

afterAll(async () => {
  await proxy?.close();
  await Promise.all([empty?.close(), rich?.close()]);
  config?.remove();
});

it.each([
  ['hedges', 'No hedges yet.', HEDGE_COLUMNS],
  ['hedges --status failed', 'No hedges match these filters.', HEDGE_COLUMNS],
  ['history', 'No closed hedges yet.', HISTORY_COLUMNS],
  ['positions', 'No open positions.', POSITION_COLUMNS],
])(
  'empty lists: %s: [] in JSON, a sentence for people, the header row alone in plain mode (nothing with --no-header)',
  async (command, sentence, columns) => {
    const args = command.split(' ');
    const hedge = on(envFor(empty));
    const [json, plain, bare, tty] = await Promise.all([
      hedge([...args, '--json']),
      hedge(args),
      hedge([...args, '--no-header']),
      hedge(args, { HEDGE_FORCE_TTY: '1' }),
    ]);
    [json, plain, bare, tty].forEach(ok);
    const said = `${sentence}\n`;
    expect([json.stdout, json.stderr, plain.stdout, plain.stderr, bare.stdout, bare.stderr, tty.stdout]).toEqual([
      '[]\n',
      '',
      `${columns.join('\t')}\n`,
      said,
      '',
      said,
      said,
    ]);
  },
);

// --json keeps it (every value the server sent, on every dialect): json-keeps-everything.test.ts.

it.each([
  'markets',
  'price',
  'price USDTNGN',
  'quote USDTNGN sell 5000 --tenor 1',
  'hedges',
  'history',
  'positions',
  'account',
])('a field the CLI does not know: %s shows it in the table (or names it hidden) and the TSV', async (command) => {
  const args = command.split(' ');
  const hedge = on(envFor(proxy));
  // A table wide enough for every column, and one at 80 columns.
  const [plain, tty, narrow] = await Promise.all([
    hedge(args),
    hedge(args, { HEDGE_FORCE_TTY: '1', COLUMNS: '400' }),
    hedge(args, { HEDGE_FORCE_TTY: '1', COLUMNS: '80' }),
  ]);
  [plain, tty, narrow].forEach(ok);
  // Named on the note's one line, or among the more it counts (the least important: nobody declared it).
  if (!narrow.stdout.includes(EXTRA_LABEL))
    expect(narrow.stderr).toMatch(
      new RegExp(`^Hidden[^—\n]*(\\b${EXTRA_FIELD}\\b|\\+\\d+ more|\\d+ columns) — see [^\n]*$`, 'm'),
    );
  expect(tty.stdout).toContain(EXTRA_LABEL);
  expect(tty.stdout).toContain(EXTRA_VALUE);
  expect(plain.stdout).toContain(EXTRA_VALUE);
  expect(plain.stdout.split('\n')[0].split('\t')).toContain(EXTRA_FIELD);
});

it('a field the CLI does not know: hedges ID shows it too', async () => {
  const hedge = on(envFor(proxy));
  const [json, tty] = await Promise.all([
    hedge(`hedges ${hedgeId} --json`),
    hedge(`hedges ${hedgeId}`, { HEDGE_FORCE_TTY: '1' }),
  ]);
  expect(JSON.parse(json.stdout)).toMatchObject({ id: hedgeId, [EXTRA_FIELD]: EXTRA_VALUE });
  expect(tty.stdout).toMatch(new RegExp(`${EXTRA_LABEL}\\s+│ ${EXTRA_VALUE}`));
});
