// The bash, zsh and fish completion scripts, generated from the specs at build time. Profile names
// are read from the store file, markets and hedge ids from what hedge last read (its state folder:
// platform/journal/completion-words.ts), by the shell itself, so that completing starts no node
// process and sends no request.
import {
  commandPaths,
  flagNames,
  opt,
  type ArgSpec,
  type CommandSpec,
  type OptionSpec,
} from './runner/command-spec.js';
import { COMMANDS, GLOBAL_OPTIONS } from './manifest.js';

/** How an option's or argument's value completes: fixed words, profile names, the markets or hedge ids hedge last read, file names, or nothing. */
type Values = ArgSpec['values'] | 'files';
type CommandNode = ReturnType<typeof commandNodes>[number];

// commander adds -h/--help to every command and -V/--version to the program; main.ts answers
// `hedge help exit-codes` itself.
const BUILT_IN_OPTIONS = [opt('-h, --help', 'help for hedge or for a command'), opt('-V, --version', 'the version')];
const HELP_COMMAND = { name: 'help', summary: 'Help on a topic: exit-codes' };

/** A placeholder that names a file or folder (`--html <file>`, `--root <dir>`) completes paths. */
const valuesOf = (values: ArgSpec['values'], placeholder = ''): Values =>
  values ?? (/<(file|dir|path)>/.test(placeholder) ? 'files' : undefined);

