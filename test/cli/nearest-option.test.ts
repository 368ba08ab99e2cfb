// An unknown option is one line naming the closest option (edit distance over the command's own
// options and the global ones) and the command's help, whether or not it is close
// enough to be a typo; the parser's problems are the JSON error only when JSON was asked for by name.
// Habits of gh and Stripe (--jq, -q, --key, version, auth login, config) and arguments typed where an
// option or another command was meant get the line that does it, with the global options typed kept.
import { jsonErrorsAsked } from '../../src/cli/globals.js';
import { editDistance, nearestOption, unknownOptionMessage } from '../../src/cli/nearest-option.js';
import { runMainInProcess } from '../support/hedge-in-process.js';

it('the closest option counts a swap of two neighbours as one edit, as a person mistypes', () => {
  expect([
    editDistance('tenor', 'tneor'),
    editDistance('tenor', 'tenr'),
    editDistance('', 'json'),
    editDistance('json', 'json'),
  ]).toEqual([1, 1, 4, 0]);
});

it('the closest option is the nearest of the candidates, the first given on a tie; "likely" only when close', () => {
  expect([
    nearestOption('--tenr', ['--tenor', '--ref', '--json']),
    nearestOption('--jsn=1', ['--json', '--yes']),
  ]).toEqual([
    { flag: '--tenor', likely: true },
    { flag: '--json', likely: true },
  ]);
  // --bogus is far from all of them: still named, not as a typo.
  expect(nearestOption('--bogus', ['--tenor', '--demo', '--yes'])).toMatchObject({ likely: false });
  // A tie goes to the first candidate: the caller lists the command's own options before the global ones.
  expect([nearestOption('--ab', ['--ax', '--ay'])?.flag, nearestOption('--x', [])]).toEqual(['--ax', undefined]);
});

it("the closest option is said in one line with the command's help; a value typed with = is not repeated", () => {
  expect([
    unknownOptionMessage('--api-keys=hpk_test_secret', ['--base-url'], ['login']),
    unknownOptionMessage('--x', [], []),
  ]).toEqual([
    "unknown option '--api-keys'; the closest is --base-url, and `hedge login --help` lists every option.",
    "unknown option '--x'; `hedge --help` lists the options.",
  ]);
});

const run = (argv: string[]) => runMainInProcess(argv, {}, '');

// A command's own option (quote --tenr) and one far from all (--bogus): test/reliability/bad-input.test.ts.
it("hedge with an unknown option (the parser, in-process): a global option is a candidate too, and a subcommand's help is named by its whole path; exit 2; the JSON error with --json or --format json|ndjson, and one line otherwise", async () => {
  expect(await run('journal show a_x --jsno'.split(' '))).toMatchObject({
    code: 2,
    stderr: "hedge: unknown option '--jsno' (did you mean --json?); `hedge journal show --help` lists every option.\n",
  });
  for (const asked of [['--json'], ['--format', 'json'], ['--format=ndjson']]) {
    const result = await run(['markets', '--bogus', ...asked]);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stderr).error).toMatchObject({ code: 'usage', class: 'usage' });
  }
  // --query makes the data JSON, not the errors.
  expect((await run('markets --bogus --query length(@)'.split(' '))).stderr).toMatch(
    /^hedge: unknown option '--bogus'/,
  );
});

it('hedge with an unknown option (the parser, in-process): jsonErrorsAsked reads --json and a JSON --format off the command line', () => {
  for (const [value, expected] of [
    [['markets', '--json'], true],
    [['--format', 'ndjson', 'markets'], true],
    [['markets', '--format=json'], true],
    ['markets --format csv --query x'.split(' '), false],
    [['markets', '--raw'], false],
  ] as const)
    expect(jsonErrorsAsked(value), String(value)).toBe(expected);
});

// Each: the command line typed, and the one line said (exit 2, nothing run). The built CLI's main(), in-process.
it.each([
  [
    '--demo --jq .[0] markets',
    'hedge: unknown option \'--jq\': hedge filters JSON with --query (a JMESPath expression), e.g. --query "[].market"; `hedge --demo --help` lists every option.',
  ],
  [
    'markets -q [].market',
    'hedge: unknown option \'-q\': hedge filters JSON with --query (a JMESPath expression), e.g. --query "[].market"; `hedge markets --help` lists every option.',
  ],
  [
    'login --profile desk --key hpk_test_AAAAAAAAAAAAAAAAAAAAAAAA',
    "hedge: unknown option '--key': the API key is never an option: `hedge login` reads it from standard input or the prompt (hidden); `hedge --profile desk login --help` lists every option.",
  ],
  ['--demo version', "hedge: unknown command 'version'; hedge's is `hedge --demo --version`."],
  ['auth login --profile desk', "hedge: unknown command 'auth login'; hedge's is `hedge login --profile desk`."],
  ['--profile desk auth status', "hedge: unknown command 'auth status'; hedge's is `hedge --profile desk whoami`."],
  ['config', "hedge: unknown command 'config'; hedge's is `hedge profile`."],
  ['--demo watch', "hedge: unknown command 'watch'; hedge's is `hedge --demo positions --watch`."],
  ['watch 5 --profile desk', "hedge: unknown command 'watch'; hedge's is `hedge positions --watch 5 --profile desk`."],
  [
    '--demo quote USDTNGN buy 10000 3',
    "hedge: too many arguments for 'quote'. Expected 3 arguments but got 4; did you mean `hedge --demo quote USDTNGN buy 10000 --tenor 3`?",
  ],
  [
    'roll USDTNGN buy 7d --json',
    '{"error":{"code":"usage","class":"usage","message":"too many arguments for \'roll\'. Expected 2 arguments but got 3; did you mean `hedge roll USDTNGN buy --tenor 7d --json`?","details":{},"status":null}}',
  ],
  [
    "--demo --query [?status=='open'] markets USDTNGN",
    "hedge: too many arguments for 'markets'. Expected 0 arguments but got 1; did you mean `hedge --demo --query '[?status=='\\''open'\\'']' price USDTNGN`?",
  ],
  [
    '--demo quote',
    "hedge: missing required argument 'market'; usage: `hedge --demo quote [options] <market> <side> <notional>`, e.g. `hedge --demo quote USDTNGN buy 10000 --tenor 3`.",
  ],
  [
    '--profile desk close USDTNGN buy 3',
    "hedge: too many arguments for 'close'. Expected 2 arguments but got 3; usage: `hedge --profile desk close [options] <market> <side>`, e.g. `hedge --profile desk close USDTNGN buy`.",
  ],
  [
    'quote USDTNGN buy 1000 5000 --tenor 3',
    "hedge: too many arguments for 'quote'. Expected 3 arguments but got 4; usage: `hedge quote [options] <market> <side> <notional>`, e.g. `hedge quote USDTNGN buy 10000 --tenor 3`.",
  ],
])('hedge %s: one line with the line that does it', async (line, said) => {
  expect(await run(line.split(' '))).toMatchObject({ code: 2, stdout: '', stderr: `${said}\n` });
});
