#compdef hedge
# zsh completion for hedge
#
# Install (either one):
#   hedge completion zsh > "${fpath[1]}/_hedge"      # then start a new shell
#   echo 'source <(hedge completion zsh)' >> ~/.zshrc  # after compinit
#
# The command tree below is checked against src/commands/manifest.ts by
# test/e2e/completion-sync.test.ts: a command or option added there without its completion
# here fails the tests. Profile names are read from the store file at completion time (no
# node process is started, so completing stays instant).

# Subcommands of a command path ('' is the top level), as name:description.
_hedge_subcommands() {
  case $1 in
    ('') reply=(
      'markets:List the markets open to the account: status, price, capacity and daily carry per side'
      'price:Show the indicative mid price of a market (every listed market without one)'
      'quote:Quote a hedge: execution price, impact, carry, margin, fee and maturity (reserves nothing)'
      'open:Open a hedge and wait for the fill (no arguments on a terminal starts a wizard)'
      'add:Add notional to the open hedge on a market and side (same maturity)'
      'reduce:Remove notional from the open hedge on a market and side (margin scales down with it)'
      'close:Close the position on a market and side, and show what it returned'
      'hedges:List hedges, newest first, or show one hedge in full'
      'history:List closed hedges with realized P&L, carry and fees, with totals'
      'positions:Show open positions per side: entry and mark, P&L, carry, fee to close, net margin'
      'account:Show the account: balance, margin in use, exposure, unrealized P&L and headroom'
      'maturities:Upcoming settlements grouped by day, with countdown, mark P&L and carry'
      'roll:Keep a side covered past its maturity: close and open the same notional for a new tenor'
      'login:Save a profile: base URL and API key (asked hidden on a terminal, read from stdin otherwise)'
      'logout:Remove the stored API key of a profile (the current one by default)'
      'profile:List, switch and remove stored profiles; forget learned wire names'
      'whoami:Show the profile, environment, base URL and key in use, where each came from, and whether the key works'
      'doctor:Check the set-up against the server: key, base URL and TLS, clock, every read, the wire it speaks, rate limits'
      'plan:Show the actions that bring the book to a target file (CSV or JSON), their cost and checks; sends nothing'
      'apply:Bring the book to a target file: plan, confirm once, then each action through the journal'
      'keep:Hold the book at a target file through maturities: roll what matures, re-open what settled, report drift'
      'report:P&L by day, week, month, side, tenor or market from history, with unrealized P&L; CSV; --html FILE'
      'journal:The local record of every action: list, show one, resolve one by hand'
      'resume:Finish an unresolved action from the journal with its own key'
      'demo:The --demo simulator'
      'mcp:Serve the commands as Model Context Protocol tools over stdio, for an AI agent'
      'tools:Describe the commands an agent may call: names, argument schemas and safety tiers'
      'api:Call any endpoint with the profile's key, as gh api does; prints the whole envelope; writes journaled'
      'completion:Print the shell completion script for bash, zsh or fish'
      'sandbox:Run the local simulator of the API'
      'help:Show help for a command, or the exit codes (help exit-codes)'
    ) ;;
    (profile) reply=(
      'list:List profiles: name, environment, base URL, redacted key, which is current'
      'use:Make a profile the current one'
      'remove:Delete a stored profile'
      'reset-wire:Forget the wire names hedge learned from the server'
    ) ;;
    (journal) reply=(
      'list:List the journal of actions, newest first'
      'show:Show one journal entry in full: request, idempotency key, outcome'
      'resolve:Record by hand whether an unresolved action landed'
      'migrate:Move the local journal into the team store'
    ) ;;
    (demo) reply=(
      'reset:Start the --demo simulator afresh (deletes its state: test funds only)'
    ) ;;
    (sandbox) reply=(
      'serve:Serve the simulator over HTTP(S) on loopback; prints HEDGE_BASE_URL and HEDGE_API_KEY first'
    ) ;;
    (help) reply=(
      'exit-codes:Print the table of exit codes'
    ) ;;
    (*) reply=() ;;
  esac
}

