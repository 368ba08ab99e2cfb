// The commands hedge suggests (the start screen, hints, a usage line) name the program as the user
// ran it, so that a pasted suggestion runs: `./bin/hedge.js` from a checkout, `hedge` when that name
// on PATH is hedge. Help says `hedge` in every usage line and example, under a first line naming the
// program as run. The start screen of each is a process of its own, as is `hedge --help` (the
// launcher answers it): they show the launcher passing the path it was run as.
// Other runs call the front's main() in this process with that path, as bin/hedge.js passes it. A
// missing argument gets the command's usage line and an example.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { COMMANDS } from '../../src/cli/manifest.js';
import { commandPaths } from '../../src/cli/runner/command-spec.js';
import { baseEnv, HEDGE_BIN, ROOT, runHedge, tempDir, tempFolders, type HedgeArgs } from '../support/hedge-cli.js';
import { runMainInProcess } from '../support/hedge-in-process.js';
import { run } from '../build/run-process.js';
import { exits } from '../support/cli-runs.js';
import { writeStore } from '../support/config-store.js';

const [config, installed, deployed] = ['program', 'installed', 'deployed'].map((name) => tempDir(`hedge-${name}-`));
const tempFolder = tempFolders('hedge-hints-');
afterAll(() => [config, installed, deployed].forEach((dir) => dir.remove()));

/** PATH with node and the system's tools, and no `hedge` (unless `first` holds one). */
const searchPath = (first?: string) => [first, dirname(process.execPath), '/usr/bin', '/bin'].filter(Boolean).join(':');
/** The environment of a run with PATH `path`, 80 columns wide. */
const envOf = (path: string, env?: Record<string, string>) => ({
  ...baseEnv(config.path),
  PATH: path,
  COLUMNS: '80',
  ...env,
});

/** Runs `command` (a path or a name on PATH) in `cwd` as a shell would, with PATH `path`. */
const spawned = (command: string, args: string[], cwd: string, path: string, env?: Record<string, string>) =>
  run(command, args, { cwd, env: envOf(path, env) });

/** Runs main() in this process (its working directory is ROOT) as bin/hedge.js does when run as `script`, with PATH `path`. */
const inProcess = (args: HedgeArgs, path: string, env?: Record<string, string>, script = HEDGE_BIN) =>
  runMainInProcess(
    typeof args === 'string' ? args.split(' ') : args,
    envOf(path, env),
    '',
    undefined,
    undefined,
    script,
  );

/** The words of the first backticked command in `text` that starts with `program`. */
function quotedCommand(text: string, program: string) {
  const found = [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]).find((quote) => quote.startsWith(program));
  expect(found, text).toBeDefined();
  return found!.split(' ');
}

