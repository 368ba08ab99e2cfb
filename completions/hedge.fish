# fish completion for hedge
#
# Install:
#   hedge completion fish > ~/.config/fish/completions/hedge.fish
#
# The command tree below is checked against src/commands/manifest.ts by
# test/e2e/completion-sync.test.ts: a command or option added there without its completion
# here fails the tests. Profile names are read from the store file at completion time (no
# node process is started, so completing stays instant).

# Subcommands of a command path ('' is the top level): the same tree as the complete lines below.
function __hedge_subcommands
    switch "$argv"
        case ''
            echo markets price quote open add reduce close hedges history positions account maturities roll login logout profile whoami doctor plan apply keep report journal resume demo mcp tools api completion sandbox help
        case profile
            echo list use remove reset-wire
        case journal
            echo list show resolve migrate
        case demo
            echo reset
        case sandbox
            echo serve
        case help
            echo exit-codes
    end
end

# Options whose next word is their value.
function __hedge_takes_value
    contains -- $argv[1] --profile --timeout --request-timeout -X --method -f --raw-field -F --field -H --header --input \
        --max-notional --max-daily-notional --markets -t --tenor --ref --idempotency-key --status --limit \
        --since --until --tolerance --by --format --fields --query --html \
        --watch --alert-pnl --alert-maturity --within --interval --alert-cmd --count --dialect \
        --base-url --ca-file --journal-url --port --host --fill-delay --fail-rate --clock-speed --seed \
        --fault-5xx --fault-429 --drop-after-commit --latency --rate-limit --root --clock-skew
end

# Prints the command path (one line, words separated by spaces) and the number of positional
# arguments typed after it, from the words before the cursor.
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

# True when the words typed so far are exactly this command path (options and arguments may follow).
function __hedge_path_is
    set -l state (__hedge_state)
    test "$state[1]" = "$argv"
end

# True when a subcommand of this command path comes next.
function __hedge_command_at
    set -l state (__hedge_state)
    test "$state[1]" = "$argv"; and test "$state[2]" = 0
end

# True when the Nth positional argument (0-based) of this command path comes next.
function __hedge_arg_at
    set -l state (__hedge_state)
    test "$state[1]" = "$argv[1]"; and test "$state[2]" = "$argv[2]"
end

# Stored profile names, straight from the store file that hedge writes (2-space indented JSON).
function __hedge_profiles
    set -l dir $HEDGE_CONFIG_DIR
    if test -z "$dir"
        if test -n "$XDG_CONFIG_HOME"
            set dir $XDG_CONFIG_HOME/hedge
        else
            set dir $HOME/.config/hedge
        end
    end
    test -r $dir/config.json; or return 0
    command sed -n '/^  "profiles": {/,/^  }/s/^    "\([A-Za-z0-9][A-Za-z0-9_.-]*\)": {.*/\1/p' $dir/config.json 2>/dev/null
end

complete -c hedge -e
# No file names unless an option asks for one (--ca-file).
complete -c hedge -f

