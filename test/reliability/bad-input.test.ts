// A mistyped command sends nothing. Every row: exit 2, exactly one line on stderr naming what was
// wrong, nothing on stdout, and not one request received by a live sandbox the CLI is pointed at
// (its request log stays empty). A few rows that look odd but are fine (lower case, spaces around a
// market) normalise and succeed: those are asserted separately, with the normalised request.
import { exits, ok } from '../support/cli-runs.js';
import { ResultRecorder } from './recorder.js';
import { writeStore } from '../support/config-store.js';
import { lines } from '../support/output/text.js';

const results = new ResultRecorder(import.meta.url);

const LONG = 'A'.repeat(10_000);
const LONG_NUMBER = `1${'0'.repeat(9_999)}`;
/** "USDTNGN" with a Cyrillic Т (U+0422) in place of the Latin T. */
const CYRILLIC_T = 'USD\u0422NGN';
/** "USDTNGN" with a Cyrillic Ѕ (U+0405) in place of the Latin S. */
const CYRILLIC_S = 'U\u0405DTNGN';

interface RowExtra {
  /** The words run, where the command line shown abbreviates them; else read from it (quoted words, VAR=value first). */
  args?: string[];
  input?: string;
  /** The config store holds a profile named "desk" (for the profile rows). */
  withProfile?: boolean;
}

/** The note and extra of a login row that reads its key from stdin, and of a row whose store holds "desk". */
const KEY_ON_STDIN = ['key on stdin', { input: 'hpk_test_AAAAAAAAAAAAAAAAAAAAAAAA\n' }] as const;
const WITH_DESK = ['store has "desk"', { withProfile: true }] as const;

/** The command line as shown in the table, what its one stderr line must match (naming the argument), a note. */
type BadRow = [line: string, mentions: RegExp, note?: string, extra?: RowExtra];