describe('from a checkout: ./bin/hedge.js', () => {
  const run = (args: HedgeArgs, env?: Record<string, string>) => inProcess(args, searchPath(), env);

  it('the start screen names ./bin/hedge.js, and its first demo command runs as shown; help says what hedge is', async () => {
    const launch = (args: string[]) => spawned('./bin/hedge.js', args, ROOT, searchPath());
    const start = exits(await launch([]), 0);
    expect(start.stdout).toContain('  ./bin/hedge.js --demo markets');
    expect(start.stdout).not.toMatch(/^ {2}hedge /m);
    // The command as shown, run as a shell would.
    const markets = exits(await launch(['--demo', 'markets', '--json']), 0);
    expect(JSON.parse(markets.stdout)).toEqual([expect.objectContaining({ market: 'USDTNGN' })]);

    // The launcher's help (dist/help.txt) and the front's say the same.
    const launched = await launch(['--help']);
    const help = await run('--help');
    expect(help.stdout).toMatch(/^hedge below is \.\/bin\/hedge\.js\nUsage: hedge <command>/);
    expect([launched.code, launched.stdout]).toEqual([0, help.stdout]);
    const quoteHelp = await run('quote --help');
    expect(quoteHelp.stdout).toMatch(/^hedge below is \.\/bin\/hedge\.js\nUsage: hedge quote /);
    expect(quoteHelp.stdout).toContain('$ hedge quote USDTNGN buy 10000 --tenor 3');
  });

  it("a hint names the command as run, and the command it names runs: the 404's list of hedges; a missing argument: the usage line and an example, named as run (exit 2)", async () => {
    const missing = exits(await run('--demo hedges hdg_missing'), 3);
    const suggested = quotedCommand(missing.stderr, './bin/hedge.js');
    expect(suggested).toEqual(['./bin/hedge.js', '--demo', 'hedges']);
    exits(await run(suggested.slice(1)), 0);
    // A note's hint too, on a screen.
    const price = await run('--demo price USDTNGN', { HEDGE_FORCE_TTY: '1' });
    expect(price.stderr.replace(/\s+/g, ' ')).toContain('`./bin/hedge.js --demo quote` shows what a hedge would cost');
    // A missing argument: the usage line and an example, named as run (exit 2).
    const result = await run('quote USDTNGN buy');
    expect([result.code, result.stderr]).toEqual([
      2,
      "hedge: missing required argument 'notional'; usage: `./bin/hedge.js quote [options] <market> <side> <notional>`, e.g. `./bin/hedge.js quote USDTNGN buy 10000 --tenor 3`.\n",
    ]);
  });

  it("plan's next step, a card's footnote and logout's hint: named as run, on one line, the profile once", async () => {
    const own = tempFolder();
    const env = { HOME: own, HEDGE_CONFIG_DIR: own, HEDGE_FORCE_TTY: '1' };
    const target = join(own, 'target.csv');
    writeFileSync(target, 'market,side,notional_usd,tenor_days\nUSDTNGN,buy,1000,1\n');
    const plan = exits(await run(['--demo', 'plan', target], env), 9);
    // Wrapped at 80 columns on a terminal, the command it suggests is not split: it fits one line.
    const apply = `\`./bin/hedge.js --demo apply ${target}\``;
    expect(apply.length).toBeLessThanOrEqual(80);
    expect(plan.stderr.split('\n')).toContainEqual(expect.stringContaining(apply));

    exits(await run('--demo open USDTNGN buy 1000 --tenor 1', env), 0);
    const close = exits(await run('--demo close USDTNGN buy', env), 0);
    expect(close.stdout.replace(/\s+/g, ' ')).toContain('`./bin/hedge.js --demo account` shows the balance.');
    expect(close.stdout).not.toContain('`hedge ');

    // An open not waited for: the command that follows it is one line (81 columns with its lead-in).
    const submitted = exits(await run('--demo open USDTNGN sell 1000 --tenor 1 --no-wait', env), 0);
    expect(submitted.stdout).toMatch(/^`\.\/bin\/hedge\.js --demo hedges hdg_\w+ --wait`$/m);

    writeStore(own, {
      current: 'desk',
      profiles: { desk: { base_url: 'http://127.0.0.1:9/v2', api_key: 'hpk_test_abcdefghijklmnopqrstuvwx' } },
    });
    const logout = exits(await run('--profile desk logout', env), 0);
    expect(logout.stderr.replace(/\s+/g, ' ')).toContain('`./bin/hedge.js --profile desk login` asks for a new key');
  });
});

it('installed (`hedge` on PATH): the start screen, --help, examples and hints say `hedge`', async () => {
  symlinkSync(HEDGE_BIN, join(installed.path, 'hedge'));
  const launch = (args: string[]) => spawned('hedge', args, config.path, searchPath(installed.path));
  const run = (args: HedgeArgs) => inProcess(args, searchPath(installed.path));
  const start = exits(await launch([]), 0);
  expect(start.stdout).toContain('  hedge --demo markets');
  const help = await launch(['--help']);
  expect(help.stdout).toMatch(/^Usage: hedge <command>/);
  const quoteHelp = await run('quote --help');
  expect(quoteHelp.stdout).toContain('$ hedge quote USDTNGN buy 10000 --tenor 3');
  const missing = await run('--demo hedges hdg_missing');
  expect(quotedCommand(missing.stderr, 'hedge')).toEqual(['hedge', '--demo', 'hedges']);
});

