// The three completion scripts against the command tree of src/commands/manifest.ts, both ways:
// every command, subcommand and option of the manifest is completed by each script, under the
// right command, and no script completes a command or option the manifest does not have. Adding
// an option to the manifest without adding it to completions/ fails here.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS, GLOBAL_OPTIONS } from '../../src/cli/manifest.js';
import type { ArgSpec, CommandSpec, OptionSpec } from '../../src/cli/command-spec.js';
import { ROOT } from '../support/hedge-cli.js';

/** What each script knows per command path ('' is the top level: global options, top commands). */
interface Node {
  subcommands: string[];
  options: string[];
}
type Tree = Map<string, Node>;

// commander adds -h/--help everywhere and -V/--version on the program; src/cli.ts answers
// `hedge help exit-codes` before commander (and commander itself has `help [command]`).
const BUILTIN_OPTIONS = ['-h', '--help', '-V', '--version'];
const BUILTIN_COMMANDS: Array<[string, string[]]> = [['help', ['exit-codes']]];

function flagsOf(option: OptionSpec): string[] {
  return option.flags.split(/[\s,]+/).filter((part) => part.startsWith('-'));
}

function takesValue(option: OptionSpec): boolean {
  return /[<[]/.test(option.flags);
}

function manifestTree(): Tree {
  const tree: Tree = new Map();
  tree.set('', {
    subcommands: [...COMMANDS.map((command) => command.name), ...BUILTIN_COMMANDS.map(([name]) => name)],
    options: [...GLOBAL_OPTIONS.flatMap(flagsOf), ...BUILTIN_OPTIONS],
  });
  const walk = (commands: readonly CommandSpec[], prefix: string[]) => {
    for (const command of commands) {
      const path = [...prefix, command.name];
      tree.set(path.join(' '), {
        subcommands: (command.subcommands ?? []).map((sub) => sub.name),
        options: (command.options ?? []).flatMap(flagsOf),
      });
      if (command.subcommands) walk(command.subcommands, path);
    }
  };
  walk(COMMANDS, []);
  for (const [name, subs] of BUILTIN_COMMANDS) {
    tree.set(name, { subcommands: subs, options: [] });
    for (const sub of subs) tree.set(`${name} ${sub}`, { subcommands: [], options: [] });
  }
  return tree;
}

function allOptions(): OptionSpec[] {
  const options: OptionSpec[] = [...GLOBAL_OPTIONS];
  const walk = (commands: readonly CommandSpec[]) => {
    for (const command of commands) {
      options.push(...(command.options ?? []));
      if (command.subcommands) walk(command.subcommands);
    }
  };
  walk(COMMANDS);
  return options;
}

function allArgs(): ArgSpec[] {
  const args: ArgSpec[] = [];
  const walk = (commands: readonly CommandSpec[]) => {
    for (const command of commands) {
      args.push(...(command.args ?? []));
      if (command.subcommands) walk(command.subcommands);
    }
  };
  walk(COMMANDS);
  return args;
}

const MANIFEST = manifestTree();
const KNOWN_FLAGS = new Set([...allOptions().flatMap(flagsOf), ...BUILTIN_OPTIONS]);
const VALUED_FLAGS = [...new Set(allOptions().filter(takesValue).flatMap(flagsOf))].sort();

function script(shell: string): string {
  return readFileSync(join(ROOT, 'completions', `hedge.${shell}`), 'utf8');
}

/** The body of a shell function `name() {` … `}` (closing brace alone at column 0). */
function functionBody(text: string, header: RegExp): string {
  const start = text.search(header);
  expect(start, `function ${header}`).toBeGreaterThanOrEqual(0);
  const end = text.indexOf('\n}\n', start);
  return text.slice(start, end);
}

/** case branches of a bash/zsh function: label(s) → branch body. */
function caseBranches(body: string): Array<{ labels: string[]; body: string }> {
  const branches: Array<{ labels: string[]; body: string }> = [];
  const pattern = /^\s*\(?((?:'[^']*'|[^\s()'|]+)(?:\s*\|\s*(?:'[^']*'|[^\s()'|]+))*)\)\s*([\s\S]*?);;/gm;
  for (const match of body.matchAll(pattern)) {
    const labels = match[1]!.split('|').map((label) => label.trim().replace(/^'(.*)'$/, '$1'));
    if (labels.includes('*')) continue;
    branches.push({ labels, body: match[2]! });
  }
  return branches;
}

function sorted(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}

/** Same paths, and per path the same subcommands and options, as the manifest. */
function expectSameTree(file: Tree, shell: string): void {
  for (const [path, node] of MANIFEST) {
    const found = file.get(path) ?? { subcommands: [], options: [] };
    expect(sorted(found.subcommands), `${shell}: subcommands of "${path}"`).toEqual(sorted(node.subcommands));
    expect(sorted(found.options), `${shell}: options of "${path}"`).toEqual(sorted(node.options));
  }
  for (const path of file.keys()) {
    expect(MANIFEST.has(path), `${shell} completes "${path}", which the manifest does not have`).toBe(true);
  }
}

function longTokens(text: string): string[] {
  return sorted(text.match(/(?<![\w-])--[a-z][a-z0-9-]*/g) ?? []);
}

