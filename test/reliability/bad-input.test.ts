// A mistyped command sends nothing. Every row: exit 2, exactly one line on stderr naming what was
// wrong, nothing on stdout, and not one request received by a live sandbox the CLI is pointed at
// (its request log stays empty). A few rows that look odd but are fine (lower case, spaces around a
// market) normalise and succeed: those are asserted separately, with the normalised request.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ResultRecorder } from './recorder.js';
import { startSimulator, type Simulator } from '../support/simulator.js';
import { lines } from '../support/text.js';

const results = new ResultRecorder(import.meta.url);
afterAll(() => results.flush());

const LONG = 'A'.repeat(10_000);
const LONG_NUMBER = `1${'0'.repeat(9_999)}`;
/** "USDTNGN" with a Cyrillic Т (U+0422) in place of the Latin T. */
const CYRILLIC_T = 'USD\u0422NGN';
/** "USDTNGN" with a Cyrillic Ѕ (U+0405) in place of the Latin S. */
const CYRILLIC_S = 'U\u0405DTNGN';

interface BadRow {
  /** How the row is shown in the table (long arguments abbreviated). */
  label: string;
  args: string[];
  /** The one stderr line must match this (it names the argument). */
  mentions: RegExp;
  env?: Record<string, string>;
  input?: string;
  /** The config store holds a profile named "desk" (for the profile rows). */
  withProfile?: boolean;
}