# Options of a command path; '' holds the global options, valid after any command.
_hedge_options() {
  case $1 in
    ('') reply=(
      '--json:print one JSON document on stdout (the API data); messages go to stderr'
      '--profile:use this stored profile (default: HEDGE_PROFILE, then the current one)'
      '--demo:run against a local simulator with a built-in test key (no account needed)'
      '-y:confirm state-changing commands on live keys without asking'
      '--yes:confirm state-changing commands on live keys without asking'
      '--no-input:never prompt; missing arguments are an error'
      '--no-color:no colour (also NO_COLOR=1 or TERM=dumb)'
      '--verbose:log each HTTP request to stderr (keys redacted)'
      '--timeout:give up after this long, waits included (exit 7 while waiting, 5 on a request)'
      '--request-timeout:bound each HTTP attempt (default 15)'
      '--format:table, tsv, csv, json or ndjson'
      '--fields:only these fields, in this order (comma-separated)'
      '--query:a JMESPath expression applied to the JSON data'
      '--no-header:tsv and csv without their header row'
      '--raw:with JSON: the server data as it sent it'
      '-h:show help'
      '--help:show help'
      '-V:print the version'
      '--version:print the version'
    ) ;;
    (quote) reply=(
      '-t:tenor in days: 1, 3 or 7'
      '--tenor:tenor in days: 1, 3 or 7'
      '--until:poll until this JMESPath condition over the --json data holds (exit 124 at --timeout)'
    ) ;;
    (open) reply=(
      '-t:tenor in days: 1, 3 or 7'
      '--tenor:tenor in days: 1, 3 or 7'
      '--ref:your own deal id, to find the hedge later with `hedge hedges --ref`'
      '--allow-duplicate-ref:open even if an active hedge already carries this --ref'
      '--skip-checks:skip the pre-trade checks and let the server decide'
      '--no-wait:return at `submitted` instead of waiting for the result'
      '--idempotency-key:resume an earlier run whose outcome is unknown (reuses its key)'
      '--new:start a fresh action even if the same one is unresolved in the journal'
      '--dry-run:print the exact request that would be sent, and send nothing'
    ) ;;
    (add) reply=(
      '--skip-checks:skip the pre-trade checks and let the server decide'
      '--no-wait:return at `submitted` instead of waiting for the result'
      '--idempotency-key:resume an earlier run whose outcome is unknown (reuses its key)'
      '--new:start a fresh action even if the same one is unresolved in the journal'
      '--dry-run:print the exact request that would be sent, and send nothing'
    ) ;;
    (reduce) reply=(
      '--no-wait:return at `submitted` instead of waiting for the result'
      '--idempotency-key:resume an earlier run whose outcome is unknown (reuses its key)'
      '--new:start a fresh action even if the same one is unresolved in the journal'
      '--dry-run:print the exact request that would be sent, and send nothing'
    ) ;;
    (close) reply=(
      '--no-wait:return at `submitted` instead of waiting for the result'
      '--idempotency-key:resume an earlier run whose outcome is unknown (reuses its key)'
      '--new:start a fresh action even if the same one is unresolved in the journal'
      '--dry-run:print the exact request that would be sent, and send nothing'
    ) ;;
    (hedges) reply=(
      '--status:only hedges in this status'
      '--ref:only hedges with this client reference'
      '--limit:at most this many (1 to 500; default 50)'
      '--all:every one there is, page after page'
      '--wait:with an ID: poll until the hedge is filled, failed or closed'
      '--watch:refresh every few seconds (default 2); NDJSON when not a terminal'
      '--alert-pnl:with --watch: alert when net P&L is at or below this many USD'
      '--alert-maturity:with --watch: alert when a hedge matures within this long'
      '--exit-on-alert:with --watch: end at the first alert with exit code 10'
      '--count:with --watch: stop after this many refreshes'
      '--until:poll until this JMESPath condition over the --json data holds (exit 124 at --timeout)'
    ) ;;
    (positions) reply=(
      '--ref:only what carries this client reference (your deal id)'
      '--watch:refresh every few seconds (default 2); NDJSON when not a terminal'
      '--alert-pnl:with --watch: alert when net P&L is at or below this many USD'
      '--alert-maturity:with --watch: alert when a hedge matures within this long'
      '--exit-on-alert:with --watch: end at the first alert with exit code 10'
      '--count:with --watch: stop after this many refreshes'
      '--until:poll until this JMESPath condition over the --json data holds (exit 124 at --timeout)'
    ) ;;
    (price|account) reply=(
      '--watch:refresh every few seconds (default 2); NDJSON when not a terminal'
      '--alert-pnl:with --watch: alert when net P&L is at or below this many USD'
      '--alert-maturity:with --watch: alert when a hedge matures within this long'
      '--exit-on-alert:with --watch: end at the first alert with exit code 10'
      '--count:with --watch: stop after this many refreshes'
      '--until:poll until this JMESPath condition over the --json data holds (exit 124 at --timeout)'
    ) ;;
    (maturities) reply=(
      '--within:only hedges maturing within this long: 12h, 3d, 2w'
      '--ref:only what carries this client reference (your deal id)'
      '--until:poll until this JMESPath condition over the --json data holds (exit 124 at --timeout)'
    ) ;;
    (markets|whoami|'journal show') reply=(
      '--until:poll until this JMESPath condition over the --json data holds (exit 124 at --timeout)'
    ) ;;
    (roll) reply=(
      '-t:tenor in days: 1, 3 or 7'
      '--tenor:tenor in days: 1, 3 or 7'
      '--skip-checks:skip the pre-trade checks and let the server decide'
      '--no-wait:return at `submitted` instead of waiting for the result'
      '--idempotency-key:resume an earlier run whose outcome is unknown (reuses its key)'
      '--new:start a fresh action even if the same one is unresolved in the journal'
      '--dry-run:print the exact request that would be sent, and send nothing'
    ) ;;
    (mcp) reply=(
      '--allow-live:offer write tools on a live key too (each write needs a confirmation token)'
      '--root:a directory plan and apply may read target files from (repeatable)'
      '--max-notional:refuse a write tool call that trades more than this many USD'
      '--max-daily-notional:refuse a write past the agent's trades of the last 24 h plus this call'
      '--markets:the only markets write tools may trade, comma-separated'
    ) ;;
    (tools) reply=(
      '--errors:print the error catalogue: every error code, its exit code, whether and how to retry'
    ) ;;
    (api) reply=(
      '-X:GET (default), POST, PUT, PATCH or DELETE; every method but GET is a journaled write'
      '--method:GET (default), POST, PUT, PATCH or DELETE; every method but GET is a journaled write'
      '-f:a string parameter: query string of a GET, JSON body otherwise'
      '--raw-field:a string parameter: query string of a GET, JSON body otherwise'
      '-F:a typed parameter: numbers, true, false, null, @file; key[sub]= and key[]= nest'
      '--field:a typed parameter: numbers, true, false, null, @file; key[sub]= and key[]= nest'
      '-H:an extra request header (never Authorization)'
      '--header:an extra request header (never Authorization)'
      '--input:the JSON body from this file (- for stdin)'
      '--paginate:GET every page of a list into one envelope'
      '-i:print the HTTP status line and response headers before the body'
      '--include:print the HTTP status line and response headers before the body'
      '--idempotency-key:resume an earlier run whose outcome is unknown (reuses its key)'
      '--new:start a fresh action even if the same one is unresolved in the journal'
      '--dry-run:print the exact request that would be sent, and send nothing'
      '--until:poll a GET until this JMESPath condition over the envelope holds'
    ) ;;
    (history) reply=(
      '--limit:at most this many (1 to 500; default 50)'
      '--all:every one there is, page after page'
      '--since:closed on or after this date'
      '--until:closed before this date, or a condition to poll until'
      '--ref:only what carries this client reference (your deal id)'
    ) ;;
    (plan) reply=(
      '--tolerance:treat differences up to this many USD as at target'
      '--until:poll until this JMESPath condition over the --json data holds (exit 124 at --timeout)'
    ) ;;
    (apply) reply=(
      '--tolerance:treat differences up to this many USD as at target'
      '--dry-run:the same as hedge plan: show, send nothing'
    ) ;;
    (keep) reply=(
      '--once:run one cycle and exit'
      '--interval:seconds between cycles'
      '--converge:bring a drifted side back to its target'
      '--tolerance:treat differences up to this many USD as at target'
      '--alert-cmd:run this command with error and drift events on stdin'
      '--dry-run:print what one cycle would do, send nothing'
    ) ;;
    (report) reply=(
      '--since:closed on or after this date'
      '--until:closed before this date'
      '--by:group by day, week, month, side, tenor, market or hedge'
      '--ref:only what carries this client reference (your deal id)'
      '--html:also write a self-contained HTML report to this file'
    ) ;;
    ('journal list') reply=(
      '--pending:only actions whose outcome is not known yet'
      '--since:only actions from this time'
      '--limit:at most this many (default 50)'
      '--ref:only what carries this client reference (your deal id)'
      '--until:poll until this JMESPath condition over the --json data holds (exit 124 at --timeout)'
    ) ;;
    ('journal resolve') reply=(
      '--landed:it happened on the server: record it as done'
      '--not-landed:it did not happen: set it aside'
    ) ;;
    (resume) reply=(
      '--no-wait:return once the server answered, without waiting for the result'
    ) ;;
    (login) reply=(
      '--base-url:the API base address, https://…/v2 (the partner desk gives it)'
      '--ca-file:a PEM CA file to trust for this profile (self-signed sandboxes)'
      '--journal-url:the team journal store, postgres://USER@HOST:PORT/DB'
    ) ;;
    ('profile reset-wire') reply=(
      '--all:forget them for every profile and server'
    ) ;;
    ('sandbox serve') reply=(
      '--port:port (default: any free port)'
      '--host:loopback address to listen on (default 127.0.0.1)'
      '--tls:serve HTTPS with a fresh CA (printed as NODE_EXTRA_CA_CERTS)'
      '--fill-delay:time from submitted to filled (default 2000)'
      '--fail-rate:share of opens that fail on-chain, 0 to 1'
      '--clock-speed:sandbox clock speed (e.g. 3600: an hour per second)'
      '--seed:seed of the price path and faults'
      '--fault-5xx:share of requests answered 500/503, 0 to 1'
      '--fault-429:share of requests answered 429, 0 to 1'
      '--drop-after-commit:share of writes whose connection drops after they took effect'
      '--latency:added latency per request'
      '--rate-limit:requests per second per key before 429'
      '--dialect:how the server answers what the spec leaves open: reference, alpha, beta or gamma'
      '--clock-skew:run the Date header this many seconds off the local clock (negative: behind)'
      '--hostile-text:seed names, references and messages with terminal escape sequences'
    ) ;;
    (*) reply=() ;;
  esac
}

