# bash completion for hedge. Install: hedge completion bash > ~/.local/share/bash-completion/completions/hedge
#
# Generated from hedge's command specs (src/cli/completion-scripts.ts); do not edit.
# Profile names are read from the store file at completion time; markets and hedge ids from
# what hedge last read (completion-words.json in its state folder), never from the server.

# Subcommands of a command path ('' is the top level).
_hedge_subcommands() {
  case "$1" in
    '') REPLY='markets price quote open add reduce close hedges history positions account maturities roll login logout profile whoami doctor plan apply keep exposures report journal resume acct demo mcp tools api completion sandbox help' ;;
    'help') REPLY='exit-codes' ;;
    'profile') REPLY='list use remove reset-wire' ;;
    'keep') REPLY='run status' ;;
    'journal') REPLY='list show resolve migrate' ;;
    'acct') REPLY='designate rates test event reserve journal log close list show entities approve policy disclose' ;;
    'demo') REPLY='reset' ;;
    'sandbox') REPLY='serve' ;;
    *) REPLY='' ;;
  esac
}

# Options of a command path; '' holds the global options, valid after any command.
_hedge_options() {
  case "$1" in
    '') REPLY='--json --raw --profile --demo -y --yes --no-input --no-color --verbose --timeout --request-timeout --format --fields --query --no-header -h --help -V --version' ;;
    'markets') REPLY='--until' ;;
    'price') REPLY='--watch --alert-pnl --alert-maturity --exit-on-alert --count --until' ;;
    'quote') REPLY='-t --tenor' ;;
    'open') REPLY='-t --tenor --ref --allow-duplicate-ref --skip-checks --no-wait --idempotency-key --new --dry-run --again' ;;
    'add') REPLY='--skip-checks --no-wait --idempotency-key --new --dry-run --again' ;;
    'reduce') REPLY='--no-wait --idempotency-key --new --dry-run --again' ;;
    'close') REPLY='--no-wait --idempotency-key --new --dry-run --again' ;;
    'hedges') REPLY='--status --ref --limit --all --wait --watch --alert-pnl --alert-maturity --exit-on-alert --count --until' ;;
    'history') REPLY='--limit --all --since --until --ref' ;;
    'positions') REPLY='--ref --watch --alert-pnl --alert-maturity --exit-on-alert --count --until' ;;
    'account') REPLY='--watch --alert-pnl --alert-maturity --exit-on-alert --count --until' ;;
    'maturities') REPLY='--within --ref --until' ;;
    'roll') REPLY='-t --tenor --ref --skip-checks --no-wait --idempotency-key --new --dry-run --again' ;;
    'login') REPLY='--base-url --ca-file --journal-url --key-command --key-store --move-key' ;;
    'profile reset-wire') REPLY='--all' ;;
    'whoami') REPLY='--until' ;;
    'plan') REPLY='--tolerance --adopt --until' ;;
    'apply') REPLY='--tolerance --adopt --dry-run' ;;
    'keep run') REPLY='--once --interval --converge --tolerance --adopt --alert-cmd --alert-url --alert-headroom --metrics --dry-run --exposures --policy' ;;
    'exposures') REPLY='--policy --ratios --band --sizing --functional --no-netting --fee-bps --show --report --html' ;;
    'report') REPLY='--since --until --by --ref --html' ;;
    'journal list') REPLY='--pending --since --limit --ref --until' ;;
    'journal show') REPLY='--until' ;;
    'journal resolve') REPLY='--landed --not-landed' ;;
    'resume') REPLY='--no-wait --resend-unproven' ;;
    'acct designate') REPLY='--recorded-late --markdown --html --by' ;;
    'acct rates') REPLY='--market --quote --record --correct --reason --by' ;;
    'acct test') REPLY='--as-of --period --entity --values --until' ;;
    'acct event') REPLY='--occurred --disposed --share --amount --de-designate --ground --not-expected --rebalance --ratio --terminate --reason --correct --by' ;;
    'acct reserve') REPLY='--as-of --period --entity --values --until' ;;
    'acct journal') REPLY='--as-of --period --entity --accounts --gl --ledger --values --until' ;;
    'acct close') REPLY='--period --entity --values --by' ;;
    'acct list') REPLY='--entity' ;;
    'acct show') REPLY='--markdown' ;;
    'acct entities') REPLY='--by' ;;
    'acct approve') REPLY='--reject --reason --by' ;;
    'acct policy') REPLY='--four-eyes --by' ;;
    'acct disclose') REPLY='--period --entity --accounts --html' ;;
    'mcp') REPLY='--allow-live --root --max-notional --max-daily-notional --markets' ;;
    'tools') REPLY='--errors' ;;
    'api') REPLY='-X --method -f --raw-field -F --field -H --header --input --paginate -i --include --idempotency-key --new --dry-run --again --until' ;;
    'sandbox serve') REPLY='--port --host --tls --fill-delay --fail-rate --clock-speed --start --seed --fault-5xx --fault-429 --drop-after-commit --latency --rate-limit --dialect --clock-skew --hostile-text --view-lag --record-lag --several-per-side --settlement-delay --day' ;;
    *) REPLY='' ;;
  esac
}