const ROWS: BadRow[] = [
  // quote
  {
    label: 'quote USDTNGN hold 1000 --tenor 3',
    args: ['quote', 'USDTNGN', 'hold', '1000', '--tenor', '3'],
    mentions: /^hedge: side: "hold" .*buy or sell/,
  },
  {
    label: 'quote USDTNGN buy 1000 --tenor 2',
    args: ['quote', 'USDTNGN', 'buy', '1000', '--tenor', '2'],
    mentions: /^hedge: --tenor: "2" .*1, 3 or 7/,
  },
  {
    label: 'quote USDTNGN buy 0 --tenor 3',
    args: ['quote', 'USDTNGN', 'buy', '0', '--tenor', '3'],
    mentions: /^hedge: notional: "0" .*positive/,
  },
  {
    label: 'quote USDTNGN buy -1 --tenor 3',
    args: ['quote', 'USDTNGN', 'buy', '-1', '--tenor', '3'],
    mentions: /^hedge: notional: "-1"/,
  },
  {
    label: 'quote USDTNGN buy abc --tenor 3',
    args: ['quote', 'USDTNGN', 'buy', 'abc', '--tenor', '3'],
    mentions: /^hedge: notional: "abc"/,
  },
  {
    label: 'quote USDTNGN buy 1e400 --tenor 3',
    args: ['quote', 'USDTNGN', 'buy', '1e400', '--tenor', '3'],
    mentions: /^hedge: notional: "1e400"/,
  },
  {
    label: 'quote USDTNGN buy NaN --tenor 3',
    args: ['quote', 'USDTNGN', 'buy', 'NaN', '--tenor', '3'],
    mentions: /^hedge: notional: "NaN"/,
  },
  {
    label: 'quote USDTNGN buy Infinity --tenor 3',
    args: ['quote', 'USDTNGN', 'buy', 'Infinity', '--tenor', '3'],
    mentions: /^hedge: notional: "Infinity"/,
  },
  {
    label: 'quote USDTNGN buy 1.005 --tenor 3',
    args: ['quote', 'USDTNGN', 'buy', '1.005', '--tenor', '3'],
    mentions: /^hedge: notional: "1\.005" .*decimals/,
  },
  {
    label: 'quote "" buy 1000 --tenor 3',
    args: ['quote', '', 'buy', '1000', '--tenor', '3'],
    mentions: /^hedge: market: missing/,
  },
  {
    label: 'quote USDTNGN "" 1000 --tenor 3',
    args: ['quote', 'USDTNGN', '', '1000', '--tenor', '3'],
    mentions: /^hedge: side: missing/,
  },
  {
    label: 'quote USDTNGN buy "" --tenor 3',
    args: ['quote', 'USDTNGN', 'buy', '', '--tenor', '3'],
    mentions: /^hedge: notional: missing/,
  },
  {
    label: 'quote USDTNGN buy 1000 --tenor ""',
    args: ['quote', 'USDTNGN', 'buy', '1000', '--tenor', ''],
    mentions: /^hedge: --tenor: missing/,
  },
  {
    label: 'quote USDTNGN buy 1000 (no --tenor)',
    args: ['quote', 'USDTNGN', 'buy', '1000'],
    mentions: /^hedge: --tenor: missing/,
  },
  {
    label: 'quote USDTNGN buy 1000 --tenor 3 --bogus',
    args: ['quote', 'USDTNGN', 'buy', '1000', '--tenor', '3', '--bogus'],
    mentions:
      /^hedge: unknown option '--bogus'; the closest is --[a-z-]+, and `hedge quote --help` lists every option\.$/,
  },
  {
    label: 'quote USDTNGN buy 1000 --tenr 3 (typo)',
    args: ['quote', 'USDTNGN', 'buy', '1000', '--tenr', '3'],
    mentions: /^hedge: unknown option '--tenr' \(did you mean --tenor\?\); `hedge quote --help` lists every option\.$/,
  },
  {
    label: 'quote USDTNGN buy 1000 5000 --tenor 3',
    args: ['quote', 'USDTNGN', 'buy', '1000', '5000', '--tenor', '3'],
    mentions: /^hedge: too many arguments for 'quote'/,
  },
  {
    label: 'quote USDTNGN buy',
    args: ['quote', 'USDTNGN', 'buy'],
    mentions: /^hedge: missing required argument 'notional'/,
  },
  {
    label: `quote ${CYRILLIC_T} buy 1000 --tenor 3 (Cyrillic Т)`,
    args: ['quote', CYRILLIC_T, 'buy', '1000', '--tenor', '3'],
    mentions: /^hedge: market: .*look-alike/,
  },
  {
    label: 'quote USDTNGN buy 1000…000 --tenor 3 (a notional of 10 000 digits)',
    args: ['quote', 'USDTNGN', 'buy', LONG_NUMBER, '--tenor', '3'],
    mentions: /^hedge: notional: .*\(10000 characters\)/,
  },
  // open
  {
    label: 'open USDTNGN long 1000 --tenor 3',
    args: ['open', 'USDTNGN', 'long', '1000', '--tenor', '3'],
    mentions: /^hedge: side: "long"/,
  },
  {
    label: 'open USDTNGN buy 1000 --tenor 30',
    args: ['open', 'USDTNGN', 'buy', '1000', '--tenor', '30'],
    mentions: /^hedge: --tenor: "30"/,
  },
  {
    label: 'open USDTNGN buy 0 --tenor 3',
    args: ['open', 'USDTNGN', 'buy', '0', '--tenor', '3'],
    mentions: /^hedge: notional: "0"/,
  },
  {
    label: 'open USDTNGN buy 1000 (no --tenor, no terminal)',
    args: ['open', 'USDTNGN', 'buy', '1000'],
    mentions: /^hedge: missing --tenor/,
  },
  {
    label: 'open (no arguments, no terminal)',
    args: ['open'],
    mentions: /^hedge: missing MARKET, SIDE, NOTIONAL, --tenor/,
  },
  {
    label: `open ${CYRILLIC_S} buy 1000 --tenor 3 (Cyrillic Ѕ)`,
    args: ['open', CYRILLIC_S, 'buy', '1000', '--tenor', '3'],
    mentions: /^hedge: market: .*look-alike/,
  },
  {
    label: 'open USDTNGN buy 1000 --tenor 3 --ref ""',
    args: ['open', 'USDTNGN', 'buy', '1000', '--tenor', '3', '--ref', ''],
    mentions: /^hedge: --ref: ""/,
  },
  {
    label: 'open USDTNGN buy 1000 --tenor 3 --ref AAA…A (10 000 characters)',
    args: ['open', 'USDTNGN', 'buy', '1000', '--tenor', '3', '--ref', LONG],
    mentions: /^hedge: --ref: .*\(10000 characters\)/,
  },
  {
    label: "open USDTNGN buy 1000 --tenor 3 --ref $'DEAL\\n42' (a line break)",
    args: ['open', 'USDTNGN', 'buy', '1000', '--tenor', '3', '--ref', 'DEAL\n42'],
    mentions: /^hedge: --ref: "DEAL\\n42"/,
  },
  {
    label: 'open USDTNGN buy 1000 --tenor 3 --idempotency-key "not a key"',
    args: ['open', 'USDTNGN', 'buy', '1000', '--tenor', '3', '--idempotency-key', 'not a key'],
    mentions: /^hedge: --idempotency-key: "not a key"/,
  },
  // add, reduce, close
  { label: 'add USDTNGN buy -1', args: ['add', 'USDTNGN', 'buy', '-1'], mentions: /^hedge: notional: "-1"/ },
  {
    label: 'add USDTNGN sideways 10',
    args: ['add', 'USDTNGN', 'sideways', '10'],
    mentions: /^hedge: side: "sideways"/,
  },
  { label: 'add USDTNGN buy 1e400', args: ['add', 'USDTNGN', 'buy', '1e400'], mentions: /^hedge: notional: "1e400"/ },
  {
    label: 'add USDTNGN buy',
    args: ['add', 'USDTNGN', 'buy'],
    mentions: /^hedge: missing required argument 'notional'/,
  },
  { label: 'reduce USDTNGN buy NaN', args: ['reduce', 'USDTNGN', 'buy', 'NaN'], mentions: /^hedge: notional: "NaN"/ },
  { label: 'reduce USDTNGN buy 0', args: ['reduce', 'USDTNGN', 'buy', '0'], mentions: /^hedge: notional: "0"/ },
  {
    label: 'reduce USDTNGN buy 100 200',
    args: ['reduce', 'USDTNGN', 'buy', '100', '200'],
    mentions: /^hedge: too many arguments for 'reduce'/,
  },
  { label: 'close USDTNGN', args: ['close', 'USDTNGN'], mentions: /^hedge: missing required argument 'side'/ },
  {
    label: 'close USDTNGN buy sell',
    args: ['close', 'USDTNGN', 'buy', 'sell'],
    mentions: /^hedge: too many arguments for 'close'/,
  },
  { label: 'close USDTNGN hold', args: ['close', 'USDTNGN', 'hold'], mentions: /^hedge: side: "hold"/ },
  {
    label: 'close "USD NGN" buy',
    args: ['close', 'USD NGN', 'buy'],
    mentions: /^hedge: market: "USD NGN" is not a market name/,
  },
  // output options of a write, checked before anything is sent
  {
    label: 'close USDTNGN buy --fields nope',
    args: ['close', 'USDTNGN', 'buy', '--fields', 'nope'],
    mentions: /^hedge: --fields: "nope" is not a field of what `hedge close` prints; allowed: hedge_id, /,
  },
  {
    label: 'open USDTNGN buy 1000 --tenor 3 --query "[?"',
    args: ['open', 'USDTNGN', 'buy', '1000', '--tenor', '3', '--query', '[?'],
    mentions: /^hedge: --query "\[\?": .*; expected a JMESPath expression/,
  },
  // hedges, history
  { label: 'hedges --limit 501', args: ['hedges', '--limit', '501'], mentions: /^hedge: --limit: "501" .*1 to 500/ },
  { label: 'hedges --limit 0', args: ['hedges', '--limit', '0'], mentions: /^hedge: --limit: "0"/ },
  { label: 'hedges --limit 1.5', args: ['hedges', '--limit', '1.5'], mentions: /^hedge: --limit: "1\.5"/ },
  { label: 'hedges x/y (not an id)', args: ['hedges', 'x/y'], mentions: /^hedge: id: "x\/y" is not a hedge id/ },
  { label: 'hedges hdg_!! (bad id characters)', args: ['hedges', 'hdg_!!'], mentions: /^hedge: id: "hdg_!!"/ },
  {
    label: 'hedges --status pending',
    args: ['hedges', '--status', 'pending'],
    mentions: /^hedge: --status: "pending" .*submitting, submitted, filled, failed, closed/,
  },
  { label: 'hedges --status ""', args: ['hedges', '--status', ''], mentions: /^hedge: --status: ""/ },
  {
    label: 'hedges hdg_abc --status filled',
    args: ['hedges', 'hdg_abc', '--status', 'filled'],
    mentions: /^hedge: --status: .*cannot be combined with a hedge ID/,
  },
  { label: 'hedges --wait (no id)', args: ['hedges', '--wait'], mentions: /^hedge: --wait: needs a hedge ID/ },
  { label: 'history --limit 501', args: ['history', '--limit', '501'], mentions: /^hedge: --limit: "501"/ },
  { label: 'history --limit 0', args: ['history', '--limit', '0'], mentions: /^hedge: --limit: "0"/ },
  { label: 'history extra', args: ['history', 'extra'], mentions: /^hedge: too many arguments for 'history'/ },
  // a read: a name that is no field name at all is refused before the read
  {
    label: 'hedges --fields "id status" (a space, not a comma)',
    args: ['hedges', '--fields', 'id status'],
    mentions: /^hedge: --fields: "id status" is not a field name; expected names of letters, digits/,
  },
  // price, positions, account, markets
  { label: `price ${CYRILLIC_T} (Cyrillic Т)`, args: ['price', CYRILLIC_T], mentions: /^hedge: market: .*look-alike/ },
  { label: 'price "USD NGN"', args: ['price', 'USD NGN'], mentions: /^hedge: market: "USD NGN"/ },
  {
    label: 'price AAA…A (10 000 characters)',
    args: ['price', LONG],
    mentions: /^hedge: market: .*\(10000 characters\)/,
  },
  {
    label: 'price USDTNGN extra',
    args: ['price', 'USDTNGN', 'extra'],
    mentions: /^hedge: too many arguments for 'price'/,
  },
  { label: 'positions --limit 5', args: ['positions', '--limit', '5'], mentions: /^hedge: unknown option '--limit'/ },
  { label: 'account extra', args: ['account', 'extra'], mentions: /^hedge: too many arguments for 'account'/ },
  {
    label: 'markets --verbos (typo)',
    args: ['markets', '--verbos'],
    mentions:
      /^hedge: unknown option '--verbos' \(did you mean --verbose\?\); `hedge markets --help` lists every option\.$/,
  },
  { label: 'bogus (unknown command)', args: ['bogus'], mentions: /^hedge: unknown command 'bogus'/ },
  // global options and environment
  { label: '--timeout -3 account', args: ['--timeout', '-3', 'account'], mentions: /^hedge: --timeout: .*"-3"/ },
  // `--timeout 0` means "no bound"; a negative number is the bad value now.
  { label: '--timeout -1 account', args: ['--timeout=-1', 'account'], mentions: /^hedge: --timeout: .*"-1"/ },
  { label: '--timeout abc account', args: ['--timeout', 'abc', 'account'], mentions: /^hedge: --timeout: .*"abc"/ },
  {
    label: '--request-timeout -1 account',
    args: ['--request-timeout', '-1', 'account'],
    mentions: /^hedge: --request-timeout: .*"-1"/,
  },
  {
    label: '--profile nope account (store has "desk")',
    args: ['--profile', 'nope', 'account'],
    withProfile: true,
    mentions: /^hedge: --profile: no profile named "nope" \(profiles: desk\)/,
  },
  {
    label: 'HEDGE_PROFILE=nope account (store has "desk")',
    args: ['account'],
    env: { HEDGE_PROFILE: 'nope' },
    withProfile: true,
    mentions: /no profile named "nope"/,
  },
  {
    label: '--profile "bad name!" account',
    args: ['--profile', 'bad name!', 'account'],
    mentions: /^hedge: --profile: "bad name!" is not a profile name/,
  },
  {
    label: 'HEDGE_BASE_URL=http://api.example.com/v2 account',
    args: ['account'],
    env: { HEDGE_BASE_URL: 'http://api.example.com/v2' },
    mentions: /Refusing plain http:\/\/ to api\.example\.com/,
  },
  {
    label: 'HEDGE_BASE_URL=not-a-url account',
    args: ['account'],
    env: { HEDGE_BASE_URL: 'not-a-url' },
    mentions: /HEDGE_BASE_URL is not a URL/,
  },
  {
    label: 'HEDGE_BASE_URL=ftp://127.0.0.1/v2 account',
    args: ['account'],
    env: { HEDGE_BASE_URL: 'ftp://127.0.0.1/v2' },
    mentions: /must use https:\/\//,
  },
  {
    label: '--demo quote USDTNGN hold 1000 --tenor 3',
    args: ['--demo', 'quote', 'USDTNGN', 'hold', '1000', '--tenor', '3'],
    mentions: /^hedge: side: "hold"/,
  },
  // profiles, login, completion, sandbox
  {
    label: 'profile use nope (store has "desk")',
    args: ['profile', 'use', 'nope'],
    withProfile: true,
    mentions: /^hedge: name: no profile named "nope"/,
  },
  { label: 'profile use', args: ['profile', 'use'], mentions: /^hedge: missing required argument 'name'/ },
  {
    label: 'profile remove nope (store has "desk")',
    args: ['profile', 'remove', 'nope'],
    withProfile: true,
    mentions: /no profile named "nope"/,
  },
  { label: 'profile bogus', args: ['profile', 'bogus'], mentions: /^hedge: unknown command 'bogus'/ },
  {
    label: 'login --profile x --base-url http://api.example.com/v2 (key on stdin)',
    args: ['login', '--profile', 'x', '--base-url', 'http://api.example.com/v2'],
    input: 'hpk_test_AAAAAAAAAAAAAAAAAAAAAAAA\n',
    mentions: /Refusing plain http:\/\/ to api\.example\.com/,
  },
  {
    label: 'login --profile x --base-url not-a-url (key on stdin)',
    args: ['login', '--profile', 'x', '--base-url', 'not-a-url'],
    input: 'hpk_test_AAAAAAAAAAAAAAAAAAAAAAAA\n',
    mentions: /--base-url is not a URL/,
  },
  {
    label: 'login --base-url https://127.0.0.1/v2 --ca-file /nonexistent.pem (key on stdin)',
    args: ['login', '--base-url', 'https://127.0.0.1/v2', '--ca-file', '/nonexistent.pem'],
    input: 'hpk_test_AAAAAAAAAAAAAAAAAAAAAAAA\n',
    mentions: /^hedge: --ca-file: no such file/,
  },
  {
    label: 'login --api-key hpk_test_… (keys are never a flag)',
    args: ['login', '--api-key', 'hpk_test_AAAAAAAAAAAAAAAAAAAAAAAA'],
    mentions: /^hedge: unknown option '--api-key=?/,
  },
  { label: 'whoami extra', args: ['whoami', 'extra'], mentions: /^hedge: too many arguments for 'whoami'/ },
  { label: 'logout extra', args: ['logout', 'extra'], mentions: /^hedge: too many arguments for 'logout'/ },
  { label: 'completion tcsh', args: ['completion', 'tcsh'], mentions: /^hedge: shell: .*bash, zsh, fish/ },
  { label: 'completion', args: ['completion'], mentions: /^hedge: missing required argument 'shell'/ },
  {
    label: 'completion bash zsh',
    args: ['completion', 'bash', 'zsh'],
    mentions: /^hedge: too many arguments for 'completion'/,
  },
  {
    label: 'completion bash --fields name',
    args: ['completion', 'bash', '--fields', 'name'],
    mentions: /^hedge: --fields: `hedge completion` prints a shell script, which has no fields to pick/,
  },
  {
    label: 'sandbox serve --fault-5xx 2',
    args: ['sandbox', 'serve', '--fault-5xx', '2'],
    mentions: /^hedge: --fault-5xx: "2"/,
  },
  {
    label: 'sandbox serve --host 0.0.0.0',
    args: ['sandbox', 'serve', '--host', '0.0.0.0'],
    mentions: /^hedge: --host: "0\.0\.0\.0" .*loopback/,
  },
];

