# bash completion for hedge
#
# Install (either one):
#   hedge completion bash > ~/.local/share/bash-completion/completions/hedge
#   echo 'source <(hedge completion bash)' >> ~/.bashrc
#
# The command tree below is checked against src/commands/manifest.ts by
# test/e2e/completion-sync.test.ts: a command or option added there without its completion
# here fails the tests. Profile names are read from the store file at completion time (no
# node process is started, so completing stays instant).

# Subcommands of a command path ('' is the top level).
_hedge_subcommands() {
  case "$1" in
    '') REPLY='markets price quote open add reduce close hedges history positions account maturities roll login logout profile whoami doctor plan apply keep report journal resume demo mcp tools api completion sandbox help' ;;
    'profile') REPLY='list use remove reset-wire' ;;
    'journal') REPLY='list show resolve migrate' ;;
    'demo') REPLY='reset' ;;
    'sandbox') REPLY='serve' ;;
    'help') REPLY='exit-codes' ;;
    *) REPLY='' ;;
  esac
}

# Options of a command path; '' holds the global options, valid after any command.
_hedge_options() {
  case "$1" in
    '') REPLY='--json --raw --profile --demo -y --yes --no-input --no-color --verbose --timeout --request-timeout --format --fields --query --no-header -h --help -V --version' ;;
    'quote') REPLY='-t --tenor --until' ;;
    'open') REPLY='-t --tenor --ref --allow-duplicate-ref --skip-checks --no-wait --idempotency-key --new --dry-run' ;;
    'add') REPLY='--skip-checks --no-wait --idempotency-key --new --dry-run' ;;
    'reduce') REPLY='--no-wait --idempotency-key --new --dry-run' ;;
    'close') REPLY='--no-wait --idempotency-key --new --dry-run' ;;
    'price') REPLY='--watch --alert-pnl --alert-maturity --exit-on-alert --count --until' ;;
    'hedges') REPLY='--status --ref --limit --all --wait --watch --alert-pnl --alert-maturity --exit-on-alert --count --until' ;;
    'positions') REPLY='--ref --watch --alert-pnl --alert-maturity --exit-on-alert --count --until' ;;
    'account') REPLY='--watch --alert-pnl --alert-maturity --exit-on-alert --count --until' ;;
    'maturities') REPLY='--within --ref --until' ;;
    'roll') REPLY='-t --tenor --skip-checks --no-wait --idempotency-key --new --dry-run' ;;
    'mcp') REPLY='--allow-live --root --max-notional --max-daily-notional --markets' ;;
    'history') REPLY='--limit --all --since --until --ref' ;;
    'plan') REPLY='--tolerance --until' ;;
    'apply') REPLY='--tolerance --dry-run' ;;
    'keep') REPLY='--once --interval --converge --tolerance --alert-cmd --dry-run' ;;
    'report') REPLY='--since --until --by --ref --html' ;;
    'journal list') REPLY='--pending --since --limit --ref --until' ;;
    'journal resolve') REPLY='--landed --not-landed' ;;
    'resume') REPLY='--no-wait' ;;
    'login') REPLY='--base-url --ca-file --journal-url' ;;
    'profile reset-wire') REPLY='--all' ;;
    'sandbox serve') REPLY='--port --host --tls --fill-delay --fail-rate --clock-speed --seed --fault-5xx --fault-429 --drop-after-commit --latency --rate-limit --dialect --clock-skew --hostile-text' ;;
    'markets') REPLY='--until' ;;
    'whoami') REPLY='--until' ;;
    'journal show') REPLY='--until' ;;
    'tools') REPLY='--errors' ;;
    'api') REPLY='-X --method -f --raw-field -F --field -H --header --input --paginate -i --include --idempotency-key --new --dry-run --until' ;;
    *) REPLY='' ;;
  esac
}

