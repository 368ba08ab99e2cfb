// The completion scripts are generated from the command tree of src/cli/manifest.ts
// (src/cli/completion-scripts.ts), and the build writes exactly that text to dist/completions/ and
// to completions/ at the top of the project, which git holds: a spec changed without the scripts
// regenerated and committed fails here, saying how to regenerate them. Each committed script
// passes its own shell's parser (`bash -n`, `zsh -n`, `fish -n`; a shell that is not installed is
// reported skipped, with the reason, never passed).
// Then, both ways, in real shells: for every command path of the manifest, what bash and fish
// offer after `hedge PATH ` (its subcommands) and after `hedge PATH --` (its long options and the
// global ones) is exactly what the manifest declares, so no script completes a command or an option
// the manifest does not have, nor misses one. A shell that is not installed is reported skipped.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMANDS, GLOBAL_OPTIONS } from '../../src/cli/manifest.js';
import type { CommandSpec, OptionSpec } from '../../src/cli/runner/command-spec.js';
import { completionScript } from '../../src/cli/completion-scripts.js';
import { ROOT } from '../support/hedge-cli.js';
import { bashComplete, fishComplete, hasShell, scriptFile } from './shell-completion.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;
const NO_FISH = !hasShell('fish');
/** What to do when completions/ and the specs disagree. */
const REGENERATE = '`npm run build` regenerates completions/ from the specs; commit the result';

const longFlags = (options: readonly OptionSpec[]) =>
  options.flatMap((option) => option.flags.split(/[\s,]+/).filter((part) => part.startsWith('--')));
// commander adds --help everywhere and --version on the program; main.ts answers `hedge help exit-codes`.
const GLOBAL_LONGS = [...longFlags(GLOBAL_OPTIONS), '--help', '--version'];

/** Every command path of the manifest with what it should complete. */
function manifestPaths() {
  const rows = [
    { path: '', subcommands: [...COMMANDS.map((spec) => spec.name), 'help'], options: GLOBAL_LONGS },
    { path: 'help', subcommands: ['exit-codes'], options: GLOBAL_LONGS },
  ];
  const walk = (specs: readonly CommandSpec[], prefix: string) => {
    for (const spec of specs) {
      const path = prefix ? `${prefix} ${spec.name}` : spec.name;
      rows.push({
        path,
        subcommands: (spec.subcommands ?? []).map((sub) => sub.name),
        options: [...longFlags(spec.options ?? []), ...GLOBAL_LONGS],
      });
      walk(spec.subcommands ?? [], path);
    }
  };
  walk(COMMANDS, '');
  return rows;
}

const PATHS = manifestPaths();
const sorted = (words: string[]) => [...new Set(words)].sort();
const lineFor = (path: string, tail: string) => `hedge ${path ? `${path} ` : ''}${tail}`;

describe.each(SHELLS)('hedge.%s', (shell) => {
  // The build rewrites completions/, so the file alone could be right while git holds a stale one:
  // git's index is what the next commit holds (a fresh clone's index is its commit).
  it("completions/, git's index and dist/ hold what the specs generate", () => {
    const generated = completionScript(shell);
    const held = spawnSync('git', ['show', `:completions/hedge.${shell}`], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
    });
    expect(held.status, `git has no completions/hedge.${shell}: ${REGENERATE} (git add completions/)`).toBe(0);
    for (const [where, text] of [
      ['completions/', readFileSync(join(ROOT, 'completions', `hedge.${shell}`), 'utf8')],
      ["git's completions/", held.stdout],
      ['dist/completions/', readFileSync(scriptFile(shell), 'utf8')],
    ])
      expect(text === generated, `${where}hedge.${shell} is not what the specs generate: ${REGENERATE}`).toBe(true);
  });

  it.skipIf(!hasShell(shell))(
    `passes ${shell} -n${hasShell(shell) ? '' : ` (skipped: ${shell} is not installed; apt-get install ${shell})`}`,
    () => {
      const check = spawnSync(shell, ['-n', join(ROOT, 'completions', `hedge.${shell}`)], { encoding: 'utf8' });
      expect([check.stderr, check.status]).toEqual(['', 0]);
    },
  );

  it('a command added to the specs is completed with no other file touched', () => {
    const extra: CommandSpec = {
      name: 'frobnicate',
      summary: 'A command that does not exist',
      examples: [],
      options: [{ flags: '--wobble <n>', key: 'wobble', kind: 'value', description: 'how much', values: ['1', '2'] }],
    };
    const text = completionScript(shell, [...COMMANDS, extra]);
    expect(text).toContain('frobnicate');
    expect(text).toMatch(/wobble/);
    expect(completionScript(shell)).not.toContain('frobnicate');
  });
});

describe.each([
  ['bash', bashComplete, false],
  ['fish', fishComplete, NO_FISH],
] as const)(
  "%s completes the manifest's tree, both ways (a real shell; skipped when not installed)",
  (_shell, complete, skip) => {
    const offered = (lines: string[]) => complete(lines, { HOME: '/nonexistent' }).map(sorted);

    it.skipIf(skip)('the subcommands of every command path', () => {
      const withSubs = PATHS.filter((row) => row.subcommands.length > 0);
      expect(offered(withSubs.map((row) => lineFor(row.path, '')))).toEqual(
        withSubs.map((row) => sorted(row.subcommands)),
      );
    });

    it.skipIf(skip)('the long options of every command path', () => {
      expect(offered(PATHS.map((row) => lineFor(row.path, '--')))).toEqual(PATHS.map((row) => sorted(row.options)));
    });
  },
);