# Commands and subcommands.
complete -c hedge -n '__hedge_command_at' -f -a markets -d 'List the markets open to the account: status, price, capacity and daily carry per side'
complete -c hedge -n '__hedge_command_at' -f -a price -d 'Show the indicative mid price of a market (every listed market without one)'
complete -c hedge -n '__hedge_command_at' -f -a quote -d 'Quote a hedge: execution price, impact, carry, margin, fee and maturity (reserves nothing)'
complete -c hedge -n '__hedge_command_at' -f -a open -d 'Open a hedge and wait for the fill (no arguments on a terminal starts a wizard)'
complete -c hedge -n '__hedge_command_at' -f -a add -d 'Add notional to the open hedge on a market and side (same maturity)'
complete -c hedge -n '__hedge_command_at' -f -a reduce -d 'Remove notional from the open hedge on a market and side (margin scales down with it)'
complete -c hedge -n '__hedge_command_at' -f -a close -d 'Close the position on a market and side, and show what it returned'
complete -c hedge -n '__hedge_command_at' -f -a hedges -d 'List hedges, newest first, or show one hedge in full'
complete -c hedge -n '__hedge_command_at' -f -a history -d 'List closed hedges with realized P&L, carry and fees, with totals'
complete -c hedge -n '__hedge_command_at' -f -a positions -d 'Show open positions per side: entry and mark, P&L, carry, fee to close, net margin'
complete -c hedge -n '__hedge_command_at' -f -a account -d 'Show the account: balance, margin in use, exposure, unrealized P&L and headroom'
complete -c hedge -n '__hedge_command_at' -f -a login -d 'Save a profile: base URL and API key (asked hidden on a terminal, read from stdin otherwise)'
complete -c hedge -n '__hedge_command_at' -f -a logout -d 'Remove the stored API key of a profile (the current one by default)'
complete -c hedge -n '__hedge_command_at' -f -a profile -d 'List, switch and remove stored profiles; forget learned wire names'
complete -c hedge -n '__hedge_command_at' -f -a whoami -d 'Show the profile, environment, base URL and key in use, where each came from, and whether the key works'
complete -c hedge -n '__hedge_command_at' -f -a doctor -d 'Check the set-up against the server: key, URL, TLS, clock, every read, the wire, rate limits'
complete -c hedge -n '__hedge_command_at' -f -a completion -d 'Print the shell completion script for bash, zsh or fish'
complete -c hedge -n '__hedge_command_at' -f -a sandbox -d 'Run the local simulator of the API'
complete -c hedge -n '__hedge_command_at' -f -a help -d 'Show help for a command, or the exit codes (help exit-codes)'
complete -c hedge -n '__hedge_command_at' -f -a plan -d 'Show the actions that bring the book to a target file; sends nothing'
complete -c hedge -n '__hedge_command_at' -f -a apply -d 'Bring the book to a target file through the journal'
complete -c hedge -n '__hedge_command_at' -f -a keep -d 'Hold the book at a target file through maturities'
complete -c hedge -n '__hedge_command_at' -f -a report -d 'P&L report by day, week, month, side, tenor or market'
complete -c hedge -n '__hedge_command_at' -f -a journal -d 'The local record of every action: list, show one, resolve one by hand'
complete -c hedge -n '__hedge_command_at' -f -a resume -d 'Finish an unresolved action from the journal with its own key'
complete -c hedge -n '__hedge_command_at' -f -a demo -d 'The --demo simulator'
complete -c hedge -n '__hedge_command_at' -f -a maturities -d 'Upcoming settlements grouped by day, with countdown, mark P&L and carry'
complete -c hedge -n '__hedge_command_at' -f -a roll -d 'Keep a side covered past its maturity: close, then open the same notional for a new tenor'
complete -c hedge -n '__hedge_command_at' -f -a mcp -d 'Serve the commands as Model Context Protocol tools over stdio, for an AI agent'
complete -c hedge -n '__hedge_command_at' -f -a api -d 'Call any endpoint with the profile\'s key, as gh api does; prints the whole envelope; writes journaled'
complete -c hedge -n '__hedge_command_at' -f -a tools -d 'Describe the commands an agent may call: names, argument schemas and safety tiers'
complete -c hedge -n '__hedge_command_at journal' -f -a list -d 'List the journal of actions, newest first'
complete -c hedge -n '__hedge_command_at journal' -f -a show -d 'Show one journal entry in full'
complete -c hedge -n '__hedge_command_at journal' -f -a resolve -d 'Record by hand whether an unresolved action landed'
complete -c hedge -n '__hedge_command_at journal' -f -a migrate -d 'Move the local journal into the team store'
complete -c hedge -n '__hedge_command_at demo' -f -a reset -d 'Start the --demo simulator afresh'
complete -c hedge -n '__hedge_command_at profile' -f -a list -d 'List profiles: name, environment, base URL, redacted key, which is current'
complete -c hedge -n '__hedge_command_at profile' -f -a use -d 'Make a profile the current one'
complete -c hedge -n '__hedge_command_at profile' -f -a remove -d 'Delete a stored profile'
complete -c hedge -n '__hedge_command_at profile' -f -a reset-wire -d 'Forget the wire names hedge learned from the server'
complete -c hedge -n '__hedge_command_at sandbox' -f -a serve -d 'Serve the simulator over HTTP(S) on loopback; prints HEDGE_BASE_URL and HEDGE_API_KEY first'
complete -c hedge -n '__hedge_command_at help' -f -a exit-codes -d 'Print the table of exit codes'