const flagOf = (option: OptionSpec) => ({
  names: flagNames(option),
  takesValue: /[<[]/.test(option.flags),
  values: valuesOf(option.values, option.flags),
  description: option.description,
});

const node = (
  path: string,
  subcommands: readonly { name: string; summary: string }[],
  options: readonly OptionSpec[] = [],
  args: readonly ArgSpec[] = [],
) => ({ path, subcommands, options: options.map(flagOf), args: args.map((arg) => valuesOf(arg.values)) });

/** Every command path of the tree ('' is the program itself, whose options hold after any command). */
const commandNodes = (commands: readonly CommandSpec[]) => [
  node('', [...commands, HELP_COMMAND], [...GLOBAL_OPTIONS, ...BUILT_IN_OPTIONS]),
  node('help', [{ name: 'exit-codes', summary: 'The exit codes and what each means' }]),
  ...commandPaths(commands).map(({ spec, path }) =>
    node(path.join(' '), spec.subcommands ?? [], spec.options, spec.args),
  ),
];

export function completionScript(shell: 'bash' | 'zsh' | 'fish', commands: readonly CommandSpec[] = COMMANDS) {
  const nodes = commandNodes(commands);
  return shell === 'fish' ? fishScript(nodes) : posixScript(shell, nodes);
}

const HEADER = (install: string) => `# ${install}
#
# Generated from hedge's command specs (src/cli/completion-scripts.ts); do not edit.
# Profile names are read from the store file at completion time; markets and hedge ids from
# what hedge last read (completion-words.json in its state folder), never from the server.
`;

/** A word in single quotes, for bash, zsh and fish alike (fish: backslash and quote escaped). */
const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
const fishQuote = (text: string) => `'${text.replace(/[\\']/g, '\\$&')}'`;
/** The options whose next word is their value, of every command path. */
const valuedFlags = (nodes: CommandNode[]) => nodes.flatMap((node) => node.options).filter((flag) => flag.takesValue);
const uniqueNames = (flags: CommandNode['options']) => [...new Set(flags.flatMap((flag) => flag.names))];

// The profile names of the store file hedge writes (2-space indented JSON).
const PROFILES_SED = `sed -n '/^  "profiles": {/,/^  }/s/^    "\\([A-Za-z0-9][A-Za-z0-9_.-]*\\)": {.*/\\1/p'`;

// The current profile of the store file hedge writes (2-space indented JSON).
const CURRENT_SED = `sed -n 's/^  "current": "\\([A-Za-z0-9][A-Za-z0-9_.-]*\\)",\\{0,1\\}$/\\1/p'`;

/** The words of one list of completion-words.json (2-space JSON, a word a line), `key` the shell's own text naming
 * it; at most its first 64 KiB read, and only a regular file of this user's (not a link). */
const wordsSed = (key: string) =>
  `head -c 65536 "$file" | sed -n '/^  "'${key}'": \\[/,/^  \\]/s/^    "\\([A-Za-z0-9][A-Za-z0-9_.:-]*\\)",\\{0,1\\}$/\\1/p' 2>/dev/null`;
const WORD_KINDS = { market: 'markets', hedge: 'hedges', relationship: 'relationships' } as const;

/** A file of hedge's folder as hedge finds it (HEDGE_CONFIG_DIR, else the XDG folder when absolute, else under
 * HOME) in `$file`, `REPLY` emptied: bash and zsh. */
const posixFile = (
  xdg: string,
  fallback: string,
  name: string,
) => `  # As hedge reads it: a relative ${xdg} is ignored (the XDG spec).
  local xdg=$${xdg}
  [[ $xdg == /* ]] || xdg=$HOME/${fallback}
  local file="\${HEDGE_CONFIG_DIR:-$xdg/hedge}/${name}"
  REPLY=''`;

/** The same folder in `$dir`: fish. */
const fishFolder = (xdg: string, fallback: string) => `    set -l dir $HEDGE_CONFIG_DIR
    if test -z "$dir"
        if string match -q -- '/*' "$${xdg}"
            set dir $${xdg}/hedge
        else
            set dir $HOME/${fallback}/hedge
        end
    end`;

/** bash and zsh share the tables and the walk over the words typed; they differ in how candidates are offered. */
function posixScript(shell: 'bash' | 'zsh', nodes: CommandNode[]) {
  const zsh = shell === 'zsh';
  const offer = zsh
    ? { words: 'compadd -- ${=REPLY}', files: '_files' }
    : {
        words: 'COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))',
        files: 'compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur"))',
      };
  return `${zsh ? '#compdef hedge\n' : ''}${HEADER(zsh ? 'zsh completion for hedge. Install: hedge completion zsh > "${fpath[1]}/_hedge"' : 'bash completion for hedge. Install: hedge completion bash > ~/.local/share/bash-completion/completions/hedge')}
${posixTables(nodes, zsh)}

${posixCompleter(zsh, offer)}

${zsh ? '# Loaded from fpath (autoload) it completes at once; sourced, it registers itself.\nif [[ $zsh_eval_context[-1] == loadautofunc ]]; then\n  _hedge "$@"\nelse\n  compdef _hedge hedge\nfi' : 'complete -F _hedge hedge'}
`;
}

/** The lookup functions the completer asks: subcommands, options and values per command path, and the profile names. */
function posixTables(nodes: CommandNode[], zsh: boolean) {
  const table = (name: string, rows: Array<[string, string]>, fallback = "REPLY=''") => `${name}() {
  case "$1" in
${rows.map(([label, body]) => `    ${label}) ${body} ;;\n`).join('')}    *) ${fallback} ;;
  esac
}`;
  const valueBody = (values: Values) =>
    values === undefined
      ? "REPLY=''"
      : values === 'profile'
        ? '_hedge_profiles'
        : values === 'market' || values === 'hedge' || values === 'relationship'
          ? `_hedge_words ${WORD_KINDS[values]}`
          : values === 'files'
            ? 'return 1'
            : `REPLY=${quote(values.join(' '))}`;
  const valued = valuedFlags(nodes);
  const optionValueRows = new Map<string, string>();
  for (const flag of valued)
    if (flag.values) for (const name of flag.names) optionValueRows.set(name, valueBody(flag.values));
  const argRows = nodes.flatMap((node) =>
    node.args.flatMap((values, index): Array<[string, string]> =>
      values && values !== 'files' ? [[quote(`${node.path}:${index}`), valueBody(values)]] : [],
    ),
  );
  return `# Subcommands of a command path ('' is the top level).
${table(
  '_hedge_subcommands',
  nodes
    .filter((node) => node.subcommands.length)
    .map((node) => [quote(node.path), `REPLY=${quote(node.subcommands.map(({ name }) => name).join(' '))}`]),
)}

# Options of a command path; '' holds the global options, valid after any command.
${table(
  '_hedge_options',
  nodes
    .filter((node) => node.options.length)
    .map((node) => [quote(node.path), `REPLY=${quote(uniqueNames(node.options).join(' '))}`]),
)}

# Options whose next word is their value.
${table('_hedge_takes_value', [[uniqueNames(valued).join(' | '), 'return 0']], 'return 1')}

_hedge_profiles() {
${posixFile('XDG_CONFIG_HOME', '.config', 'config.json')}
  [[ -r $file ]] || return 0
  REPLY=$(${PROFILES_SED} "$file" 2>/dev/null)
}

# Whose ids are offered: the account the words typed name (--demo, --profile NAME), else HEDGE_PROFILE's, else
# none for credentials from the environment (a sandbox's), else the current profile's; REPLY is its key's
# suffix (@demo, @profile:NAME), or empty.
_hedge_scope() {
  local word previous='' scope=''
  for word in ${zsh ? '"${words[@]}"' : '"${COMP_WORDS[@]}"'}; do
    [[ $word == --demo ]] && { REPLY=@demo; return 0; }
    [[ $previous == --profile ]] && scope=$word
    [[ $word == --profile=* ]] && scope=\${word#--profile=}
    previous=$word
  done
  [[ -z $scope ]] && scope=$HEDGE_PROFILE
  if [[ -z $scope ]]; then
    [[ -n $HEDGE_API_KEY || -n $HEDGE_BASE_URL ]] && { REPLY=''; return 0; }
${posixFile('XDG_CONFIG_HOME', '.config', 'config.json')}
    [[ -r $file ]] && scope=$(${CURRENT_SED} "$file" 2>/dev/null)
  fi
  REPLY=\${scope:+@profile:$scope}
}

# The markets, hedge ids or relationship ids ($1) hedge last read, from its state folder (as hedge finds it); ids of
# one account.
_hedge_words() {
  local key=$1
  if [[ $key != markets ]]; then
    _hedge_scope
    [[ -n $REPLY ]] || return 0
    key=$key$REPLY
  fi
${posixFile('XDG_STATE_HOME', '.local/state', 'completion-words.json')}
  [[ -f $file && ! -L $file && -O $file ]] || return 0
  REPLY=$(${wordsSed('"$key"')})
}

# Values of an option; returns 1 when the value is a file name.
${table('_hedge_option_values', [...optionValueRows])}

# Values of the Nth positional argument (0-based) of a command path.
${table('_hedge_arg_values', argRows).replace('case "$1" in', 'case "$1:$2" in')}`;
}

