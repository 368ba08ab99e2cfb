// Every argument, option and global of a write is checked before its first request.
// Generated from the command specs: every command the manifest declares as a write (tier `write`),
// run with a valid command line made from its declared arguments, and `hedge api` with a write
// method, × each bad global — an unknown or malformed field name, a broken JMESPath, an impossible
// format combination, --fields where the dry run prints no fields, a bad --until, a bad --timeout.
// Each is exit 2 with one line on stderr naming the option and what is allowed, nothing on stdout,
// and not one request in the simulator's log. Then the same command line without the bad global
// runs, and must reach the server: so it was the bad global, and nothing else, that stopped it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exits, ok } from '../support/cli-runs.js';
import { commandPaths, flagNames, type ArgSpec, type CommandSpec } from '../../src/cli/runner/command-spec.js';
import { COMMANDS, WRITE_OPTIONS } from '../../src/cli/manifest.js';
import { tempDirsInMemory, type RunResult } from '../support/hedge-cli.js';
import { MARKET, withSimulator, type Simulator } from '../support/simulator.js';
import { lines } from '../support/output/text.js';

tempDirsInMemory();

/** A test's simulator: trading fills, hedge on its stepped clock. */
const STEPPED = { stepped: true };

// Every command of the tree that runs (has no subcommands) and writes, with the words that call it (`path`).
const WRITES = commandPaths(COMMANDS).filter(({ spec }) => spec.tier === 'write' && !spec.subcommands);
const DRY_RUN = WRITE_OPTIONS.find((option) => option.key === 'dryRun')!;

/** A valid value for a declared argument; a new kind of argument must be taught here, never skipped. */
function argumentValue(arg: ArgSpec, target: string) {
  if (arg.values === 'market') return MARKET;
  if (Array.isArray(arg.values)) return arg.values[0]!;
  if (arg.name === 'notional') return '1000';
  if (arg.name === 'file') return target;
  throw new Error(
    `checked-before-sending.test.ts does not know how to fill the argument <${arg.name}>: teach argumentValue`,
  );
}

/** The command line from the spec: its arguments, and each option that takes one of fixed values (e.g. --tenor) with its first. */
function validLine(words: string[], spec: CommandSpec, target: string) {
  // An optional argument is given where this test knows a value for it (`open`'s, else it is a
  // wizard), and left out where it does not (`resume [id]`: the newest unresolved action).
  const args = (spec.args ?? []).flatMap((arg) => {
    try {
      return [argumentValue(arg, target)];
    } catch (error) {
      if (arg.required) throw error;
      return [];
    }
  });
  const options = (spec.options ?? []).flatMap((option) => {
    if (option.kind !== 'value' || !Array.isArray(option.values)) return [];
    return [flagNames(option).at(-1)!, option.values[0]!];
  });
  return [...words, ...args, ...options];
}

/**
 * A bad global: what it is, the words added, the one line on stderr (naming the option and what it
 * allows; a pattern, or one made from `words`, the command as typed), and whether it is only for commands with that option
 * (`dryRun`: --dry-run) or answers in JSON (`json`).
 */
type BadGlobal = [
  label: string,
  args: string[],
  says: RegExp | ((words: string, spec: CommandSpec) => RegExp),
  extra?: { dryRun?: true; json?: true },
];