describe('run by a long path, as cron runs it: node /opt/tools/hedge/bin/hedge.js', () => {
  mkdirSync(join(deployed.path, 'opt/tools/hedge/bin'), { recursive: true });
  const script = join(deployed.path, 'opt/tools/hedge/bin/hedge.js');
  symlinkSync(HEDGE_BIN, script);
  const note = `hedge below is ${script}`;
  const launch = (args: string[]) => spawned(process.execPath, [script, ...args], config.path, searchPath());
  /**
   * The lines of `text` past the note that names the path (as long as the path itself), which must be
   * at most 80 columns wide and, with the note, at most `maxLines` lines.
   */
  const fitted = (text: string, maxLines: number, label = '') => {
    const [first, ...lines] = text.replace(/\n$/, '').split('\n');
    expect([label, first, lines.filter((line) => line.length > 80)]).toEqual([label, note, []]);
    expect(lines.length + 1, label).toBeLessThanOrEqual(maxLines);
    return lines;
  };

  it('--help names the path once, above the help hedge prints as `hedge`: 80 columns, at most 60 lines; the start screen names the path once and fits 24 lines of 80 columns', async () => {
    const help = exits(await launch(['--help']), 0);
    expect(fitted(help.stdout, 60).join('\n')).toBe((await runHedge('--help')).stdout.replace(/\n$/, ''));
    expect(fitted(exits(await launch([]), 0).stdout, 24).join('\n')).toMatch(/^ {2}hedge --demo markets /m);
  });

  it("every command's help: the path once, then at most 44 lines of 80 columns", async () => {
    // Every command path: `quote`, `profile`, `profile list`, …
    for (const { path: words } of commandPaths(COMMANDS)) {
      const name = words.join(' ');
      const help = await inProcess([...words, '--help'], searchPath(), undefined, script);
      expect(help.code, name).toBe(0);
      const lines = fitted(help.stdout, 45, name);
      expect(lines[0]).toMatch(new RegExp(`^Usage: hedge ${name}\\b`));
      expect(lines.join('\n'), name).toContain('Global options');
    }
  });

  it("the launcher's --help names hedge as the front does: another name on PATH, a path the shell must quote", async () => {
    mkdirSync(join(deployed.path, "desk's tools"));
    const quoted = join(deployed.path, "desk's tools", 'hedge.js');
    symlinkSync(HEDGE_BIN, quoted);
    symlinkSync(HEDGE_BIN, join(deployed.path, 'opt/tools/hedge/bin/hedge-dev'));
    const onPath = searchPath(join(deployed.path, 'opt/tools/hedge/bin'));
    for (const [command, args, path, note] of [
      [process.execPath, [quoted, '--help'], searchPath(), `hedge below is '${quoted.replace(/'/g, `'\\''`)}'`],
      ['hedge-dev', ['--help'], onPath, 'hedge below is hedge-dev'],
    ] as const) {
      const launched = await spawned(command, [...args], config.path, path);
      const front = await spawned(command, [...args], config.path, path, { HEDGE_FORCE_TTY: '0' });
      expect(launched.stdout.split('\n')[0]).toBe(note);
      expect([launched.code, launched.stdout]).toEqual([0, front.stdout]);
    }
  });
});

it('a missing argument, every command: says what is missing, the usage line and the first example; exit 2, nothing sent', async () => {
  // Every command that takes a required argument, as the words that name it.
  const commands = commandPaths(COMMANDS)
    .filter(({ spec }) => !spec.subcommands && spec.args?.some((arg) => arg.required))
    .map(({ path }) => path);
  expect(commands.length).toBeGreaterThan(5);
  for (const words of commands) {
    const result = await runHedge(words);
    expect(result.code, words.join(' ')).toBe(2);
    expect(result.stderr).toMatch(
      new RegExp(
        `^hedge: missing required argument '\\w+'; usage: \`hedge ${words.join(' ')} .*<\\w+>.*\`, e\\.g\\. \`[^\`]*hedge ${words[0]}\\b[^\`]*\`\\.\\n$`,
      ),
    );
  }
});
