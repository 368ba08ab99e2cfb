// The front parses argv with the typed command's branch alone when argv names one plainly, and
// with the whole tree otherwise or on any problem (src/cli/main.ts parseCommandLine). Whatever the
// argv, the outcome must be the whole tree's: the same command, input and globals, the same usage
// problem word for word, the same help printed. Checked here over every command path, its examples
// and argv shaped to trip a scanner (a global option's value named like a command, `--`, typos).
import { PassThrough } from 'node:stream';
import { parseCommandLine, typedCommand } from '../../src/cli/main.js';
import { COMMANDS } from '../../src/cli/manifest.js';
import { commandPaths } from '../../src/cli/runner/command-spec.js';
import { collector } from '../support/output/fake-output.js';

async function parsedBy(argv: string[], wholeTree: boolean) {
  const [out, err] = [collector(), collector()];
  const io = {
    stdout: out.stream,
    stderr: err.stream,
    stdin: new PassThrough(),
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
  };
  const parsed = await parseCommandLine([...argv], io, 80, 'hedge', wholeTree);
  // The spec is compared by its path (the objects are the manifest's own either way).
  const comparable =
    'invocation' in parsed ? { invocation: { ...parsed.invocation, spec: parsed.invocation.spec.name } } : parsed;
  return { parsed: comparable, out: out.text(), err: err.text() };
}

const tree = commandPaths(COMMANDS);
const examples = tree.flatMap(({ spec }) =>
  spec.examples.map((example) =>
    example
      .replace(/^hedge\s+/, '')
      .split(/\s+/)
      .filter(Boolean),
  ),
);
const words = (line: string) => line.split(' ');
const shapes = [
  ...tree.flatMap(({ path }) => [
    path,
    [...path, '--help'],
    [...path, ...words('one two three four five six')],
    ['--profile', 'quote', ...path, '--json'],
    ['--timeout=5', '--demo', ...path, '--bogus'],
    ['--format', 'markets', ...path],
  ]),
  ...examples,
  ...[
    'quot USDTNGN buy 10000',
    '-- quote USDTNGN buy 10000',
    'help quote',
    '--demo',
    '--jsn quote USDTNGN buy 10000 --tenor 3',
    'quote USDTNGN buy 10000 --tenor 3 --profile',
    '-V',
  ].map(words),
];

it(`the typed branch against the whole tree: parses ${shapes.length} command lines exactly as the whole tree does`, async () => {
  let invocations = 0;
  for (const argv of shapes) {
    const branch = await parsedBy(argv, false);
    expect(branch, argv.join(' ')).toEqual(await parsedBy(argv, true));
    if (typeof branch.parsed === 'object' && branch.parsed !== null && 'invocation' in (branch.parsed as object))
      invocations++;
  }
  // The shapes reach commands, not only problems: every example is a command line that runs.
  expect(invocations).toBeGreaterThan(examples.length / 2);
});

it('the typed branch against the whole tree: finds the command word past global options and their values', () => {
  expect(
    ['--profile quote markets', '--timeout=5 --demo quote USDTNGN', '--json journal list'].map(
      (line) => typedCommand(words(line))?.name,
    ),
  ).toEqual(['markets', 'quote', 'journal']);
  for (const line of ['-- quote', 'quot', '--demo']) expect(typedCommand(words(line)), line).toBeUndefined();
});