# Global options (valid after any command).
complete -c hedge -l json -d 'print one JSON document on stdout (the API data); messages go to stderr'
complete -c hedge -l profile -x -a '(__hedge_profiles)' -d 'use this stored profile (default: HEDGE_PROFILE, then the current one)'
complete -c hedge -l demo -d 'run against a local simulator with a built-in test key (no account needed)'
complete -c hedge -s y -l yes -d 'confirm state-changing commands on live keys without asking'
complete -c hedge -l no-input -d 'never prompt; missing arguments are an error'
complete -c hedge -l no-color -d 'no colour (also NO_COLOR=1 or TERM=dumb)'
complete -c hedge -l verbose -d 'log each HTTP request to stderr (keys redacted)'
complete -c hedge -l timeout -x -d 'give up after this long, waits included (exit 7 while waiting, 5 on a request)'
complete -c hedge -l request-timeout -x -d 'bound each HTTP attempt (default 15)'
complete -c hedge -l format -x -a 'table tsv csv json ndjson' -d 'table, tsv, csv, json or ndjson'
complete -c hedge -l fields -x -d 'only these fields, in this order (comma-separated)'
complete -c hedge -l query -x -d 'a JMESPath expression applied to the JSON data'
complete -c hedge -l no-header -d 'tsv and csv without their header row'
complete -c hedge -l raw -d 'with JSON: the server data as it sent it'
complete -c hedge -s h -l help -d 'show help'
complete -c hedge -s V -l version -d 'print the version'