function bashTree(): Tree {
  // The real functions, run by bash: walk the tree the script itself describes.
  const program = `
    source "$1"
    walk() {
      local path=$1 sub
      _hedge_subcommands "$path"; local subs=$REPLY
      _hedge_options "$path"
      printf '%s\\t%s\\t%s\\n' "$path" "$subs" "$REPLY"
      for sub in $subs; do walk "\${path:+$path }$sub"; done
    }
    walk ''
  `;
  const output = execFileSync('bash', ['-c', program, 'bash', join(ROOT, 'completions', 'hedge.bash')], { encoding: 'utf8' });
  const tree: Tree = new Map();
  for (const line of output.trimEnd().split('\n')) {
    const [path, subs, options] = line.split('\t');
    tree.set(path!, { subcommands: (subs ?? '').split(' ').filter(Boolean), options: (options ?? '').split(' ').filter(Boolean) });
  }
  // Branches of the case tables that the walk cannot reach still must name manifest paths.
  const text = script('bash');
  for (const name of ['_hedge_subcommands', '_hedge_options']) {
    for (const branch of caseBranches(functionBody(text, new RegExp(`^${name}\\(\\) \\{`, 'm')))) {
      for (const label of branch.labels) if (!tree.has(label)) tree.set(label, { subcommands: [], options: [] });
    }
  }
  return tree;
}

function zshTree(): Tree {
  const text = script('zsh');
  const tree: Tree = new Map();
  const node = (path: string) => {
    if (!tree.has(path)) tree.set(path, { subcommands: [], options: [] });
    return tree.get(path)!;
  };
  const entries = (body: string) => [...body.matchAll(/'([^':]+):/g)].map((match) => match[1]!);
  for (const branch of caseBranches(functionBody(text, /^_hedge_subcommands\(\) \{/m))) {
    for (const label of branch.labels) node(label).subcommands.push(...entries(branch.body));
  }
  for (const branch of caseBranches(functionBody(text, /^_hedge_options\(\) \{/m))) {
    for (const label of branch.labels) node(label).options.push(...entries(branch.body));
  }
  return tree;
}

function fishTree(): Tree {
  const text = script('fish');
  const tree: Tree = new Map();
  const node = (path: string) => {
    if (!tree.has(path)) tree.set(path, { subcommands: [], options: [] });
    return tree.get(path)!;
  };
  for (const line of text.split('\n')) {
    if (!line.startsWith('complete -c hedge')) continue;
    const condition = /-n '([^']*)'/.exec(line)?.[1];
    const commandAt = condition ? /^__hedge_command_at(?: (.+))?$/.exec(condition) : null;
    const pathIs = condition ? /^__hedge_path_is(?: (.+))?$/.exec(condition) : null;
    const shorts = [...line.matchAll(/ -s (\S)/g)].map((match) => `-${match[1]}`);
    const longs = [...line.matchAll(/ -l (\S+)/g)].map((match) => `--${match[1]}`);
    if (commandAt) {
      const name = /-a (\S+)/.exec(line)?.[1];
      expect(name, line).toBeDefined();
      node(commandAt[1] ?? '').subcommands.push(name!);
    } else if (shorts.length || longs.length) {
      // No condition: offered after any command, i.e. a global option.
      expect(condition === undefined || pathIs, line).toBeTruthy();
      node(pathIs?.[1] ?? '').options.push(...shorts, ...longs);
    }
  }
  return tree;
}

/** Flags that take a value, from a script's `takes_value` list. */
function valuedFlags(shell: 'bash' | 'zsh' | 'fish'): string[] {
  const text = script(shell);
  if (shell === 'fish') {
    const body = functionBody(text.replace(/\nend\n/g, '\n}\n'), /^function __hedge_takes_value$/m);
    return sorted((body.match(/(?<![\w-])-{1,2}[a-zA-Z0-9][a-z0-9-]*/g) ?? []).filter((flag) => KNOWN_FLAGS.has(flag)));
  }
  const body = functionBody(text, /^_hedge_takes_value\(\) \{/m);
  const list = /case \S+ in\s*\(?([\s\S]*?)\)\s*\n\s*return 0/.exec(body)?.[1] ?? '';
  return sorted(list.split(/[|\\\s]+/).filter(Boolean));
}

describe('completion scripts match the command tree of the manifest', () => {
  it('bash: the same commands, subcommands and options per command', () => {
    expectSameTree(bashTree(), 'bash');
  });

  it('zsh: the same commands, subcommands and options per command', () => {
    expectSameTree(zshTree(), 'zsh');
  });

  it('fish: the same commands, subcommands and options per command', () => {
    expectSameTree(fishTree(), 'fish');
  });

  it.each(['bash', 'zsh', 'fish'] as const)('%s: knows exactly which options take a value', (shell) => {
    expect(valuedFlags(shell)).toEqual(VALUED_FLAGS);
  });

  it.each(['bash', 'zsh', 'fish'])('%s: names no option the manifest does not have', (shell) => {
    const text = script(shell);
    const unknown = longTokens(text).filter((flag) => !KNOWN_FLAGS.has(flag));
    expect(unknown).toEqual([]);
    if (shell === 'fish') {
      const completeLines = text.split('\n').filter((line) => line.startsWith('complete -c hedge')).join('\n');
      const fishLongs = [...completeLines.matchAll(/ -l (\S+)/g)].map((match) => `--${match[1]}`);
      expect(fishLongs.filter((flag) => !KNOWN_FLAGS.has(flag))).toEqual([]);
    }
  });

  it.each(['bash', 'zsh', 'fish'])('%s: offers every fixed value list of the manifest', (shell) => {
    const text = script(shell);
    const lists = [...allOptions(), ...allArgs()]
      .map((spec) => spec.values)
      .filter((values): values is readonly string[] => Array.isArray(values));
    expect(lists.length).toBeGreaterThanOrEqual(4);
    for (const values of lists) expect(text, values.join(' ')).toContain(values.join(' '));
    // Profile names come from the store file at completion time.
    expect(text).toContain('config.json');
    expect(text).toContain('HEDGE_CONFIG_DIR');
  });
});
