// An unknown option is one line naming the closest option (edit distance over the command's own
// options and the global ones) and the command's help, whether or not it is close
// enough to be a typo; the parser's problems are the JSON error only when JSON was asked for by name.
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
    unknownOptionMessage('--api-key=hpk_test_secret', ['--base-url'], ['login']),
    unknownOptionMessage('--x', [], []),
  ]).toEqual([
    "unknown option '--api-key'; the closest is --base-url, and `hedge login --help` lists every option.",
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
