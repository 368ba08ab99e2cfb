// The lines that install shell completion, as docs/commands.md and `hedge completion --help` give them,
// run as written in the shell each is for, in a fresh home (no ~/.local/share, no ~/.config, no ~/.zfunc):
// each must leave the script where its shell looks for it, the same as the built one. The docs test
// (documented-examples.test.ts) drops redirections, so the folder a line writes into is checked here.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMPLETION } from '../../src/cli/cmd/specs.js';
import { HEDGE_BIN, ROOT, tempFolders } from '../support/hedge-cli.js';
import { hasShell, scriptFile } from '../cli/shell-completion.js';

const home = tempFolders('hedge-completion-home-');

/** The lines of the sh block under "## Shell completion" in docs/commands.md, comments left out. */
function documentedLines() {
  const page = readFileSync(join(ROOT, 'docs', 'commands.md'), 'utf8');
  const section = page.slice(page.indexOf('## Shell completion'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1];
  return block.split('\n').filter((line) => line.trim() && !line.startsWith('#'));
}

/** `hedge` as the shell runs it: the built CLI, with no profile or config of the test's. */
const FUNCTION = {
  bash: `hedge() { node "$HEDGE_BIN" "$@"; }`,
  zsh: `hedge() { node "$HEDGE_BIN" "$@"; }`,
  fish: 'function hedge; node $HEDGE_BIN $argv; end',
};
type Shell = keyof typeof FUNCTION;

/** Runs `line` in `shell` without startup files, in a fresh home; the home. */
function runInFreshHome(shell: Shell, line: string) {
  const dir = home();
  const flags = { bash: ['--norc', '--noprofile'], zsh: ['-f'], fish: ['--no-config'] }[shell];
  execFileSync(shell, [...flags, '-c', `${FUNCTION[shell]}\n${line}`], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, HEDGE_BIN },
  });
  return dir;
}

/** Where each shell's line must leave its script (what bash-completion, `fpath=(~/.zfunc …)` and fish read). */
const INSTALLED = {
  bash: '.local/share/bash-completion/completions/hedge',
  zsh: '.zfunc/_hedge',
  fish: '.config/fish/completions/hedge.fish',
};

const cases = [
  ...documentedLines().map((line) => ['docs/commands.md', line] as const),
  ...COMPLETION.examples.map((line) => ['hedge completion --help', line] as const),
].map(([where, line]) => [where, /completion (bash|zsh|fish)\b/.exec(line)![1] as Shell, line] as const);

it('the docs and the help give one line per shell, the same lines', () => {
  expect(cases.map(([, shell]) => shell).sort()).toEqual(['bash', 'bash', 'fish', 'fish', 'zsh', 'zsh']);
  expect(documentedLines()).toEqual(COMPLETION.examples);
});

for (const shell of ['bash', 'zsh', 'fish'] as const)
  it.skipIf(!hasShell(shell)).each(cases.filter((each) => each[1] === shell))(
    `%s: the %s line works as written in a fresh home (skipped: ${shell} is not installed): %s`,
    (_where, _shell, line) => {
      const dir = runInFreshHome(shell, line);
      expect(readFileSync(join(dir, INSTALLED[shell]), 'utf8')).toBe(readFileSync(scriptFile(shell), 'utf8'));
    },
  );

it.skipIf(!hasShell('zsh'))(
  'zsh (skipped: zsh is not installed): with ~/.zfunc on fpath before compinit, as the docs say, the installed script completes hedge',
  () => {
    const dir = runInFreshHome(
      'zsh',
      COMPLETION.examples.find((line) => line.includes('completion zsh'))!,
    );
    const registered = execFileSync(
      'zsh',
      ['-f', '-c', 'fpath=(~/.zfunc $fpath); autoload -U compinit; compinit -u; print -r -- $_comps[hedge]'],
      { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir } },
    );
    expect(registered.trim()).toBe('_hedge');
  },
);
