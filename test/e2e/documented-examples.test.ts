// The examples the docs show, run (issue 40, item 7): every `hedge --demo …` line of README.md's
// and docs/commands.md's shell blocks runs against the demo and succeeds, and every command of
// README's `console` blocks prints, at 80 columns, the first line the README shows. The launcher
// may be spelt `npx hedge`, `hedge`, `./bin/hedge.js` or `node bin/hedge.js`: the docs may change
// how they spell it. The runs happen in a folder of their own (a report's HTML file lands there),
// with a config folder of their own (the demo's state), so no tracked file changes.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, HEDGE_BIN, ROOT, tempDir, type RunResult } from '../support/hedge-cli.js';

const LAUNCHER = String.raw`(?:npx hedge|node bin/hedge\.js|\./bin/hedge\.js|hedge)`;
const DEMO_LINE = new RegExp(String.raw`^(?:\$ )?${LAUNCHER} (--demo .*)$`);

/** The blocks of a markdown file fenced as one of `kinds` (sh, console), as lines. */
function fenced(markdown: string, kinds: readonly string[]): string[][] {
  const blocks: string[][] = [];
  let inside = false;
  let current: string[] | undefined;
  for (const line of markdown.split('\n')) {
    const fence = /^```(\w*)\s*$/.exec(line);
    if (!fence) {
      current?.push(line);
    } else if (inside) {
      if (current) blocks.push(current);
      inside = false;
      current = undefined;
    } else {
      inside = true;
      current = kinds.includes(fence[1]!) ? [] : undefined;
    }
  }
  return blocks;
}

/** A command line's words, as a shell splits them (single and double quotes), its `# comment` left out. */
function words(line: string): string[] {
  const out: string[] = [];
  const pattern = /"([^"]*)"|'([^']*)'|(#.*$)|(\S+)/g;
  for (const match of line.matchAll(pattern)) {
    if (match[3] !== undefined) break;
    out.push(match[1] ?? match[2] ?? match[4]!);
  }
  return out;
}

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const commands = readFileSync(join(ROOT, 'docs', 'commands.md'), 'utf8');

/** Every `hedge --demo …` line of the shell blocks, as arguments. */
const SHELL_EXAMPLES = [readme, commands].flatMap((markdown) =>
  fenced(markdown, ['sh']).flatMap((block) => block.flatMap((line) => {
    const found = DEMO_LINE.exec(line.trim());
    return found ? [found[1]!] : [];
  })),
);

/** README's console examples: a `$ hedge --demo …` line and the lines it printed. */
const CONSOLE_EXAMPLES = fenced(readme, ['console']).flatMap((block) => {
  const examples: Array<{ command: string; shown: string[] }> = [];
  for (const line of block) {
    const found = DEMO_LINE.exec(line);
    if (line.startsWith('$ ')) examples.push({ command: found ? found[1]! : '', shown: [] });
    else examples.at(-1)?.shown.push(line);
  }
  return examples.filter((example) => example.command !== '' && example.shown.length > 0);
});

let folder: { path: string; remove: () => void };
let config: { path: string; remove: () => void };

beforeAll(() => {
  folder = tempDir('hedge-docs-');
  config = tempDir('hedge-docs-config-');
});
afterAll(() => {
  folder.remove();
  config.remove();
});

/** Runs hedge as the docs do, from a folder of its own; paths under /tmp/ go to that folder. */
function run(line: string, configDir: string, env: Record<string, string> = {}): Promise<RunResult> {
  // The sample files the docs ship (docs/examples/) are read from the checkout.
  const args = words(line).map((word) => word.replace(/^\/tmp\//, `${folder.path}/`).replace(/^file:\/\/\/tmp\//, `file://${folder.path}/`).replace(/^docs\/examples\//, `${ROOT}/docs/examples/`));
  // A live view is watched for one refresh: the docs show how to start it, not how long to keep it.
  if (args.includes('--watch') && !args.includes('--count')) args.push('--count', '1');
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HEDGE_BIN, ...args], { env: { ...baseEnv(configDir), ...env }, cwd: folder.path, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, durationMs: Date.now() - started });
    });
  });
}

describe('the documented examples', () => {
  it('finds the examples (the docs keep some)', () => {
    expect(SHELL_EXAMPLES.length).toBeGreaterThanOrEqual(8);
    expect(CONSOLE_EXAMPLES.length).toBeGreaterThanOrEqual(2);
  });

  it('every `hedge --demo …` line of README.md and docs/commands.md runs, in order, and succeeds', async () => {
    for (const line of SHELL_EXAMPLES) {
      const result = await run(line, config.path);
      expect(result.code, `${line}\n${result.stderr}`).toBe(0);
    }
  }, 120_000);

  it("README's console examples print, at 80 columns, the first line the README shows", async () => {
    // The state README's examples assume: its own `open … --ref DEAL-42` done, nothing closed yet.
    const own = tempDir('hedge-docs-console-');
    try {
      const open = SHELL_EXAMPLES.find((line) => /\bopen USDTNGN buy 10000\b/.test(line));
      expect(open, 'README opens the hedge its examples show').toBeDefined();
      expect((await run(open!, own.path)).code).toBe(0);
      for (const { command, shown } of CONSOLE_EXAMPLES) {
        const result = await run(command, own.path, { HEDGE_FORCE_TTY: '1', COLUMNS: '80' });
        expect(result.code, `${command}\n${result.stderr}`).toBe(0);
        expect(result.stdout.split('\n')[0]!.trimEnd(), command).toBe(shown[0]!.trimEnd());
      }
    } finally {
      own.remove();
    }
  }, 120_000);

  it("docs/commands.md's `--dialect` values are the simulator's", async () => {
    const documented = /--dialect ((?:\w+\\?\|)+\w+)/.exec(commands)?.[1]?.split(/\\?\|/);
    const { SANDBOX_DIALECTS } = await import('../../src/sandbox/dialect-names.js');
    expect(documented).toEqual([...SANDBOX_DIALECTS]);
  });

  it('no page of the docs doubles a dash', () => {
    for (const page of ['README.md', ...['keep.md', 'commands.md', 'AGENTS.md', 'output.md', 'scripting.md'].map((name) => join('docs', name))]) {
      expect(readFileSync(join(ROOT, page), 'utf8'), page).not.toMatch(/—\s*—/);
    }
  });

  it("docs/commands.md's report CSV header is the one `report --format csv` prints", async () => {
    const documented = /`(group,count,[a-z_,]+)`/.exec(commands)?.[1];
    expect(documented).toBeDefined();
    const result = await run('--demo report --format csv', config.path);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split('\n')[0]).toBe(documented);
  });
});
