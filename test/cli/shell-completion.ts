// Runs a completion script's function in a real shell on partial command lines, as the shell does on Tab.
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../support/hedge-cli.js';

export const scriptFile = (shell: string) => join(ROOT, 'dist', 'completions', `hedge.${shell}`);
export const hasShell = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

const BASH = [
  'source "$1"; shift',
  'for line in "$@"; do',
  '  read -r -a COMP_WORDS <<< "$line"',
  '  [[ $line == *" " ]] && COMP_WORDS+=("")',
  '  COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE=$line; COMP_POINT=${#line}',
  '  COMPREPLY=(); _hedge',
  '  printf "%s\\n" "${COMPREPLY[*]}"',
  'done',
].join('\n');

const FISH = `source $argv[1]; for line in $argv[2..-1]; echo (complete -C "$line" | string replace -r '\\t.*' ''); end`;

/** Runs a shell on the lines: what it offered after each, as its words in the order offered. */
const offered = (shell: string, args: string[], env: Record<string, string>) =>
  execFileSync(shell, args, { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env } })
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => line.split(' ').filter(Boolean));

/** What bash's `_hedge` offers after each line (words split on spaces; a trailing space means an empty current word). */
export const bashComplete = (lines: string[], env: Record<string, string>) =>
  offered('bash', ['--norc', '--noprofile', '-c', BASH, 'bash', scriptFile('bash'), ...lines], env);

/** What fish offers after each line (`complete -C`). */
export const fishComplete = (lines: string[], env: Record<string, string>) =>
  offered('fish', ['--no-config', '-c', FISH, scriptFile('fish'), ...lines], env);