const BAD_GLOBALS: BadGlobal[] = [
  [
    'an unknown field',
    ['--fields', 'nope'],
    (words) =>
      new RegExp(`^hedge: --fields: "nope" is not a field of what \`hedge ${escape(words)}\` prints; allowed: \\w+`),
  ],
  [
    'an unknown field, under --json',
    ['--fields', 'nope', '--json'],
    /^\{"error":\{"code":"usage",.*"message":"--fields: \\"nope\\" is not a field of what/,
    { json: true },
  ],
  [
    'a malformed field name',
    ['--fields', 'id status'],
    /^hedge: --fields: "id status" is not a field name; expected names of letters, digits, _ and -/,
  ],
  [
    'a broken JMESPath',
    ['--query', "[?status=='"],
    /^hedge: --query "\[\?status=='": .*; expected a JMESPath expression \(https:\/\/jmespath\.site\)\.$/,
  ],
  [
    'an unknown JMESPath function',
    ['--query', 'nosuch(@)'],
    /^hedge: --query "nosuch\(@\)": unknown function nosuch\(\); expected a JMESPath expression/,
  ],
  // --json asks for errors as JSON: the one line is the error document.
  [
    '--json with --format csv',
    ['--json', '--format', 'csv'],
    /^\{"error":\{"code":"usage",.*"message":"--json and --format csv disagree; give one of them\."/,
    { json: true },
  ],
  [
    '--query with --format tsv',
    ['--query', 'status', '--format', 'tsv'],
    /^hedge: --query applies to JSON output; --format tsv cannot carry it \(use --format json or ndjson\)\.$/,
  ],
  [
    '--raw with --format csv',
    ['--raw', '--format', 'csv'],
    /^hedge: --raw applies to JSON output .*use --json, or --format json or ndjson/,
  ],
  [
    'an unknown --format',
    ['--format', 'xml'],
    /^hedge: --format: "xml" is not allowed; expected one of table, tsv, csv, json, ndjson\.$/,
  ],
  [
    '--fields on a dry run in a format with no fields',
    ['--dry-run', '--fields', 'method', '--format', 'tsv'],
    /^hedge: --fields: here .* prints the request as HTTP text, which has no fields to pick; add --json/,
    { dryRun: true },
  ],
  [
    'a bad --until',
    ['--until', "status=='filled'"],
    // A write has no --until (it waits by itself): an unknown option; `hedge api` has one, for a GET only.
    (words, spec) =>
      (spec.options ?? []).some((option) => option.key === 'until')
        ? /^hedge: --until reads again until a condition holds; it works with GET only/
        : new RegExp(`^hedge: unknown option '--until'.*\`hedge ${escape(words)} --help\` lists every option\\.$`),
  ],
  // --demo has no profile to take: said, never ignored.
  [
    '--profile with --demo',
    ['--profile', 'desk', '--demo'],
    /^hedge: --profile desk and --demo disagree: --demo runs on the built-in simulator with its own test key, never a profile's; leave out one of them\.$/,
  ],
  [
    'a bad --timeout',
    ['--timeout', 'soon'],
    /^hedge: --timeout: expected a number of seconds from 0 to 86400 \(got "soon"\)\.$/,
  ],
];

// Each with its valid command line (`line`: the bad global is added after it).
const CASES = [
  ...WRITES.map(({ path: words, spec }) => ({
    name: words.join(' '),
    words,
    spec,
    line: (target: string) => validLine(words, spec, target),
  })),
  // A write through `hedge api` (tier local: it writes only with a method that does).
  {
    name: 'api -X POST',
    words: ['api'],
    spec: COMMANDS.find((spec) => spec.name === 'api')!,
    line: () => ['api', '-X', 'POST', '/hedges/close', '-f', `market=${MARKET}`, '-f', 'side=buy'],
  },
];

/** What the valid line needs on the server to do its work: an open buy side, a target file, an unresolved action. */
async function prepare(simulator: Simulator, words: string[]) {
  // A side to add to, reduce, close or roll (the valid lines use the first side, buy).
  if (['add', 'reduce', 'close', 'roll', 'api'].includes(words[0])) simulator.seedOpen('buy', 10_000);
  const target = join(simulator.configDir, 'target.csv');
  writeFileSync(target, `market,side,notional_usd,tenor_days\n${MARKET},sell,2000,3\n`);
  if (words[0] === 'resume') {
    // An open that landed while its answer was lost (exit 5, journaled unknown): `hedge resume` finishes it.
    // The run lets go of its unresolved action as it ends, so `resume` may take it up.
    simulator.sandbox.setFaults({ dropAfterCommit: 1, match: { method: 'POST', path: '/hedges' } });
    const lost = await simulator.hedge('open USDTNGN sell 1000 --tenor 1');
    simulator.sandbox.setFaults({ dropAfterCommit: 0, match: null });
    exits(lost, 5);
  }
  return target;
}

/** Runs the command lines four at a time (two shared cores), in order of the results. */
async function inTurns(simulator: Simulator, commandLines: string[][]) {
  const results: RunResult[] = [];
  let next = 0;
  const worker = async () => {
    while (next < commandLines.length) {
      const index = next++;
      results[index] = await simulator.hedge(commandLines[index]);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return results;
}

describe('a write checks every argument, option and global before its first request (generated from the specs)', () => {
  it('the specs have the writes this test is about', () => {
    expect(CASES.map(({ name }) => name)).toEqual(
      expect.arrayContaining(['add', 'apply', 'close', 'open', 'reduce', 'resume', 'roll']),
    );
  });

  it.each(CASES)(
    'hedge $name: each bad global, and a malformed HEDGE_KEY_LIFETIME or HEDGE_REPEAT_WINDOW, is exit 2, one line naming it, nothing sent; the same line without it reaches the server',
    async ({ words, line, spec }) => {
      await withSimulator(STEPPED, async (simulator) => {
        const target = await prepare(simulator, words);
        const valid = line(target);
        const bad = BAD_GLOBALS.filter(([, , , extra]) => !extra?.dryRun || (spec.options ?? []).includes(DRY_RUN));
        const before = simulator.requests().length;
        const results = await inTurns(
          simulator,
          bad.map(([, args]) => [...valid, ...args]),
        );
        bad.forEach(([label, args, says, extra], index) => {
          const result = results[index];
          const what = `hedge ${valid.join(' ')} ${args.join(' ')} (${label})`;
          expect(result.code, `${what}: ${result.stderr}`).toBe(2);
          expect(result.stdout, what).toBe('');
          expect(lines(result.stderr), what).toEqual([
            expect.stringMatching(typeof says === 'function' ? says(words.join(' '), spec) : says),
          ]);
          if (extra?.json) expect(JSON.parse(result.stderr).error.class, what).toBe('usage');
        });
        // A write's settings from the environment are checked before its first request too.
        for (const name of ['HEDGE_KEY_LIFETIME', 'HEDGE_REPEAT_WINDOW']) {
          const result = exits(await simulator.hedge(valid, { env: { [name]: 'soon' } }), 2);
          expect(lines(result.stderr)).toEqual([
            expect.stringMatching(new RegExp(`^hedge: ${name}: "soon" is not allowed`)),
          ]);
        }
        // Not one request — no read, no write — while every bad line ran.
        expect(simulator.requests().slice(before), 'requests received while the bad command lines ran').toEqual([]);

        ok(await simulator.hedge(valid));
        expect(
          simulator.requests().length,
          `the valid line \`hedge ${valid.join(' ')}\` reaches the server`,
        ).toBeGreaterThan(before);
      });
    },
  );
});

it("after the send, the output never turns what was sent into exit 2: a --query that only the data shows to be wrong (a type error) is a warning: the result is printed whole and the exit code is the close's own; a documented field the answer lacks is an empty cell (--no-wait has no struck rate yet), and the write exits 0", async () => {
  await withSimulator(STEPPED, async (simulator) => {
    simulator.seedOpen('buy', 10_000);
    const closed = ok(await simulator.hedge('close USDTNGN buy --query abs(@)'));
    expect(JSON.parse(closed.stdout)).toMatchObject({ status: 'closed' });
    expect(closed.stderr).toMatch(
      /--query "abs\(@\)": Invalid type: .*; the result is printed whole instead — the write was sent, and the exit code says how it ended\./,
    );
    expect([simulator.writes().map((entry) => entry.path), simulator.active('buy')]).toEqual([['/hedges/close'], []]);

    const result = ok(await simulator.hedge('open USDTNGN buy 1000 --tenor 1 --no-wait --fields hedge_id,struck_rate'));
    expect(result.stdout).toMatch(/^hedge_id\tstruck_rate\nhdg_\w+\t\n?$/);
    // The quote before it is a POST too; the open was sent once.
    expect(simulator.sends('/hedges')).toHaveLength(1);
  });
});