# Options whose next word is their value.
_hedge_takes_value() {
  case $1 in
    (--profile|--timeout|--request-timeout|-X|--method|-f|--raw-field|-F|--field|-H|--header|--input|--max-notional|--max-daily-notional|--markets|-t|--tenor|--ref|--idempotency-key|--status|--limit|--since|--until|--tolerance|--by|--format|--fields|--query|--watch|--alert-pnl|--alert-maturity|--within|--interval|--alert-cmd|--count|--dialect|--html|--base-url|--ca-file|--journal-url|--port|--host|--fill-delay|--fail-rate|--clock-speed|--seed|--fault-5xx|--fault-429|--drop-after-commit|--latency|--rate-limit|--root|--clock-skew)
      return 0 ;;
  esac
  return 1
}

# Stored profile names, straight from the store file that hedge writes (2-space indented JSON).
_hedge_profiles() {
  local file=${HEDGE_CONFIG_DIR:-${XDG_CONFIG_HOME:-$HOME/.config}/hedge}/config.json
  reply=()
  [[ -r $file ]] || return 0
  reply=(${(f)"$(command sed -n '/^  "profiles": {/,/^  }/s/^    "\([A-Za-z0-9][A-Za-z0-9_.-]*\)": {.*/\1/p' $file 2>/dev/null)"})
}