/** `_hedge`, the completer: the same walk over the words typed for bash and zsh, which differ in where those words are. */
function posixCompleter(zsh: boolean, offer: { words: string; files: string }) {
  return `_hedge() {
  local cmdpath='' word option='' expecting='' REPLY cur
  local -i index=0 i first last
  ${zsh ? 'cur=${words[CURRENT]}; first=2; last=$((CURRENT - 1))' : 'cur=${COMP_WORDS[COMP_CWORD]}; first=1; last=$((COMP_CWORD - 1)); COMPREPLY=()'}
  # Walk the words before the cursor: the command path (not $path: zsh ties that to PATH), option values, the positional count.
  for ((i = first; i <= last; i++)); do
    word=${zsh ? '${words[i]}' : '${COMP_WORDS[i]}'}
    if [[ $word == '=' && -n $option ]]; then
      expecting=1 # bash splits --option=value at '='
      continue
    fi
    if [[ -n $expecting ]]; then
      expecting='' option=''
      continue
    fi
    option=''
    case $word in
      --*=*) continue ;;
      -*) _hedge_takes_value "$word" && option=$word expecting=1; continue ;;
    esac
    _hedge_subcommands "$cmdpath"
    if ((index == 0)) && [[ -n $REPLY && " $REPLY " == *" $word "* ]]; then
      cmdpath=\${cmdpath:+$cmdpath }$word
    else
      index+=1
    fi
  done
  if [[ $cur == '=' && -n $option ]]; then
    cur='' expecting=1
  fi
  if [[ -n $expecting ]]; then
    if ! _hedge_option_values "$option"; then ${offer.files}; return 0; fi
    ${offer.words}
    return 0
  fi
  if [[ $cur == -* ]]; then
    local own=''
    if [[ -n $cmdpath ]]; then _hedge_options "$cmdpath"; own=$REPLY; fi
    _hedge_options ''
    REPLY="$own $REPLY"
    ${offer.words}
    return 0
  fi
  _hedge_subcommands "$cmdpath"
  if ((index == 0)) && [[ -n $REPLY ]]; then
    ${offer.words}
    return 0
  fi
  _hedge_arg_values "$cmdpath" "$index" || { ${offer.files}; return 0; }
  ${offer.words}
  return 0
}`;
}

function fishScript(nodes: CommandNode[]) {
  const cases = nodes
    .filter((node) => node.subcommands.length)
    .map(
      (node) =>
        `        case ${fishQuote(node.path)}\n            echo ${node.subcommands.map(({ name }) => name).join(' ')}\n`,
    );
  return `${HEADER('fish completion for hedge. Install: hedge completion fish > ~/.config/fish/completions/hedge.fish')}
# Subcommands of a command path ('' is the top level).
function __hedge_subcommands
    switch "$argv"
${cases.join('')}    end
end

# Options whose next word is their value.
function __hedge_takes_value
    contains -- $argv[1] ${uniqueNames(valuedFlags(nodes)).join(' ')}
end

${FISH_HELPERS}

complete -c hedge -e
# No file names unless an option or argument asks for one.
complete -c hedge -f
${nodes.flatMap(fishCompletions).join('\n')}
`;
}