const ROWS: BadRow[] = [
  // quote
  ['quote USDTNGN hold 1000 --tenor 3', /^hedge: side: "hold" .*buy or sell/],
  ['quote USDTNGN buy 1000 --tenor 2', /^hedge: --tenor: "2" .*1, 3 or 7/],
  ['quote USDTNGN buy 0 --tenor 3', /^hedge: notional: "0" .*positive/],
  ['quote USDTNGN buy -1 --tenor 3', /^hedge: notional: "-1"/],
  ['quote USDTNGN buy abc --tenor 3', /^hedge: notional: "abc"/],
  ['quote USDTNGN buy 1e400 --tenor 3', /^hedge: notional: "1e400"/],
  ['quote USDTNGN buy NaN --tenor 3', /^hedge: notional: "NaN"/],
  ['quote USDTNGN buy Infinity --tenor 3', /^hedge: notional: "Infinity"/],
  ['quote USDTNGN buy 1.005 --tenor 3', /^hedge: notional: "1\.005" .*decimals/],
  ['quote "" buy 1000 --tenor 3', /^hedge: market: missing/],
  ['quote USDTNGN "" 1000 --tenor 3', /^hedge: side: missing/],
  ['quote USDTNGN buy "" --tenor 3', /^hedge: notional: missing/],
  ['quote USDTNGN buy 1000 --tenor ""', /^hedge: --tenor: missing/],
  ['quote USDTNGN buy 1000', /^hedge: --tenor: missing/, 'no --tenor'],
  [
    'quote USDTNGN buy 1000 --tenor 3 --bogus',
    /^hedge: unknown option '--bogus'; the closest is --[a-z-]+, and `hedge quote --help` lists every option\.$/,
  ],
  [
    'quote USDTNGN buy 1000 --tenr 3',
    /^hedge: unknown option '--tenr' \(did you mean --tenor\?\); `hedge quote --help` lists every option\.$/,
    'typo',
  ],
  ['quote USDTNGN buy 1000 5000 --tenor 3', /^hedge: too many arguments for 'quote'/],
  ['quote USDTNGN buy', /^hedge: missing required argument 'notional'/],
  [`quote ${CYRILLIC_T} buy 1000 --tenor 3`, /^hedge: market: .*look-alike/, 'Cyrillic Т'],
  [
    'quote USDTNGN buy 1000…000 --tenor 3',
    /^hedge: notional: .*\(10000 characters\)/,
    'a notional of 10 000 digits',
    { args: ['quote', 'USDTNGN', 'buy', LONG_NUMBER, '--tenor', '3'] },
  ],
  // open
  ['open USDTNGN long 1000 --tenor 3', /^hedge: side: "long"/],
  ['open USDTNGN buy 1000 --tenor 30', /^hedge: --tenor: "30"/],
  ['open USDTNGN buy 0 --tenor 3', /^hedge: notional: "0"/],
  ['open USDTNGN buy 1000', /^hedge: missing --tenor/, 'no --tenor, no terminal'],
  ['open', /^hedge: missing MARKET, SIDE, NOTIONAL, --tenor/, 'no arguments, no terminal'],
  [`open ${CYRILLIC_S} buy 1000 --tenor 3`, /^hedge: market: .*look-alike/, 'Cyrillic Ѕ'],
  ['open USDTNGN buy 1000 --tenor 3 --ref ""', /^hedge: --ref: ""/],
  [
    'open USDTNGN buy 1000 --tenor 3 --ref AAA…A',
    /^hedge: --ref: .*\(10000 characters\)/,
    '10 000 characters',
    { args: ['open', 'USDTNGN', 'buy', '1000', '--tenor', '3', '--ref', LONG] },
  ],
  [
    "open USDTNGN buy 1000 --tenor 3 --ref $'DEAL\\n42'",
    /^hedge: --ref: "DEAL\\n42"/,
    'a line break',
    { args: ['open', 'USDTNGN', 'buy', '1000', '--tenor', '3', '--ref', 'DEAL\n42'] },
  ],
  ['open USDTNGN buy 1000 --tenor 3 --idempotency-key "not a key"', /^hedge: --idempotency-key: "not a key"/],
  // add, reduce, close
  ['add USDTNGN buy -1', /^hedge: notional: "-1"/],
  ['add USDTNGN sideways 10', /^hedge: side: "sideways"/],
  ['add USDTNGN buy 1e400', /^hedge: notional: "1e400"/],
  ['add USDTNGN buy', /^hedge: missing required argument 'notional'/],
  ['reduce USDTNGN buy NaN', /^hedge: notional: "NaN"/],
  ['reduce USDTNGN buy 0', /^hedge: notional: "0"/],
  ['reduce USDTNGN buy 100 200', /^hedge: too many arguments for 'reduce'/],
  ['close USDTNGN', /^hedge: missing required argument 'side'/],
  ['close USDTNGN buy sell', /^hedge: too many arguments for 'close'/],
  ['close USDTNGN hold', /^hedge: side: "hold"/],
  ['close "USD NGN" buy', /^hedge: market: "USD NGN" is not a market name/],
  // output options of a write, checked before anything is sent
  [
    'close USDTNGN buy --fields nope',
    /^hedge: --fields: "nope" is not a field of what `hedge close` prints; allowed: hedge_id, /,
  ],
  ['open USDTNGN buy 1000 --tenor 3 --query "[?"', /^hedge: --query "\[\?": .*; expected a JMESPath expression/],
  // hedges, history
  ['hedges --limit 501', /^hedge: --limit: "501" .*1 to 500/],
  ['hedges --limit 0', /^hedge: --limit: "0"/],
  ['hedges --limit 1.5', /^hedge: --limit: "1\.5"/],
  ['hedges x/y', /^hedge: id: "x\/y" is not a hedge id/, 'not an id'],
  ['hedges hdg_!!', /^hedge: id: "hdg_!!"/, 'bad id characters'],
  ['hedges --status pending', /^hedge: --status: "pending" .*submitting, submitted, filled, failed, closed/],
  ['hedges --status ""', /^hedge: --status: ""/],
  ['hedges hdg_abc --status filled', /^hedge: --status: .*cannot be combined with a hedge ID/],
  ['hedges --wait', /^hedge: --wait: needs a hedge ID/, 'no id'],
  ['history --limit 501', /^hedge: --limit: "501"/],
  ['history --limit 0', /^hedge: --limit: "0"/],
  ['history extra', /^hedge: too many arguments for 'history'/],
  // a read: a name that is no field name at all is refused before the read
  [
    'hedges --fields "id status"',
    /^hedge: --fields: "id status" is not a field name; expected names of letters, digits/,
    'a space, not a comma',
  ],
  // price, positions, account, markets
  [`price ${CYRILLIC_T}`, /^hedge: market: .*look-alike/, 'Cyrillic Т'],
  ['price "USD NGN"', /^hedge: market: "USD NGN"/],
  ['price AAA…A', /^hedge: market: .*\(10000 characters\)/, '10 000 characters', { args: ['price', LONG] }],
  ['price USDTNGN extra', /^hedge: too many arguments for 'price'/],
  ['positions --limit 5', /^hedge: unknown option '--limit'/],
  ['account extra', /^hedge: too many arguments for 'account'/],
  [
    'markets --verbos',
    /^hedge: unknown option '--verbos' \(did you mean --verbose\?\); `hedge markets --help` lists every option\.$/,
    'typo',
  ],
  ['bogus', /^hedge: unknown command 'bogus'/, 'unknown command'],
  // global options and environment
  ['--timeout -3 account', /^hedge: --timeout: .*"-3"/],
  // `--timeout 0` means "no bound"; a negative number is the bad value now.
  ['--timeout -1 account', /^hedge: --timeout: .*"-1"/, '', { args: ['--timeout=-1', 'account'] }],
  ['--timeout abc account', /^hedge: --timeout: .*"abc"/],
  ['--request-timeout -1 account', /^hedge: --request-timeout: .*"-1"/],
  ['--profile nope account', /^hedge: --profile: no profile named "nope" \(profiles: desk\)/, ...WITH_DESK],
  ['HEDGE_PROFILE=nope account', /no profile named "nope"/, ...WITH_DESK],
  ['--profile "bad name!" account', /^hedge: --profile: "bad name!" is not a profile name/],
  ['HEDGE_BASE_URL=http://api.example.com/v2 account', /Refusing plain http:\/\/ to api\.example\.com/],
  ['HEDGE_BASE_URL=not-a-url account', /HEDGE_BASE_URL is not a URL/],
  ['HEDGE_BASE_URL=ftp://127.0.0.1/v2 account', /must use https:\/\//],
  ['--demo quote USDTNGN hold 1000 --tenor 3', /^hedge: side: "hold"/],
  // profiles, login, completion, sandbox
  ['profile use nope', /^hedge: name: no profile named "nope"/, ...WITH_DESK],
  ['profile use', /^hedge: missing required argument 'name'/],
  ['profile remove nope', /no profile named "nope"/, ...WITH_DESK],
  ['profile bogus', /^hedge: unknown command 'bogus'/],
  [
    'login --profile x --base-url http://api.example.com/v2',
    /Refusing plain http:\/\/ to api\.example\.com/,
    ...KEY_ON_STDIN,
  ],
  ['login --profile x --base-url not-a-url', /--base-url is not a URL/, ...KEY_ON_STDIN],
  [
    'login --base-url https://127.0.0.1/v2 --ca-file /nonexistent.pem',
    /^hedge: --ca-file: no such file/,
    ...KEY_ON_STDIN,
  ],
  [
    'login --api-key hpk_test_…',
    /^hedge: unknown option '--api-key=?/,
    'keys are never a flag',
    { args: ['login', '--api-key', 'hpk_test_AAAAAAAAAAAAAAAAAAAAAAAA'] },
  ],
  ...(
    [
      ['--key-store vault', /^hedge: --key-store: "vault" is not a place for the key; expected keyring or file\.$/],
      [
        '--key-command "echo hpk_test_AAAAAAAAAAAAAAAAAAAAAAAA"',
        /^hedge: --key-command: the command holds an API key itself; name a command that fetches it \(`pass show …`, `op read …`\), so the key stays out of the command line and the config file\.$/,
      ],
      [
        '--key-command "cat key.txt" --key-store file',
        /^hedge: --key-store: a key from --key-command is not stored by hedge; give one of the two\.$/,
      ],
      [
        '--move-key --base-url https://x.example/v2',
        /^hedge: --move-key: moves the stored key only \(with --key-store keyring or file\); leave out --base-url\.$/,
      ],
    ] as const
  ).map(([flags, says]): BadRow => [`login --profile desk ${flags}`, says, ...KEY_ON_STDIN]),
  [
    'report --html -',
    /^hedge: --html: "-" is not written to stdout; expected a file path \(\.\/- for a file named -\)\.$/,
  ],
  [
    'exposures x.csv --html x.html',
    /^hedge: --html: only with --report \(the HTML file is the report of coverage, cost and effectiveness\)\.$/,
  ],
  [
    'keep x.csv --policy p.json --once',
    /^hedge: --policy: only with --exposures \(the policy turns exposures into a target\)\.$/,
  ],
  ['whoami extra', /^hedge: too many arguments for 'whoami'/],
  ['logout extra', /^hedge: too many arguments for 'logout'/],
  ['completion tcsh', /^hedge: shell: .*bash, zsh, fish/],
  ['completion', /^hedge: missing required argument 'shell'/],
  ['completion bash zsh', /^hedge: too many arguments for 'completion'/],
  [
    'completion bash --fields name',
    /^hedge: --fields: `hedge completion` prints a shell script, which has no fields to pick/,
  ],
  ['sandbox serve --fault-5xx 2', /^hedge: --fault-5xx: "2"/],
  ['sandbox serve --host 0.0.0.0', /^hedge: --host: "0\.0\.0\.0" .*loopback/],
];

/** A shown command line's words, `"…"` one word, and the VAR=value words before them its environment. */
function commandOf(line: string, extra: RowExtra = {}) {
  const words = [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2]);
  const env: Record<string, string> = {};
  while (/^[A-Z_]+=/.test(words[0] ?? '')) {
    const [name, ...value] = words.shift()!.split('=');
    env[name] = value.join('=');
  }
  return { args: extra.args ?? words, env };
}