# Options of each command.
complete -c hedge -n '__hedge_path_is quote' -s t -l tenor -x -a '1 3 7' -d 'tenor in days: 1, 3 or 7'
complete -c hedge -n '__hedge_path_is open' -s t -l tenor -x -a '1 3 7' -d 'tenor in days: 1, 3 or 7'
complete -c hedge -n '__hedge_path_is open' -l ref -x -d 'your own deal id, to find the hedge later with `hedge hedges --ref`'
complete -c hedge -n '__hedge_path_is open' -l skip-checks -d 'skip the pre-trade checks and let the server decide'
complete -c hedge -n '__hedge_path_is open' -l no-wait -d 'return at `submitted` instead of waiting for the result'
complete -c hedge -n '__hedge_path_is open' -l idempotency-key -x -d 'resume an earlier run whose outcome is unknown (reuses its key)'
complete -c hedge -n '__hedge_path_is open' -l dry-run -d 'print the exact request that would be sent, and send nothing'
complete -c hedge -n '__hedge_path_is add' -l skip-checks -d 'skip the pre-trade checks and let the server decide'
complete -c hedge -n '__hedge_path_is add' -l no-wait -d 'return at `submitted` instead of waiting for the result'
complete -c hedge -n '__hedge_path_is add' -l idempotency-key -x -d 'resume an earlier run whose outcome is unknown (reuses its key)'
complete -c hedge -n '__hedge_path_is add' -l dry-run -d 'print the exact request that would be sent, and send nothing'
complete -c hedge -n '__hedge_path_is reduce' -l no-wait -d 'return at `submitted` instead of waiting for the result'
complete -c hedge -n '__hedge_path_is reduce' -l idempotency-key -x -d 'resume an earlier run whose outcome is unknown (reuses its key)'
complete -c hedge -n '__hedge_path_is reduce' -l dry-run -d 'print the exact request that would be sent, and send nothing'
complete -c hedge -n '__hedge_path_is close' -l no-wait -d 'return at `submitted` instead of waiting for the result'
complete -c hedge -n '__hedge_path_is close' -l idempotency-key -x -d 'resume an earlier run whose outcome is unknown (reuses its key)'
complete -c hedge -n '__hedge_path_is close' -l dry-run -d 'print the exact request that would be sent, and send nothing'
complete -c hedge -n '__hedge_path_is hedges' -l status -x -a 'submitting submitted filled failed closed' -d 'only hedges in this status'
complete -c hedge -n '__hedge_path_is hedges' -l ref -x -d 'only hedges with this client reference'
complete -c hedge -n '__hedge_path_is hedges' -l limit -x -d 'at most this many (1 to 500; default 50)'
complete -c hedge -n '__hedge_path_is hedges' -l all -d 'every one there is, page after page'
complete -c hedge -n '__hedge_path_is hedges' -l wait -d 'with an ID: poll until the hedge is filled, failed or closed'
complete -c hedge -n '__hedge_path_is history' -l limit -x -d 'at most this many (1 to 500; default 50)'
complete -c hedge -n '__hedge_path_is history' -l all -d 'every one there is, page after page'
complete -c hedge -n '__hedge_path_is open' -l new -d 'start a fresh action even if the same one is unresolved in the journal'
complete -c hedge -n '__hedge_path_is add' -l new -d 'start a fresh action even if the same one is unresolved in the journal'
complete -c hedge -n '__hedge_path_is reduce' -l new -d 'start a fresh action even if the same one is unresolved in the journal'
complete -c hedge -n '__hedge_path_is close' -l new -d 'start a fresh action even if the same one is unresolved in the journal'
complete -c hedge -n '__hedge_path_is open' -l allow-duplicate-ref -d 'open even if an active hedge already carries this --ref'
complete -c hedge -n '__hedge_path_is history' -l since -x -d 'closed on or after this date'
complete -c hedge -n '__hedge_path_is history' -l until -x -d 'closed before this date, or a condition to poll until'
complete -c hedge -n '__hedge_path_is history' -l ref -x -d 'only what carries this client reference'
complete -c hedge -n '__hedge_path_is plan' -l tolerance -x -d 'treat differences up to this many USD as at target'
complete -c hedge -n '__hedge_path_is apply' -l tolerance -x -d 'treat differences up to this many USD as at target'
complete -c hedge -n '__hedge_path_is apply' -l dry-run -d 'the same as hedge plan: show, send nothing'
complete -c hedge -n '__hedge_path_is keep' -l once -d 'run one cycle and exit'
complete -c hedge -n '__hedge_path_is keep' -l interval -x -d 'seconds between cycles'
complete -c hedge -n '__hedge_path_is keep' -l converge -d 'bring a drifted side back to its target'
complete -c hedge -n '__hedge_path_is keep' -l tolerance -x -d 'treat differences up to this many USD as at target'
complete -c hedge -n '__hedge_path_is keep' -l alert-cmd -x -d 'run this command with error and drift events on stdin'
complete -c hedge -n '__hedge_path_is keep' -l dry-run -d 'print what one cycle would do, send nothing'
complete -c hedge -n '__hedge_path_is report' -l since -x -d 'closed on or after this date'
complete -c hedge -n '__hedge_path_is report' -l until -x -d 'closed before this date, or a condition to poll until'
complete -c hedge -n '__hedge_path_is report' -l by -x -a 'day week month side tenor market hedge' -d 'group by'
complete -c hedge -n '__hedge_path_is report' -l ref -x -d 'only what carries this client reference'
complete -c hedge -n '__hedge_path_is report' -l html -r -F -d 'also write a self-contained HTML report to this file'
complete -c hedge -n '__hedge_path_is journal list' -l pending -d 'only unresolved actions'
complete -c hedge -n '__hedge_path_is journal list' -l since -x -d 'only actions from this time'
complete -c hedge -n '__hedge_path_is journal list' -l limit -x -d 'at most this many (default 50)'
complete -c hedge -n '__hedge_path_is journal resolve' -l landed -d 'it happened on the server: record it as done'
complete -c hedge -n '__hedge_path_is journal resolve' -l not-landed -d 'it did not happen: set it aside'
complete -c hedge -n '__hedge_path_is journal list' -l ref -x -d 'only what carries this client reference'
complete -c hedge -n '__hedge_path_is resume' -l no-wait -d 'return once the server answered'
complete -c hedge -n '__hedge_path_is login' -l base-url -x -d 'the API base address, https://…/v2 (the partner desk gives it)'
complete -c hedge -n '__hedge_path_is login' -l ca-file -r -F -d 'a PEM CA file to trust for this profile (self-signed sandboxes)'
complete -c hedge -n '__hedge_path_is login' -l journal-url -x -d 'the team journal store, postgres://USER@HOST:PORT/DB'
complete -c hedge -n '__hedge_path_is sandbox serve' -l port -x -d 'port (default: any free port)'
complete -c hedge -n '__hedge_path_is sandbox serve' -l host -x -d 'loopback address to listen on (default 127.0.0.1)'
complete -c hedge -n '__hedge_path_is sandbox serve' -l tls -d 'serve HTTPS with a fresh CA (printed as NODE_EXTRA_CA_CERTS)'
complete -c hedge -n '__hedge_path_is sandbox serve' -l fill-delay -x -d 'time from submitted to filled (default 2000)'
complete -c hedge -n '__hedge_path_is sandbox serve' -l fail-rate -x -d 'share of opens that fail on-chain, 0 to 1'
complete -c hedge -n '__hedge_path_is sandbox serve' -l clock-speed -x -d 'sandbox clock speed (e.g. 3600: an hour per second)'
complete -c hedge -n '__hedge_path_is sandbox serve' -l seed -x -d 'seed of the price path and faults'
complete -c hedge -n '__hedge_path_is sandbox serve' -l fault-5xx -x -d 'share of requests answered 500/503, 0 to 1'
complete -c hedge -n '__hedge_path_is sandbox serve' -l fault-429 -x -d 'share of requests answered 429, 0 to 1'
complete -c hedge -n '__hedge_path_is sandbox serve' -l drop-after-commit -x -d 'share of writes whose connection drops after they took effect'
complete -c hedge -n '__hedge_path_is sandbox serve' -l latency -x -d 'added latency per request'
complete -c hedge -n '__hedge_path_is sandbox serve' -l rate-limit -x -d 'requests per second per key before 429'
complete -c hedge -n '__hedge_path_is sandbox serve' -l dialect -x -a 'reference alpha beta gamma' -d 'how the server answers what the spec leaves open'
complete -c hedge -n '__hedge_path_is sandbox serve' -l clock-skew -x -d "run the Date header this many seconds off this machine's clock"
complete -c hedge -n '__hedge_path_is profile reset-wire' -l all -d 'forget them for every profile and server'
complete -c hedge -n '__hedge_path_is sandbox serve' -l hostile-text -d 'seed names, references and messages with terminal escape sequences'
complete -c hedge -n '__hedge_path_is price' -l watch -x -d 'refresh every few seconds (default 2); NDJSON when not a terminal'
complete -c hedge -n '__hedge_path_is price' -l alert-pnl -x -d 'with --watch: alert when net P&L is at or below this many USD'
complete -c hedge -n '__hedge_path_is price' -l alert-maturity -x -d 'with --watch: alert when a hedge matures within this long'
complete -c hedge -n '__hedge_path_is price' -l exit-on-alert -d 'with --watch: end at the first alert with exit code 10'
complete -c hedge -n '__hedge_path_is price' -l count -x -d 'with --watch: stop after this many refreshes'
complete -c hedge -n '__hedge_path_is hedges' -l watch -x -d 'refresh every few seconds (default 2); NDJSON when not a terminal'
complete -c hedge -n '__hedge_path_is hedges' -l alert-pnl -x -d 'with --watch: alert when net P&L is at or below this many USD'
complete -c hedge -n '__hedge_path_is hedges' -l alert-maturity -x -d 'with --watch: alert when a hedge matures within this long'
complete -c hedge -n '__hedge_path_is hedges' -l exit-on-alert -d 'with --watch: end at the first alert with exit code 10'
complete -c hedge -n '__hedge_path_is hedges' -l count -x -d 'with --watch: stop after this many refreshes'
complete -c hedge -n '__hedge_path_is positions' -l ref -x -d 'only what carries this client reference'
complete -c hedge -n '__hedge_path_is positions' -l watch -x -d 'refresh every few seconds (default 2); NDJSON when not a terminal'
complete -c hedge -n '__hedge_path_is positions' -l alert-pnl -x -d 'with --watch: alert when net P&L is at or below this many USD'
complete -c hedge -n '__hedge_path_is positions' -l alert-maturity -x -d 'with --watch: alert when a hedge matures within this long'
complete -c hedge -n '__hedge_path_is positions' -l exit-on-alert -d 'with --watch: end at the first alert with exit code 10'
complete -c hedge -n '__hedge_path_is positions' -l count -x -d 'with --watch: stop after this many refreshes'
complete -c hedge -n '__hedge_path_is account' -l watch -x -d 'refresh every few seconds (default 2); NDJSON when not a terminal'
complete -c hedge -n '__hedge_path_is account' -l alert-pnl -x -d 'with --watch: alert when net P&L is at or below this many USD'
complete -c hedge -n '__hedge_path_is account' -l alert-maturity -x -d 'with --watch: alert when a hedge matures within this long'
complete -c hedge -n '__hedge_path_is account' -l exit-on-alert -d 'with --watch: end at the first alert with exit code 10'
complete -c hedge -n '__hedge_path_is account' -l count -x -d 'with --watch: stop after this many refreshes'
complete -c hedge -n '__hedge_path_is maturities' -l within -x -d 'only hedges maturing within this long: 12h, 3d, 2w'
complete -c hedge -n '__hedge_path_is maturities' -l ref -x -d 'only what carries this client reference'
complete -c hedge -n '__hedge_path_is roll' -s t -l tenor -x -a '1 3 7' -d 'tenor in days: 1, 3 or 7'
complete -c hedge -n '__hedge_path_is roll' -l skip-checks -d 'skip the pre-trade checks and let the server decide'
complete -c hedge -n '__hedge_path_is roll' -l no-wait -d 'return at `submitted` instead of waiting for the result'
complete -c hedge -n '__hedge_path_is roll' -l idempotency-key -x -d 'resume an earlier run whose outcome is unknown (reuses its key)'
complete -c hedge -n '__hedge_path_is roll' -l new -d 'start a fresh action even if the same one is unresolved in the journal'
complete -c hedge -n '__hedge_path_is roll' -l dry-run -d 'print the exact request that would be sent, and send nothing'
complete -c hedge -n '__hedge_path_is mcp' -l allow-live -d 'offer write tools on a live key too (each write needs a confirmation token)'
complete -c hedge -n '__hedge_path_is mcp' -l root -x -a '(__fish_complete_directories)' -d 'a directory plan and apply may read target files from (repeatable)'

