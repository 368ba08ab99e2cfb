// The short ways in, read at 80 columns as a new user meets them: `hedge` alone is one screen,
// `hedge --help` lists every command once under its group, and every command's own help fits a
// screen. Run in-process through the built front (main), with its output captured.
import { COMMANDS } from '../../src/cli/manifest.js';
import { COMMAND_GROUPS } from '../../src/cli/runner/command-spec.js';
import { displayWidth } from '../../src/platform/terminal/width.js';
import { runMainInProcess } from '../support/hedge-in-process.js';

async function printed(argv: string[], columns = 80) {
  const { code, stdout } = await runMainInProcess(argv, { COLUMNS: String(columns) }, '');
  return { code, lines: stdout.replace(/\n$/, '').split('\n') };
}

const tooWide = (lines: string[], columns: number) => lines.filter((line) => displayWidth(line) > columns);

it('hedge alone prints one screen (at most 24 lines at 80 columns, and fits 60): what it is, first commands, where help is; exit 0', async () => {
  const { code, lines } = await printed([]);
  expect(code).toBe(0);
  expect(lines.length).toBeLessThanOrEqual(24);
  expect(tooWide(lines, 80)).toEqual([]);
  const text = lines.join('\n');
  expect(text).toContain('Hedging Partner API');
  for (const command of 'hedge --demo markets,hedge --demo quote,hedge --demo open,hedge login,hedge --help,hedge help exit-codes'.split(
    ',',
  )) {
    expect(text).toContain(command);
  }
  expect(tooWide((await printed([], 60)).lines, 60)).toEqual([]);
});

// At most 60 lines of 80 columns: program-name.test.ts (--help names the path once).
it('hedge --help (and `hedge help`, the same): lists every top-level command once, under its group', async () => {
  const { code, lines } = await printed(['--help']);
  expect(code).toBe(0);
  const listed = new Map<string, string>();
  let heading = '';
  for (const line of lines) {
    if (/^\S.*:$/.test(line)) heading = line.slice(0, -1);
    const match = /^ {2}([a-z][a-z-]*) {2,}\S/.exec(line);
    if (match && !line.startsWith('  --')) {
      expect(listed.has(match[1]), `${match[1]} listed twice`).toBe(false);
      listed.set(match[1], heading);
    }
  }
  const headingOf = new Map(COMMAND_GROUPS.map((group) => [group.id, group.heading]));
  expect(Object.fromEntries(listed)).toEqual(
    Object.fromEntries(COMMANDS.map((spec) => [spec.name, headingOf.get(spec.group!)])),
  );
  expect((await printed(['help'])).lines).toEqual(lines);
});

it('hedge --help: every top-level command has a group and a one-line summary (one line beside its name at 80 columns)', () => {
  const nameWidth = Math.max(...COMMANDS.map((spec) => spec.name.length));
  for (const spec of COMMANDS) {
    expect(spec.group, `${spec.name} has no group`).toBeDefined();
    expect(2 + nameWidth + 2 + spec.summary.length, spec.name).toBeLessThanOrEqual(80);
  }
});

// Each at most 45 lines of 80 columns, its usage line first: program-name.test.ts (every command's help).
it(`each command's help: an example too long for the terminal continues on the next line with the shell's " \\"`, async () => {
  const { lines } = await printed(['login', '--help']);
  const at = lines.findIndex((line) => line.includes('printf %s "$HEDGE_KEY"'));
  expect(at).toBeGreaterThan(0);
  expect(lines[at]).toMatch(/ \\$/);
  expect(lines[at + 1]).toMatch(/^ {6}\S/);
});

it("a usage problem is told with commander's suggestions, whatever other words name commands", async () => {
  // `quote` is the profile's name here: the suggestion still comes from every command.
  expect(await runMainInProcess(['--profile', 'quote', 'marketz'], {}, '')).toMatchObject({
    code: 2,
    stderr: "hedge: unknown command 'marketz' (did you mean markets?)\n",
  });
});