const labelled = <Row extends [string, unknown, string?, ...unknown[]]>(rows: Row[]) =>
  rows.map((row, index) => ({ row, index, label: row[2] ? `${row[0]} (${row[2]})` : row[0] }));

describe('bad input: exit 2, one line on stderr, nothing sent', () => {
  it.concurrent.each(labelled(ROWS))('$label', ({ row: [line, mentions, note = '', extra = {}], index }) =>
    results.onSimulator(
      {
        suite: 'bad-input',
        order: index,
        name: line,
        injected: note,
        expected: 'exit 2; one line on stderr; nothing on stdout; 0 requests',
      },
      async (sim, observation) => {
        if (extra.withProfile)
          writeStore(sim.configDir, {
            current: 'desk',
            profiles: { desk: { base_url: sim.sandbox.baseUrl, api_key: sim.sandbox.apiKey } },
          });
        const { args, env } = commandOf(line, extra);
        const result = await sim.hedge(args, { env, input: extra.input });
        const stderrLines = lines(result.stderr);
        const requests = sim.sandbox.requestLog.length;
        observation.observed = `exit ${result.code}, ${stderrLines.length} line${stderrLines.length === 1 ? '' : 's'}, ${requests} requests`;
        observation.output = stderrLines.join(' ⏎ ');
        exits(result, 2);
        expect(stderrLines, result.stderr).toHaveLength(1);
        expect(result.stderr.endsWith('\n')).toBe(true);
        expect(stderrLines[0]).toMatch(mentions);
        expect([result.stdout, requests]).toEqual(['', 0]);
      },
    ),
  );
});

