// The commands hedge suggests (the start screen, hints, help examples, a usage line) name the
// program as the user ran it, so that a pasted suggestion runs: `./bin/hedge.js` from a checkout,
// `hedge` when that name on PATH is hedge. The start screen of each is a process of its own, as is
// `hedge --help` (the launcher answers it): they show the launcher passing the path it was run as.
// Other runs call the front's main() in this process with that path, as bin/hedge.js passes it. A
// missing argument gets the command's usage line and an example.
import { spawn } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/manifest.js';
import type { CommandSpec } from '../../src/cli/runner/command-spec.js';
import { baseEnv, HEDGE_BIN, ROOT, runHedge, tempDir } from '../support/hedge-cli.js';
import { runMainInProcess } from '../support/hedge-in-process.js';

const config = tempDir('hedge-program-');
const installed = tempDir('hedge-installed-');
afterAll(() => {
  config.remove();
  installed.remove();
});

/** PATH with node and the system's tools, and no `hedge` (unless `first` holds one). */
function searchPath(first?: string): string {
  return [first, dirname(process.execPath), '/usr/bin', '/bin'].filter(Boolean).join(':');
}

/** Runs `command` (a path or a name on PATH) as a shell would, with the environment's PATH. */
function spawned(
  command: string,
  args: string[],
  options: { cwd: string; path: string; env?: Record<string, string> },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { ...baseEnv(config.path), PATH: options.path, COLUMNS: '80', ...options.env };
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs main() in this process (its working directory is ROOT) as bin/hedge.js does, with PATH `path`. */
function inProcess(args: string[], path: string, env?: Record<string, string>) {
  return runMainInProcess(
    ROOT,
    args,
    { ...baseEnv(config.path), PATH: path, COLUMNS: '80', ...env },
    '',
    undefined,
    undefined,
    HEDGE_BIN,
  );
}

/** The words of the first backticked command in `text` that starts with `program`. */
function quotedCommand(text: string, program: string): string[] {
  const found = [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!).find((quote) => quote.startsWith(program));
  expect(found, text).toBeDefined();
  return found!.split(' ');
}

describe('from a checkout: ./bin/hedge.js', () => {
  const run = (args: string[], env?: Record<string, string>) => inProcess(args, searchPath(), env);

  it('the start screen and --help name ./bin/hedge.js, and its first demo command runs as shown', async () => {
    const start = await spawned('./bin/hedge.js', [], { cwd: ROOT, path: searchPath() });
    expect(start.code, start.stderr).toBe(0);
    expect(start.stdout).toContain('  ./bin/hedge.js --demo markets');
    expect(start.stdout).not.toMatch(/^ {2}hedge /m);
    const [program, ...words] = start.stdout.match(/\.\/bin\/hedge\.js --demo markets/)![0].split(' ');
    const markets = await spawned(program!, [...words, '--json'], { cwd: ROOT, path: searchPath() });
    expect(markets.code, markets.stderr).toBe(0);
    expect(JSON.parse(markets.stdout)).toEqual([expect.objectContaining({ market: 'USDTNGN' })]);

    const help = await run(['--help']);
    expect(help.stdout).toMatch(/^Usage: \.\/bin\/hedge\.js <command>/);
    const quoteHelp = await run(['quote', '--help']);
    expect(quoteHelp.stdout).toMatch(/^Usage: \.\/bin\/hedge\.js quote /);
    expect(quoteHelp.stdout).toContain('$ ./bin/hedge.js quote USDTNGN buy 10000 --tenor 3');
  });

  it("a hint names the command as run, and the command it names runs: the 404's list of hedges", async () => {
    const missing = await run(['--demo', 'hedges', 'hdg_missing']);
    expect(missing.code).toBe(3);
    const suggested = quotedCommand(missing.stderr, './bin/hedge.js');
    expect(suggested).toEqual(['./bin/hedge.js', '--demo', 'hedges']);
    const listed = await run(suggested.slice(1));
    expect(listed.code, listed.stderr).toBe(0);
    // A note's hint too, on a screen.
    const price = await run(['--demo', 'price', 'USDTNGN'], { HEDGE_FORCE_TTY: '1' });
    expect(price.stderr.replace(/\s+/g, ' ')).toContain('`./bin/hedge.js --demo quote` shows what a hedge would cost');
  });

  it('a missing argument: the usage line and an example, named as run (exit 2)', async () => {
    const result = await run(['quote', 'USDTNGN', 'buy']);
    expect([result.code, result.stderr]).toEqual([
      2,
      "hedge: missing required argument 'notional'; usage: `./bin/hedge.js quote [options] <market> <side> <notional>`, e.g. `./bin/hedge.js quote USDTNGN buy 10000 --tenor 3`.\n",
    ]);
  });
});

describe('installed: `hedge` on PATH', () => {
  symlinkSync(HEDGE_BIN, join(installed.path, 'hedge'));
  const launch = (args: string[]) => spawned('hedge', args, { cwd: config.path, path: searchPath(installed.path) });
  const run = (args: string[]) => inProcess(args, searchPath(installed.path));

  it('the start screen, --help, examples and hints say `hedge`', async () => {
    const start = await launch([]);
    expect(start.code, start.stderr).toBe(0);
    expect(start.stdout).toContain('  hedge --demo markets');
    const help = await launch(['--help']);
    expect(help.stdout).toMatch(/^Usage: hedge <command>/);
    const quoteHelp = await run(['quote', '--help']);
    expect(quoteHelp.stdout).toContain('$ hedge quote USDTNGN buy 10000 --tenor 3');
    const missing = await run(['--demo', 'hedges', 'hdg_missing']);
    expect(quotedCommand(missing.stderr, 'hedge')).toEqual(['hedge', '--demo', 'hedges']);
  });
});

describe('a missing argument, every command', () => {
  /** Every command that takes a required argument, as the words that name it. */
  const needing = (specs: readonly CommandSpec[], path: string[] = []): string[][] =>
    specs.flatMap((spec) =>
      spec.subcommands
        ? needing(spec.subcommands, [...path, spec.name])
        : (spec.args ?? []).some((arg) => arg.required)
          ? [[...path, spec.name]]
          : [],
    );

  it('says what is missing, the usage line and the first example; exit 2, nothing sent', async () => {
    const commands = needing(COMMANDS);
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
});