// The fish functions the completions' conditions call: where the words typed stand, and the profile names.
const FISH_HELPERS = `# The command path (one line) and how many positional arguments follow it, from the words before the cursor.
function __hedge_state
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l path
    set -l index 0
    set -l expecting 0
    for token in $tokens
        if test $expecting = 1
            set expecting 0
            continue
        end
        switch $token
            case '--*=*'
                continue
            case '-*'
                __hedge_takes_value $token; and set expecting 1
                continue
        end
        if test $index = 0; and contains -- $token (string split ' ' -- (__hedge_subcommands "$path"))
            set path $path $token
        else
            set index (math $index + 1)
        end
    end
    echo "$path"
    echo $index
end

function __hedge_path_is
    set -l state (__hedge_state)
    test "$state[1]" = "$argv"
end

function __hedge_command_at
    set -l state (__hedge_state)
    test "$state[1]" = "$argv"; and test "$state[2]" = 0
end

function __hedge_arg_at
    set -l state (__hedge_state)
    test "$state[1]" = "$argv[2..-1]"; and test "$state[2]" = "$argv[1]"
end

function __hedge_profiles
${fishFolder('XDG_CONFIG_HOME', '.config')}
    test -r $dir/config.json; or return 0
    command ${PROFILES_SED} $dir/config.json 2>/dev/null
end

# Whose ids are offered (as _hedge_scope in bash and zsh): its key's suffix, or nothing.
function __hedge_scope
    set -l previous ''
    set -l scope ''
    for word in (commandline -opc)
        test "$word" = --demo; and echo @demo; and return 0
        test "$previous" = --profile; and set scope $word
        string match -q -- '--profile=*' $word; and set scope (string replace -- '--profile=' '' $word)
        set previous $word
    end
    test -z "$scope"; and set scope "$HEDGE_PROFILE"
    if test -z "$scope"
        test -n "$HEDGE_API_KEY$HEDGE_BASE_URL"; and return 0
${fishFolder('XDG_CONFIG_HOME', '.config').replace(/^/gm, '    ')}
        test -r $dir/config.json; and set scope (command ${CURRENT_SED} $dir/config.json 2>/dev/null)
    end
    test -n "$scope"; and echo @profile:$scope
end

# The markets, hedge ids or relationship ids ($argv[1]) hedge last read, from its state folder (as hedge finds it);
# ids of one account.
function __hedge_words
    set -l key $argv[1]
    if test "$key" != markets
        set -l account (__hedge_scope)
        test -n "$account"; or return 0
        set key $key$account
    end
${fishFolder('XDG_STATE_HOME', '.local/state')}
    set -l file $dir/completion-words.json
    test -f $file; and not test -L $file; and test -O $file; or return 0
    ${wordsSed('$key').replace('head -c', 'command head -c').replace('| sed', '| command sed')}
end`;

/** The `complete` lines of one command path: its subcommands, its options, its positional arguments. */
function fishCompletions(node: CommandNode) {
  const at = node.path ? ` ${node.path}` : '';
  const offer = (values: NonNullable<Values>) =>
    values === 'profile'
      ? "-a '(__hedge_profiles)'"
      : values === 'market' || values === 'hedge' || values === 'relationship'
        ? `-a '(__hedge_words ${WORD_KINDS[values]})'`
        : values === 'files'
          ? '-F'
          : `-a ${fishQuote(values.join(' '))}`;
  const valueFlags = (values: Values) =>
    values === undefined ? ' -x' : values === 'files' ? ' -r -F' : ` -x ${offer(values)}`;
  // The program's options hold after any command: no condition.
  const condition = node.path ? ` -n ${fishQuote(`__hedge_path_is${at}`)}` : '';
  return [
    ...node.subcommands.map(
      (sub) =>
        `complete -c hedge -n ${fishQuote(`__hedge_command_at${at}`)} -a ${sub.name} -d ${fishQuote(sub.summary)}`,
    ),
    ...node.options.map((option) => {
      const names = option.names
        .map((name) => (name.startsWith('--') ? ` -l ${name.slice(2)}` : ` -s ${name.slice(1)}`))
        .join('');
      return `complete -c hedge${condition}${names}${option.takesValue ? valueFlags(option.values) : ''} -d ${fishQuote(option.description)}`;
    }),
    ...node.args.flatMap((values, index) =>
      values ? [`complete -c hedge -n ${fishQuote(`__hedge_arg_at ${index} ${node.path}`)} ${offer(values)}`] : [],
    ),
  ];
}