# Options whose next word is their value.
_hedge_takes_value() {
  case "$1" in
    --profile | --timeout | --request-timeout | --format | --fields | --query | --until | --watch | --alert-pnl | --alert-maturity | --count | -t | --tenor | --ref | --idempotency-key | --status | --limit | --since | --within | --base-url | --ca-file | --journal-url | --key-command | --key-store | --tolerance | --adopt | --interval | --alert-cmd | --alert-url | --alert-headroom | --metrics | --policy | --ratios | --band | --sizing | --functional | --fee-bps | --show | --html | --by | --recorded-late | --market | --quote | --reason | --as-of | --period | --entity | --values | --occurred | --disposed | --share | --amount | --de-designate | --ground | --rebalance | --ratio | --terminate | --correct | --accounts | --ledger | --four-eyes | --root | --max-notional | --max-daily-notional | --markets | -X | --method | -f | --raw-field | -F | --field | -H | --header | --input | --port | --host | --fill-delay | --fail-rate | --clock-speed | --start | --seed | --fault-5xx | --fault-429 | --drop-after-commit | --latency | --rate-limit | --dialect | --clock-skew | --view-lag | --record-lag | --settlement-delay | --day) return 0 ;;
    *) return 1 ;;
  esac
}

_hedge_profiles() {
  # As hedge reads it: a relative XDG_CONFIG_HOME is ignored (the XDG spec).
  local xdg=$XDG_CONFIG_HOME
  [[ $xdg == /* ]] || xdg=$HOME/.config
  local file="${HEDGE_CONFIG_DIR:-$xdg/hedge}/config.json"
  REPLY=''
  [[ -r $file ]] || return 0
  REPLY=$(sed -n '/^  "profiles": {/,/^  }/s/^    "\([A-Za-z0-9][A-Za-z0-9_.-]*\)": {.*/\1/p' "$file" 2>/dev/null)
}

# Whose ids are offered: the account the words typed name (--demo, --profile NAME), else HEDGE_PROFILE's, else
# none for credentials from the environment (a sandbox's), else the current profile's; REPLY is its key's
# suffix (@demo, @profile:NAME), or empty.
_hedge_scope() {
  local word previous='' scope=''
  for word in "${COMP_WORDS[@]}"; do
    [[ $word == --demo ]] && { REPLY=@demo; return 0; }
    [[ $previous == --profile ]] && scope=$word
    [[ $word == --profile=* ]] && scope=${word#--profile=}
    previous=$word
  done
  [[ -z $scope ]] && scope=$HEDGE_PROFILE
  if [[ -z $scope ]]; then
    [[ -n $HEDGE_API_KEY || -n $HEDGE_BASE_URL ]] && { REPLY=''; return 0; }
  # As hedge reads it: a relative XDG_CONFIG_HOME is ignored (the XDG spec).
  local xdg=$XDG_CONFIG_HOME
  [[ $xdg == /* ]] || xdg=$HOME/.config
  local file="${HEDGE_CONFIG_DIR:-$xdg/hedge}/config.json"
  REPLY=''
    [[ -r $file ]] && scope=$(sed -n 's/^  "current": "\([A-Za-z0-9][A-Za-z0-9_.-]*\)",\{0,1\}$/\1/p' "$file" 2>/dev/null)
  fi
  REPLY=${scope:+@profile:$scope}
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
  # As hedge reads it: a relative XDG_STATE_HOME is ignored (the XDG spec).
  local xdg=$XDG_STATE_HOME
  [[ $xdg == /* ]] || xdg=$HOME/.local/state
  local file="${HEDGE_CONFIG_DIR:-$xdg/hedge}/completion-words.json"
  REPLY=''
  [[ -f $file && ! -L $file && -O $file ]] || return 0
  REPLY=$(head -c 65536 "$file" | sed -n '/^  "'"$key"'": \[/,/^  \]/s/^    "\([A-Za-z0-9][A-Za-z0-9_.:-]*\)",\{0,1\}$/\1/p' 2>/dev/null)
}

# Values of an option; returns 1 when the value is a file name.
_hedge_option_values() {
  case "$1" in
    --profile) _hedge_profiles ;;
    --format) REPLY='table tsv csv json ndjson' ;;
    -t) REPLY='1 3 7' ;;
    --tenor) REPLY='1 3 7' ;;
    --status) REPLY='submitting submitted filled failed closed' ;;
    --ca-file) return 1 ;;
    --key-store) REPLY='keyring file' ;;
    --policy) return 1 ;;
    --sizing) REPLY='current fixed' ;;
    --show) REPLY='book exposures schedule cost stress policy coverage effectiveness' ;;
    --html) return 1 ;;
    --by) REPLY='day week month side tenor market hedge ref' ;;
    --values) return 1 ;;
    --ground) REPLY='objective-changed criteria-not-met instrument-ended voluntary' ;;
    --accounts) return 1 ;;
    --four-eyes) REPLY='on off' ;;
    --root) return 1 ;;
    -X) REPLY='GET POST PUT PATCH DELETE' ;;
    --method) REPLY='GET POST PUT PATCH DELETE' ;;
    --input) return 1 ;;
    --dialect) REPLY='reference alpha beta gamma delta epsilon' ;;
    *) REPLY='' ;;
  esac
}

# Values of the Nth positional argument (0-based) of a command path.
_hedge_arg_values() {
  case "$1:$2" in
    'price:0') _hedge_words markets ;;
    'quote:0') _hedge_words markets ;;
    'quote:1') REPLY='buy sell' ;;
    'open:0') _hedge_words markets ;;
    'open:1') REPLY='buy sell' ;;
    'add:0') _hedge_words markets ;;
    'add:1') REPLY='buy sell' ;;
    'reduce:0') _hedge_words markets ;;
    'reduce:1') REPLY='buy sell' ;;
    'close:0') _hedge_words markets ;;
    'close:1') REPLY='buy sell' ;;
    'hedges:0') _hedge_words hedges ;;
    'roll:0') _hedge_words markets ;;
    'roll:1') REPLY='buy sell' ;;
    'profile use:0') _hedge_profiles ;;
    'profile remove:0') _hedge_profiles ;;
    'acct test:0') _hedge_words relationships ;;
    'acct event:0') _hedge_words relationships ;;
    'acct reserve:0') _hedge_words relationships ;;
    'acct journal:0') _hedge_words relationships ;;
    'acct show:0') _hedge_words relationships ;;
    'completion:0') REPLY='bash zsh fish' ;;
    *) REPLY='' ;;
  esac
}

_hedge() {
  local cmdpath='' word option='' expecting='' REPLY cur
  local -i index=0 i first last
  cur=${COMP_WORDS[COMP_CWORD]}; first=1; last=$((COMP_CWORD - 1)); COMPREPLY=()
  # Walk the words before the cursor: the command path (not $path: zsh ties that to PATH), option values, the positional count.
  for ((i = first; i <= last; i++)); do
    word=${COMP_WORDS[i]}
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
      cmdpath=${cmdpath:+$cmdpath }$word
    else
      index+=1
    fi
  done
  if [[ $cur == '=' && -n $option ]]; then
    cur='' expecting=1
  fi
  if [[ -n $expecting ]]; then
    if ! _hedge_option_values "$option"; then compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")); return 0; fi
    COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
    return 0
  fi
  if [[ $cur == -* ]]; then
    local own=''
    if [[ -n $cmdpath ]]; then _hedge_options "$cmdpath"; own=$REPLY; fi
    _hedge_options ''
    REPLY="$own $REPLY"
    COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
    return 0
  fi
  _hedge_subcommands "$cmdpath"
  if ((index == 0)) && [[ -n $REPLY ]]; then
    COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
    return 0
  fi
  _hedge_arg_values "$cmdpath" "$index" || { compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")); return 0; }
  COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
  return 0
}

complete -F _hedge hedge