# Values of an option.
_hedge_option_values() {
  reply=()
  case $1 in
    (--profile) _hedge_profiles ;;
    (-t|--tenor) reply=(1 3 7) ;;
    (--status) reply=(submitting submitted filled failed closed) ;;
    (--by) reply=(day week month side tenor market hedge) ;;
    (--format) reply=(table tsv csv json ndjson) ;;
    (--dialect) reply=(reference alpha beta gamma) ;;
    (-X|--method) reply=(GET POST PUT PATCH DELETE) ;;
  esac
}

# Values of the Nth positional argument (0-based) of a command path.
_hedge_arg_values() {
  reply=()
  case "$1:$2" in
    ('quote:1'|'open:1'|'add:1'|'reduce:1'|'close:1'|'roll:1') reply=(buy sell) ;;
    ('completion:0') reply=(bash zsh fish) ;;
    ('profile use:0'|'profile remove:0') _hedge_profiles ;;
  esac
}

_hedge() {
  local -a reply own
  local cmdpath='' word option='' expecting='' cur=${words[CURRENT]}
  integer index=0 i
  # Walk the words before the cursor: the command path, option values, positional count.
  for (( i = 2; i < CURRENT; i++ )); do
    word=${words[i]}
    if [[ -n $expecting ]]; then
      expecting=''
      continue
    fi
    case $word in
      (--*=*) continue ;;
      (-*)
        if _hedge_takes_value $word; then
          option=$word
          expecting=1
        fi
        continue ;;
    esac
    _hedge_subcommands "$cmdpath"
    if (( index == 0 && ${#reply} )) && (( ${reply[(I)${(b)word}:*]} )); then
      cmdpath=${cmdpath:+$cmdpath }$word
    else
      (( index++ ))
    fi
  done
  if [[ -z $expecting && $cur == --*=* ]]; then
    option=${cur%%=*}
    compset -P '*='
    _hedge_takes_value $option && expecting=1
  fi

  if [[ -n $expecting ]]; then
    if [[ $option == --root ]]; then
      _files -/
      return
    fi
    if [[ $option == --ca-file || $option == --html ]]; then
      _files
      return
    fi
    _hedge_option_values $option
    (( ${#reply} )) && compadd -a reply
    return
  fi
  if [[ $cur == -* ]]; then
    own=()
    if [[ -n $cmdpath ]]; then
      _hedge_options "$cmdpath"
      own=($reply)
    fi
    _hedge_options ''
    _describe -t options 'option' own -- reply
    return
  fi
  _hedge_subcommands "$cmdpath"
  if (( index == 0 && ${#reply} )); then
    _describe -t commands 'command' reply
    return
  fi
  _hedge_arg_values "$cmdpath" $index
  (( ${#reply} )) && compadd -a reply
  return 0
}

# Autoloaded from $fpath, this file is the body of _hedge; sourced, it registers the function.
if [[ $funcstack[1] == _hedge ]]; then
  _hedge "$@"
else
  compdef _hedge hedge
fi