complete -c hedge -n '__hedge_path_is markets' -l until -x -d 'poll until this JMESPath condition over the --json data holds (exit 124 at --timeout)'
complete -c hedge -n '__hedge_path_is price' -l until -x -d 'poll until this JMESPath condition over the --json data holds (exit 124 at --timeout)'
complete -c hedge -n '__hedge_path_is quote' -l until -x -d 'poll until this JMESPath condition over the --json data holds (exit 124 at --timeout)'
complete -c hedge -n '__hedge_path_is hedges' -l until -x -d 'poll until this JMESPath condition over the --json data holds (exit 124 at --timeout)'
complete -c hedge -n '__hedge_path_is positions' -l until -x -d 'poll until this JMESPath condition over the --json data holds (exit 124 at --timeout)'
complete -c hedge -n '__hedge_path_is account' -l until -x -d 'poll until this JMESPath condition over the --json data holds (exit 124 at --timeout)'
complete -c hedge -n '__hedge_path_is whoami' -l until -x -d 'poll until this JMESPath condition over the --json data holds (exit 124 at --timeout)'
complete -c hedge -n '__hedge_path_is journal list' -l until -x -d 'poll until this JMESPath condition over the --json data holds (exit 124 at --timeout)'
complete -c hedge -n '__hedge_path_is journal show' -l until -x -d 'poll until this JMESPath condition over the --json data holds (exit 124 at --timeout)'
complete -c hedge -n '__hedge_path_is plan' -l until -x -d 'poll until this JMESPath condition over the --json data holds (exit 124 at --timeout)'
complete -c hedge -n '__hedge_path_is maturities' -l until -x -d 'poll until this JMESPath condition over the --json data holds (exit 124 at --timeout)'
complete -c hedge -n '__hedge_path_is mcp' -l max-notional -x -d 'refuse a write tool call that trades more than this many USD'
complete -c hedge -n '__hedge_path_is mcp' -l max-daily-notional -x -d 'refuse a write past the agent's trades of the last 24 h plus this call'
complete -c hedge -n '__hedge_path_is mcp' -l markets -x -d 'the only markets write tools may trade, comma-separated'
complete -c hedge -n '__hedge_path_is tools' -l errors -d 'print the error catalogue: every error code, its exit code, whether and how to retry'
complete -c hedge -n '__hedge_path_is api' -s X -l method -x -a 'GET POST PUT PATCH DELETE' -d 'GET (default), POST, PUT, PATCH or DELETE; every method but GET is a journaled write'
complete -c hedge -n '__hedge_path_is api' -s f -l raw-field -x -d 'a string parameter: query string of a GET, JSON body otherwise'
complete -c hedge -n '__hedge_path_is api' -s F -l field -x -d 'a typed parameter: numbers, true, false, null, @file; key[sub]= and key[]= nest'
complete -c hedge -n '__hedge_path_is api' -s H -l header -x -d 'an extra request header (never Authorization)'
complete -c hedge -n '__hedge_path_is api' -l input -r -F -d 'the JSON body from this file (- for stdin)'
complete -c hedge -n '__hedge_path_is api' -l paginate -d 'GET every page of a list into one envelope'
complete -c hedge -n '__hedge_path_is api' -s i -l include -d 'print the HTTP status line and response headers before the body'
complete -c hedge -n '__hedge_path_is api' -l idempotency-key -x -d 'resume an earlier run whose outcome is unknown (reuses its key)'
complete -c hedge -n '__hedge_path_is api' -l new -d 'start a fresh action even if the same one is unresolved in the journal'
complete -c hedge -n '__hedge_path_is api' -l dry-run -d 'print the exact request that would be sent, and send nothing'
complete -c hedge -n '__hedge_path_is api' -l until -x -d 'poll a GET until this JMESPath condition over the envelope holds'

# Fixed values of positional arguments.
complete -c hedge -n '__hedge_arg_at quote 1' -a 'buy sell'
complete -c hedge -n '__hedge_arg_at open 1' -a 'buy sell'
complete -c hedge -n '__hedge_arg_at add 1' -a 'buy sell'
complete -c hedge -n '__hedge_arg_at reduce 1' -a 'buy sell'
complete -c hedge -n '__hedge_arg_at close 1' -a 'buy sell'
complete -c hedge -n '__hedge_arg_at roll 1' -a 'buy sell'
complete -c hedge -n '__hedge_arg_at completion 0' -a 'bash zsh fish'
complete -c hedge -n '__hedge_arg_at "profile use" 0' -a '(__hedge_profiles)'
complete -c hedge -n '__hedge_arg_at "profile remove" 0' -a '(__hedge_profiles)'