# Options whose next word is their value.
_hedge_takes_value() {
  case "$1" in
    --profile | --timeout | --request-timeout | -t | --tenor | --ref | --idempotency-key | --status | --limit | \
      --since | --until | --tolerance | --by | --format | --fields | --query | --html | \
      -X | --method | -f | --raw-field | -F | --field | -H | --header | --input | \
      --max-notional | --max-daily-notional | --markets | \
      --watch | --alert-pnl | --alert-maturity | --within | --interval | --alert-cmd | --count | \
      --base-url | --ca-file | --journal-url | --port | --host | --fill-delay | --fail-rate | --clock-speed | --seed | \
      --fault-5xx | --fault-429 | --drop-after-commit | --latency | --rate-limit | --dialect | --root | --clock-skew)
      return 0 ;;
  esac
  return 1
}

# Stored profile names, straight from the store file that hedge writes (2-space indented JSON).
_hedge_profiles() {
  local file="${HEDGE_CONFIG_DIR:-${XDG_CONFIG_HOME:-$HOME/.config}/hedge}/config.json"
  REPLY=''
  [[ -r $file ]] || return 0
  REPLY=$(sed -n '/^  "profiles": {/,/^  }/s/^    "\([A-Za-z0-9][A-Za-z0-9_.-]*\)": {.*/\1/p' "$file" 2>/dev/null)
}

# Values of an option; returns 1 when the value is a file name.
_hedge_option_values() {
  REPLY=''
  case "$1" in
    --profile) _hedge_profiles ;;
    -t | --tenor) REPLY='1 3 7' ;;
    --status) REPLY='submitting submitted filled failed closed' ;;
    --by) REPLY='day week month side tenor market hedge' ;;
    --format) REPLY='table tsv csv json ndjson' ;;
    --dialect) REPLY='reference alpha beta gamma' ;;
    -X | --method) REPLY='GET POST PUT PATCH DELETE' ;;
    --ca-file | --html | --input | --root) return 1 ;;
  esac
  return 0
}

# Values of the Nth positional argument (0-based) of a command path.
_hedge_arg_values() {
  REPLY=''
  case "$1:$2" in
    'quote:1' | 'open:1' | 'add:1' | 'reduce:1' | 'close:1' | 'roll:1') REPLY='buy sell' ;;
    'completion:0') REPLY='bash zsh fish' ;;
    'profile use:0' | 'profile remove:0') _hedge_profiles ;;
  esac
}

_hedge() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  local path='' word option='' expecting='' REPLY
  local -i index=0 i
  COMPREPLY=()
  # Walk the words before the cursor: the command path, option values, positional count.
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    if [[ $word == '=' && -n $option ]]; then
      expecting=1 # an option's =value is split at '=' by COMP_WORDBREAKS
      continue
    fi
    if [[ -n $expecting ]]; then
      expecting=''
      option=''
      continue
    fi
    option=''
    case $word in
      -*)
        if _hedge_takes_value "$word"; then
          option=$word
          expecting=1
        fi
        continue ;;
    esac
    _hedge_subcommands "$path"
    if ((index == 0)) && [[ -n $REPLY && " $REPLY " == *" $word "* ]]; then
      path=${path:+$path }$word
    else
      index+=1
    fi
  done
  if [[ $cur == '=' && -n $option ]]; then
    cur=''
    expecting=1
  fi

  if [[ -n $expecting ]]; then
    if ! _hedge_option_values "$option"; then
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -f -- "$cur"))
      return 0
    fi
    COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
    return 0
  fi
  if [[ $cur == -* ]]; then
    local own=''
    if [[ -n $path ]]; then
      _hedge_options "$path"
      own=$REPLY
    fi
    _hedge_options ''
    COMPREPLY=($(compgen -W "$own $REPLY" -- "$cur"))
    return 0
  fi
  _hedge_subcommands "$path"
  if ((index == 0)) && [[ -n $REPLY ]]; then
    COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
    return 0
  fi
  _hedge_arg_values "$path" "$index"
  COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
  return 0
}

complete -F _hedge hedge