/** The command line (run with --json), a note, and the normalised request the server must receive: a POST's body, a GET's query. */
const NORMALISED: Array<[line: string, note: string, method: string, path: string, expected: unknown]> = [
  [
    'quote usdtngn buy 1000 --tenor 3',
    'lower case',
    'POST',
    '/quotes',
    { market: 'USDTNGN', side: 'buy', notional_usd: 1000, tenor_days: 3 },
  ],
  [
    'quote " USDTNGN " " Sell " 10_000 --tenor 7d',
    'spaces, case, separators',
    'POST',
    '/quotes',
    { market: 'USDTNGN', side: 'sell', notional_usd: 10000, tenor_days: 7 },
  ],
  ['price " usdtngn "', 'spaces, lower case', 'GET', '/prices', { symbols: 'USDTNGN' }],
  ['hedges --status FILLED --limit 500', 'case, the upper bound', 'GET', '/hedges', { status: 'filled', limit: '500' }],
];

describe('input that looks odd but is fine: normalised and sent', () => {
  it.concurrent.each(labelled(NORMALISED))('$label', ({ row: [line, note, method, path, want], index }) =>
    results.onSimulator(
      {
        suite: 'bad-input',
        order: 1000 + index,
        name: line,
        injected: note,
        expected: `exit 0; the server receives the normalised request ${JSON.stringify(want)}`,
      },
      async (sim, observation) => {
        const result = await sim.hedge([...commandOf(line).args, '--json']);
        const sent = sim.requests(method, path).map((entry) => (method === 'POST' ? entry.body : entry.query));
        observation.observed = `exit ${result.code}; ${method} ${path} received ${sent.length ? JSON.stringify(sent[0]) : 'nothing'}`;
        ok(result);
        expect(sent).toEqual([want]);
      },
    ),
  );
});