/** "quote … (a note)" → the command as typed, and the note shown beside it in the table. */
function splitLabel(label: string): { command: string; note: string } {
  const match = /^(.*?)(?: \(([^()]*)\))?$/.exec(label)!;
  return { command: match[1]!, note: match[2] ?? '' };
}

function writeDeskProfile(sim: Simulator): void {
  mkdirSync(sim.configDir, { recursive: true, mode: 0o700 });
  const store = { current: 'desk', profiles: { desk: { base_url: sim.sandbox.baseUrl, api_key: sim.sandbox.apiKey } } };
  writeFileSync(join(sim.configDir, 'config.json'), `${JSON.stringify(store, null, 2)}\n`, { mode: 0o600 });
}

describe('bad input: exit 2, one line on stderr, nothing sent', () => {
  it.concurrent.each(ROWS.map((row, index) => ({ ...row, index })))('$label', async (row) => {
    const { command, note } = splitLabel(row.label);
    await results.track(
      {
        suite: 'bad-input',
        order: row.index,
        name: command,
        // The label starts with the environment it sets (VAR=value command), as a shell line would.
        injected: note,
        expected: 'exit 2; one line on stderr; nothing on stdout; 0 requests',
      },
      async (observation) => {
        const sim = await startSimulator({ preset: 'reliability' });
        try {
          if (row.withProfile) writeDeskProfile(sim);
          const result = await sim.hedge(row.args, { env: row.env, input: row.input });
          const stderrLines = lines(result.stderr);
          const requests = sim.sandbox.requestLog.length;
          observation.observed = `exit ${result.code}, ${stderrLines.length} line${stderrLines.length === 1 ? '' : 's'}, ${requests} requests`;
          observation.output = stderrLines.join(' ⏎ ');
          expect(result.code, result.stderr).toBe(2);
          expect(stderrLines, result.stderr).toHaveLength(1);
          expect(result.stderr.endsWith('\n')).toBe(true);
          expect(stderrLines[0]).toMatch(row.mentions);
          expect(result.stdout).toBe('');
          expect(requests).toBe(0);
        } finally {
          await sim.close();
        }
      },
    );
  });
});

interface GoodRow {
  label: string;
  args: string[];
  method: string;
  path: string;
  /** What the server must have received: the normalised request. */
  received: (entry: { body: unknown; query: Record<string, string> }) => unknown;
  expected: unknown;
}

const NORMALISED: GoodRow[] = [
  {
    label: 'quote usdtngn buy 1000 --tenor 3 (lower case)',
    args: ['quote', 'usdtngn', 'buy', '1000', '--tenor', '3', '--json'],
    method: 'POST',
    path: '/quotes',
    received: (entry) => entry.body,
    expected: { market: 'USDTNGN', side: 'buy', notional_usd: 1000, tenor_days: 3 },
  },
  {
    label: 'quote " USDTNGN " " Sell " 10_000 --tenor 7d (spaces, case, separators)',
    args: ['quote', ' USDTNGN ', ' Sell ', '10_000', '--tenor', '7d', '--json'],
    method: 'POST',
    path: '/quotes',
    received: (entry) => entry.body,
    expected: { market: 'USDTNGN', side: 'sell', notional_usd: 10000, tenor_days: 7 },
  },
  {
    label: 'price " usdtngn " (spaces, lower case)',
    args: ['price', ' usdtngn ', '--json'],
    method: 'GET',
    path: '/prices',
    received: (entry) => entry.query,
    expected: { symbols: 'USDTNGN' },
  },
  {
    label: 'hedges --status FILLED --limit 500 (case, the upper bound)',
    args: ['hedges', '--status', 'FILLED', '--limit', '500', '--json'],
    method: 'GET',
    path: '/hedges',
    received: (entry) => entry.query,
    expected: { status: 'filled', limit: '500' },
  },
];

describe('input that looks odd but is fine: normalised and sent', () => {
  it.concurrent.each(NORMALISED.map((row, index) => ({ ...row, index })))('$label', async (row) => {
    const { command, note } = splitLabel(row.label);
    await results.track(
      {
        suite: 'bad-input',
        order: 1000 + row.index,
        name: command,
        injected: note,
        expected: `exit 0; the server receives the normalised request ${JSON.stringify(row.expected)}`,
      },
      async (observation) => {
        const sim = await startSimulator({ preset: 'reliability' });
        try {
          const result = await sim.hedge(row.args);
          const sent = sim.requests(row.method, row.path);
          observation.observed = `exit ${result.code}; ${row.method} ${row.path} received ${sent.length ? JSON.stringify(row.received(sent[0]!)) : 'nothing'}`;
          expect(result.code, result.stderr).toBe(0);
          expect(sent).toHaveLength(1);
          expect(row.received(sent[0]!)).toEqual(row.expected);
        } finally {
          await sim.close();
        }
      },
    );
  });
});
