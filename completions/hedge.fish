# fish completion for hedge. Install: hedge completion fish > ~/.config/fish/completions/hedge.fish
#
# Generated from hedge's command specs (src/cli/completion-scripts.ts); do not edit.
# Profile names are read from the store file at completion time; markets and hedge ids from
# what hedge last read (completion-words.json in its state folder), never from the server.

# Subcommands of a command path ('' is the top level).
function __hedge_subcommands
    switch "$argv"
        case ''
            echo markets price quote open add reduce close hedges history positions account maturities roll login logout profile whoami doctor plan apply keep exposures report journal resume acct demo mcp tools api completion sandbox help
        case 'help'
            echo exit-codes
        case 'profile'
            echo list use remove reset-wire
        case 'keep'
            echo run status
        case 'journal'
            echo list show resolve migrate
        case 'acct'
            echo designate rates test event reserve journal log close list show entities approve policy disclose
        case 'demo'
            echo reset
        case 'sandbox'
            echo serve
    end
end

# Options whose next word is their value.
function __hedge_takes_value
    contains -- $argv[1] --profile --timeout --request-timeout --format --fields --query --until --watch --alert-pnl --alert-maturity --count -t --tenor --ref --idempotency-key --status --limit --since --within --base-url --ca-file --journal-url --key-command --key-store --tolerance --adopt --interval --alert-cmd --alert-url --alert-headroom --metrics --policy --ratios --band --sizing --functional --fee-bps --show --html --by --recorded-late --market --quote --reason --as-of --period --entity --values --occurred --disposed --share --amount --de-designate --ground --rebalance --ratio --terminate --correct --accounts --ledger --four-eyes --root --max-notional --max-daily-notional --markets -X --method -f --raw-field -F --field -H --header --input --port --host --fill-delay --fail-rate --clock-speed --start --seed --fault-5xx --fault-429 --drop-after-commit --latency --rate-limit --dialect --clock-skew --view-lag --record-lag --settlement-delay --day
end

# The command path (one line) and how many positional arguments follow it, from the words before the cursor.
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
    set -l dir $HEDGE_CONFIG_DIR
    if test -z "$dir"
        if string match -q -- '/*' "$XDG_CONFIG_HOME"
            set dir $XDG_CONFIG_HOME/hedge
        else
            set dir $HOME/.config/hedge
        end
    end
    test -r $dir/config.json; or return 0
    command sed -n '/^  "profiles": {/,/^  }/s/^    "\([A-Za-z0-9][A-Za-z0-9_.-]*\)": {.*/\1/p' $dir/config.json 2>/dev/null
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
        set -l dir $HEDGE_CONFIG_DIR
        if test -z "$dir"
            if string match -q -- '/*' "$XDG_CONFIG_HOME"
                set dir $XDG_CONFIG_HOME/hedge
            else
                set dir $HOME/.config/hedge
            end
        end
        test -r $dir/config.json; and set scope (command sed -n 's/^  "current": "\([A-Za-z0-9][A-Za-z0-9_.-]*\)",\{0,1\}$/\1/p' $dir/config.json 2>/dev/null)
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
    set -l dir $HEDGE_CONFIG_DIR
    if test -z "$dir"
        if string match -q -- '/*' "$XDG_STATE_HOME"
            set dir $XDG_STATE_HOME/hedge
        else
            set dir $HOME/.local/state/hedge
        end
    end
    set -l file $dir/completion-words.json
    test -f $file; and not test -L $file; and test -O $file; or return 0
    command head -c 65536 "$file" | command sed -n '/^  "'$key'": \[/,/^  \]/s/^    "\([A-Za-z0-9][A-Za-z0-9_.:-]*\)",\{0,1\}$/\1/p' 2>/dev/null
end

complete -c hedge -e
# No file names unless an option or argument asks for one.
complete -c hedge -f
complete -c hedge -n '__hedge_command_at' -a markets -d 'Markets: status, price, capacity and daily carry per side'
complete -c hedge -n '__hedge_command_at' -a price -d 'The indicative mid price of a market, or of every one'
complete -c hedge -n '__hedge_command_at' -a quote -d 'Quote a hedge: price, impact, carry, margin and fee'
complete -c hedge -n '__hedge_command_at' -a open -d 'Open a hedge and wait for the fill (a wizard on a terminal)'
complete -c hedge -n '__hedge_command_at' -a add -d 'Add notional to a side\'s open hedge (same maturity)'
complete -c hedge -n '__hedge_command_at' -a reduce -d 'Remove notional from a side\'s open hedge'
complete -c hedge -n '__hedge_command_at' -a close -d 'Close a side\'s position and show what it returned'
complete -c hedge -n '__hedge_command_at' -a hedges -d 'List hedges, newest first, or show one in full'
complete -c hedge -n '__hedge_command_at' -a history -d 'Closed hedges: realized P&L, carry and fees, with totals'
complete -c hedge -n '__hedge_command_at' -a positions -d 'Open positions: entry, mark, P&L, carry, time to maturity'
complete -c hedge -n '__hedge_command_at' -a account -d 'Balance, margin in use, exposure, unrealized P&L, headroom'
complete -c hedge -n '__hedge_command_at' -a maturities -d 'What settles when, grouped by day, with countdowns'
complete -c hedge -n '__hedge_command_at' -a roll -d 'Close a side\'s hedge and open it again for a new tenor'
complete -c hedge -n '__hedge_command_at' -a login -d 'Save a profile: base URL and API key'
complete -c hedge -n '__hedge_command_at' -a logout -d 'Remove a profile\'s stored API key'
complete -c hedge -n '__hedge_command_at' -a profile -d 'List, switch and remove stored profiles; forget learned wire names'
complete -c hedge -n '__hedge_command_at' -a whoami -d 'The profile, environment and key in use, and whether it works'
complete -c hedge -n '__hedge_command_at' -a doctor -d 'Check key, URL, clock and every read; sends no write'
complete -c hedge -n '__hedge_command_at' -a plan -d 'The actions that bring the book to a target file; sends nothing'
complete -c hedge -n '__hedge_command_at' -a apply -d 'Bring the book to a target file, each action journaled'
complete -c hedge -n '__hedge_command_at' -a keep -d 'Hold a target book through maturities'
complete -c hedge -n '__hedge_command_at' -a exposures -d 'Receivables and payables to a target book; cost, stress, report'
complete -c hedge -n '__hedge_command_at' -a report -d 'P&L by day, week, month, side, tenor, market or deal; CSV, HTML'
complete -c hedge -n '__hedge_command_at' -a journal -d 'The record of every action (this machine or the team store)'
complete -c hedge -n '__hedge_command_at' -a resume -d 'Finish an unresolved action with its own idempotency key'
complete -c hedge -n '__hedge_command_at' -a acct -d 'Hedge accounting: designation, effectiveness, reserve, entries'
complete -c hedge -n '__hedge_command_at' -a demo -d 'The --demo simulator: start it afresh'
complete -c hedge -n '__hedge_command_at' -a mcp -d 'Serve the commands as MCP tools over stdio, for an AI agent'
complete -c hedge -n '__hedge_command_at' -a tools -d 'The tools an agent may call: schemas, risk tiers, errors'
complete -c hedge -n '__hedge_command_at' -a api -d 'Call any endpoint with the profile\'s key (as gh api)'
complete -c hedge -n '__hedge_command_at' -a completion -d 'Print the shell completion script (bash, zsh or fish)'
complete -c hedge -n '__hedge_command_at' -a sandbox -d 'Run the simulator of the API as a local server'
complete -c hedge -n '__hedge_command_at' -a help -d 'Help on a topic: exit-codes'
complete -c hedge -l json -d 'one JSON document on stdout; messages on stderr'
complete -c hedge -l raw -d 'with JSON: the server\'s data, as sent'
complete -c hedge -l profile -x -a '(__hedge_profiles)' -d 'a stored profile (default: the current one)'
complete -c hedge -l demo -d 'a local simulator with test funds: no account'
complete -c hedge -s y -l yes -d 'confirm writes on a live key without asking'
complete -c hedge -l no-input -d 'never prompt; a missing argument is an error'
complete -c hedge -l no-color -d 'no colour (also NO_COLOR=1)'
complete -c hedge -l verbose -d 'log each HTTP request on stderr (keys redacted)'
complete -c hedge -l timeout -x -d 'bound the whole command, waits included'
complete -c hedge -l request-timeout -x -d 'bound each HTTP attempt (default 15)'
complete -c hedge -l format -x -a 'table tsv csv json ndjson' -d 'table, tsv (in a pipe), csv, json or ndjson'
complete -c hedge -l fields -x -d 'only these fields, in this order (a,b,c)'
complete -c hedge -l query -x -d 'a JMESPath expression on the JSON data'
complete -c hedge -l no-header -d 'tsv and csv without their header row'
complete -c hedge -s h -l help -d 'help for hedge or for a command'
complete -c hedge -s V -l version -d 'the version'
complete -c hedge -n '__hedge_command_at help' -a exit-codes -d 'The exit codes and what each means'
complete -c hedge -n '__hedge_path_is markets' -l until -x -d 'poll until this JMESPath condition over the --json data holds (exit 124 at --timeout, default 120 s; 17 once it can never hold)'
complete -c hedge -n '__hedge_path_is price' -l watch -x -d 'refresh every few seconds (default 2, at least 1); NDJSON when not a terminal'
complete -c hedge -n '__hedge_path_is price' -l alert-pnl -x -d 'with --watch: alert when net P&L is at or below this many USD (e.g. -500)'
complete -c hedge -n '__hedge_path_is price' -l alert-maturity -x -d 'with --watch: alert when a hedge matures within this long (e.g. 6h, 1d)'
complete -c hedge -n '__hedge_path_is price' -l exit-on-alert -d 'with --watch: end at the first alert with exit code 10'
complete -c hedge -n '__hedge_path_is price' -l count -x -d 'with --watch: stop after this many refreshes (exit 0)'
complete -c hedge -n '__hedge_path_is price' -l until -x -d 'poll until this JMESPath condition over the --json data holds (exit 124 at --timeout, default 120 s; 17 once it can never hold)'
complete -c hedge -n '__hedge_arg_at 0 price' -a '(__hedge_words markets)'
complete -c hedge -n '__hedge_path_is quote' -s t -l tenor -x -a '1 3 7' -d 'tenor in days: 1, 3 or 7'
complete -c hedge -n '__hedge_arg_at 0 quote' -a '(__hedge_words markets)'
complete -c hedge -n '__hedge_arg_at 1 quote' -a 'buy sell'
complete -c hedge -n '__hedge_path_is open' -s t -l tenor -x -a '1 3 7' -d 'tenor in days: 1, 3 or 7'
complete -c hedge -n '__hedge_path_is open' -l ref -x -d 'your own deal id, to find the hedge later with `hedge hedges --ref`'
complete -c hedge -n '__hedge_path_is open' -l allow-duplicate-ref -d 'open even if an active hedge already carries this --ref'
complete -c hedge -n '__hedge_path_is open' -l skip-checks -d 'skip the pre-trade checks and let the server decide'
complete -c hedge -n '__hedge_path_is open' -l no-wait -d 'return at `submitted` instead of waiting for the result'
complete -c hedge -n '__hedge_path_is open' -l idempotency-key -x -d 'resume an earlier run whose outcome is unknown (reuses its key)'
complete -c hedge -n '__hedge_path_is open' -l new -d 'start a fresh action even if the same one is unresolved in the journal'
complete -c hedge -n '__hedge_path_is open' -l dry-run -d 'print the exact request that would be sent, and send nothing'
complete -c hedge -n '__hedge_path_is open' -l again -d 'send it even if the same write ended minutes ago'
complete -c hedge -n '__hedge_arg_at 0 open' -a '(__hedge_words markets)'
complete -c hedge -n '__hedge_arg_at 1 open' -a 'buy sell'
complete -c hedge -n '__hedge_path_is add' -l skip-checks -d 'skip the pre-trade checks and let the server decide'
complete -c hedge -n '__hedge_path_is add' -l no-wait -d 'return at `submitted` instead of waiting for the result'
complete -c hedge -n '__hedge_path_is add' -l idempotency-key -x -d 'resume an earlier run whose outcome is unknown (reuses its key)'
complete -c hedge -n '__hedge_path_is add' -l new -d 'start a fresh action even if the same one is unresolved in the journal'
complete -c hedge -n '__hedge_path_is add' -l dry-run -d 'print the exact request that would be sent, and send nothing'
complete -c hedge -n '__hedge_path_is add' -l again -d 'send it even if the same write ended minutes ago'
complete -c hedge -n '__hedge_arg_at 0 add' -a '(__hedge_words markets)'
complete -c hedge -n '__hedge_arg_at 1 add' -a 'buy sell'
complete -c hedge -n '__hedge_path_is reduce' -l no-wait -d 'return at `submitted` instead of waiting for the result'
complete -c hedge -n '__hedge_path_is reduce' -l idempotency-key -x -d 'resume an earlier run whose outcome is unknown (reuses its key)'
complete -c hedge -n '__hedge_path_is reduce' -l new -d 'start a fresh action even if the same one is unresolved in the journal'
complete -c hedge -n '__hedge_path_is reduce' -l dry-run -d 'print the exact request that would be sent, and send nothing'
complete -c hedge -n '__hedge_path_is reduce' -l again -d 'send it even if the same write ended minutes ago'
complete -c hedge -n '__hedge_arg_at 0 reduce' -a '(__hedge_words markets)'
complete -c hedge -n '__hedge_arg_at 1 reduce' -a 'buy sell'
complete -c hedge -n '__hedge_path_is close' -l no-wait -d 'return at `submitted` instead of waiting for the result'
complete -c hedge -n '__hedge_path_is close' -l idempotency-key -x -d 'resume an earlier run whose outcome is unknown (reuses its key)'
complete -c hedge -n '__hedge_path_is close' -l new -d 'start a fresh action even if the same one is unresolved in the journal'
complete -c hedge -n '__hedge_path_is close' -l dry-run -d 'print the exact request that would be sent, and send nothing'
complete -c hedge -n '__hedge_path_is close' -l again -d 'send it even if the same write ended minutes ago'
complete -c hedge -n '__hedge_arg_at 0 close' -a '(__hedge_words markets)'
complete -c hedge -n '__hedge_arg_at 1 close' -a 'buy sell'
complete -c hedge -n '__hedge_path_is hedges' -l status -x -a 'submitting submitted filled failed closed' -d 'only hedges in this status'
complete -c hedge -n '__hedge_path_is hedges' -l ref -x -d 'only what carries this client reference (your deal id)'
complete -c hedge -n '__hedge_path_is hedges' -l limit -x -d 'at most this many (1 to 500; default 50, across the server\'s pages)'
complete -c hedge -n '__hedge_path_is hedges' -l all -d 'every one there is, page after page'
complete -c hedge -n '__hedge_path_is hedges' -l wait -d 'with an ID: poll until the hedge is filled, failed or closed'
complete -c hedge -n '__hedge_path_is hedges' -l watch -x -d 'refresh every few seconds (default 2, at least 1); NDJSON when not a terminal'
complete -c hedge -n '__hedge_path_is hedges' -l alert-pnl -x -d 'with --watch: alert when net P&L is at or below this many USD (e.g. -500)'
complete -c hedge -n '__hedge_path_is hedges' -l alert-maturity -x -d 'with --watch: alert when a hedge matures within this long (e.g. 6h, 1d)'
complete -c hedge -n '__hedge_path_is hedges' -l exit-on-alert -d 'with --watch: end at the first alert with exit code 10'
complete -c hedge -n '__hedge_path_is hedges' -l count -x -d 'with --watch: stop after this many refreshes (exit 0)'
complete -c hedge -n '__hedge_path_is hedges' -l until -x -d 'poll until this JMESPath condition over the --json data holds (exit 124 at --timeout, default 120 s; 17 once it can never hold)'
complete -c hedge -n '__hedge_arg_at 0 hedges' -a '(__hedge_words hedges)'
complete -c hedge -n '__hedge_path_is history' -l limit -x -d 'at most this many (1 to 500; default 50, across the server\'s pages)'
complete -c hedge -n '__hedge_path_is history' -l all -d 'every one there is, page after page'
complete -c hedge -n '__hedge_path_is history' -l since -x -d 'closed on or after: 2026-11-01, an ISO time, or 7d / 2w / 1mo ago'
complete -c hedge -n '__hedge_path_is history' -l until -x -d 'closed before this date (same forms as --since); anything else is a condition to poll until, as on every read'
complete -c hedge -n '__hedge_path_is history' -l ref -x -d 'only what carries this client reference (your deal id)'
complete -c hedge -n '__hedge_path_is positions' -l ref -x -d 'only what carries this client reference (your deal id)'
complete -c hedge -n '__hedge_path_is positions' -l watch -x -d 'refresh every few seconds (default 2, at least 1); NDJSON when not a terminal'
complete -c hedge -n '__hedge_path_is positions' -l alert-pnl -x -d 'with --watch: alert when net P&L is at or below this many USD (e.g. -500)'
complete -c hedge -n '__hedge_path_is positions' -l alert-maturity -x -d 'with --watch: alert when a hedge matures within this long (e.g. 6h, 1d)'
complete -c hedge -n '__hedge_path_is positions' -l exit-on-alert -d 'with --watch: end at the first alert with exit code 10'
complete -c hedge -n '__hedge_path_is positions' -l count -x -d 'with --watch: stop after this many refreshes (exit 0)'
complete -c hedge -n '__hedge_path_is positions' -l until -x -d 'poll until this JMESPath condition over the --json data holds (exit 124 at --timeout, default 120 s; 17 once it can never hold)'
complete -c hedge -n '__hedge_path_is account' -l watch -x -d 'refresh every few seconds (default 2, at least 1); NDJSON when not a terminal'
complete -c hedge -n '__hedge_path_is account' -l alert-pnl -x -d 'with --watch: alert when net P&L is at or below this many USD (e.g. -500)'
complete -c hedge -n '__hedge_path_is account' -l alert-maturity -x -d 'with --watch: alert when a hedge matures within this long (e.g. 6h, 1d)'
complete -c hedge -n '__hedge_path_is account' -l exit-on-alert -d 'with --watch: end at the first alert with exit code 10'
complete -c hedge -n '__hedge_path_is account' -l count -x -d 'with --watch: stop after this many refreshes (exit 0)'
complete -c hedge -n '__hedge_path_is account' -l until -x -d 'poll until this JMESPath condition over the --json data holds (exit 124 at --timeout, default 120 s; 17 once it can never hold)'
complete -c hedge -n '__hedge_path_is maturities' -l within -x -d 'only hedges maturing within this long: 12h, 3d, 2w (default: all)'
complete -c hedge -n '__hedge_path_is maturities' -l ref -x -d 'only what carries this client reference (your deal id)'
complete -c hedge -n '__hedge_path_is maturities' -l until -x -d 'poll until this JMESPath condition over the --json data holds (exit 124 at --timeout, default 120 s; 17 once it can never hold)'
complete -c hedge -n '__hedge_path_is roll' -s t -l tenor -x -a '1 3 7' -d 'tenor in days: 1, 3 or 7'
complete -c hedge -n '__hedge_path_is roll' -l ref -x -d 'the new hedge\'s deal id (default: the rolled hedge\'s own, kept through the roll)'
complete -c hedge -n '__hedge_path_is roll' -l skip-checks -d 'skip the pre-trade checks and let the server decide'
complete -c hedge -n '__hedge_path_is roll' -l no-wait -d 'return at `submitted` instead of waiting for the result'
complete -c hedge -n '__hedge_path_is roll' -l idempotency-key -x -d 'resume an earlier run whose outcome is unknown (reuses its key)'
complete -c hedge -n '__hedge_path_is roll' -l new -d 'start a fresh action even if the same one is unresolved in the journal'
complete -c hedge -n '__hedge_path_is roll' -l dry-run -d 'print the exact request that would be sent, and send nothing'
complete -c hedge -n '__hedge_path_is roll' -l again -d 'send it even if the same write ended minutes ago'
complete -c hedge -n '__hedge_arg_at 0 roll' -a '(__hedge_words markets)'
complete -c hedge -n '__hedge_arg_at 1 roll' -a 'buy sell'
complete -c hedge -n '__hedge_path_is login' -l base-url -x -d 'the API base address, https://…/v2 (the partner desk gives it)'
complete -c hedge -n '__hedge_path_is login' -l ca-file -r -F -d 'a PEM CA file to trust for this profile (self-signed sandboxes)'
complete -c hedge -n '__hedge_path_is login' -l journal-url -x -d 'the desk\'s shared journal store, postgres://USER@HOST:PORT/DB (password from ~/.pgpass or PGPASSWORD); `local` for this machine\'s file'
complete -c hedge -n '__hedge_path_is login' -l key-command -x -d 'take the key from a credential helper each time it is needed: a shell command whose output\'s first line is the key (`op read …`, `pass show …`); hedge stores the command, not the key'
complete -c hedge -n '__hedge_path_is login' -l key-store -x -a 'keyring file' -d 'where to keep the key: `keyring` (the OS keyring; the default where one answers) or `file` (the 0600 config file; the fallback)'
complete -c hedge -n '__hedge_path_is login' -l move-key -d 'move the profile\'s stored key to the OS keyring (or, with --key-store file, back to the file); asks nothing, sends nothing'
complete -c hedge -n '__hedge_command_at profile' -a list -d 'List profiles: name, environment, base URL, which is current'
complete -c hedge -n '__hedge_command_at profile' -a use -d 'Make a profile the current one'
complete -c hedge -n '__hedge_command_at profile' -a remove -d 'Delete a stored profile'
complete -c hedge -n '__hedge_command_at profile' -a reset-wire -d 'Forget the wire names learned from the server'
complete -c hedge -n '__hedge_arg_at 0 profile use' -a '(__hedge_profiles)'
complete -c hedge -n '__hedge_arg_at 0 profile remove' -a '(__hedge_profiles)'
complete -c hedge -n '__hedge_path_is profile reset-wire' -l all -d 'forget them for every profile and server'
complete -c hedge -n '__hedge_path_is whoami' -l until -x -d 'poll until this JMESPath condition over the --json data holds (exit 124 at --timeout, default 120 s; 17 once it can never hold)'
complete -c hedge -n '__hedge_path_is plan' -l tolerance -x -d 'USD within which a held side is at target (default 0)'
complete -c hedge -n '__hedge_path_is plan' -l adopt -x -d 'make a hedge on a row\'s side that carries another reference (or none) the row\'s, to close, reduce or add to (repeatable)'
complete -c hedge -n '__hedge_path_is plan' -l until -x -d 'poll until this JMESPath condition over the --json data holds (exit 124 at --timeout, default 120 s; 17 once it can never hold)'
complete -c hedge -n '__hedge_path_is apply' -l tolerance -x -d 'USD within which a held side is at target (default 0)'
complete -c hedge -n '__hedge_path_is apply' -l adopt -x -d 'make a hedge on a row\'s side that carries another reference (or none) the row\'s, to close, reduce or add to (repeatable)'
complete -c hedge -n '__hedge_path_is apply' -l dry-run -d 'the same as `hedge plan`: show, send nothing'
complete -c hedge -n '__hedge_command_at keep' -a run -d 'Hold a target book through maturities'
complete -c hedge -n '__hedge_command_at keep' -a status -d 'Show this account\'s keeper: running, hung or dead, its rows and rolls'
complete -c hedge -n '__hedge_path_is keep run' -l once -d 'run one cycle and exit (for cron or a systemd timer)'
complete -c hedge -n '__hedge_path_is keep run' -l interval -x -d 'seconds between cycles (default 60, at least 2)'
complete -c hedge -n '__hedge_path_is keep run' -l converge -d 'bring a drifted side back to its target (add, reduce or close); default: report only'
complete -c hedge -n '__hedge_path_is keep run' -l tolerance -x -d 'USD within which a held side is at target (default 0)'
complete -c hedge -n '__hedge_path_is keep run' -l adopt -x -d 'make a hedge on a row\'s side that carries another reference (or none) the row\'s, to close, reduce or add to (repeatable)'
complete -c hedge -n '__hedge_path_is keep run' -l alert-cmd -x -d 'run this shell command with each alert (started, recovered) as JSON on its stdin'
complete -c hedge -n '__hedge_path_is keep run' -l alert-url -x -d 'POST each alert (started, recovered) as JSON with a Slack-compatible text field'
complete -c hedge -n '__hedge_path_is keep run' -l alert-headroom -x -d 'alert when a row\'s market capacity or the exposure headroom is below this'
complete -c hedge -n '__hedge_path_is keep run' -l metrics -x -d 'serve Prometheus /metrics and /healthz on PORT or HOST:PORT (127.0.0.1 by default)'
complete -c hedge -n '__hedge_path_is keep run' -l dry-run -d 'print what one cycle would do, and send nothing'
complete -c hedge -n '__hedge_path_is keep run' -l exposures -d 'FILE is an exposures file: hold the moving target it implies (docs/exposures.md), converging within the band'
complete -c hedge -n '__hedge_path_is keep run' -l policy -r -F -d 'with --exposures: the policy file (JSON: ratios, band_pct, sizing, functional, netting)'
complete -c hedge -n '__hedge_path_is exposures' -l policy -r -F -d 'a policy file (JSON: ratios, band_pct, sizing, functional, netting); flags win over it'
complete -c hedge -n '__hedge_path_is exposures' -l ratios -x -d 'hedge ratio by days to due, e.g. 30:100,90:75,*:50 (the default)'
complete -c hedge -n '__hedge_path_is exposures' -l band -x -d 're-size band, percent of the target (default 5)'
complete -c hedge -n '__hedge_path_is exposures' -l sizing -x -a 'current fixed' -d 'USD sizing: current (today\'s price, the default) or fixed (the first cover\'s)'
complete -c hedge -n '__hedge_path_is exposures' -l functional -x -d 'the currency your books are in: USD (default) or the market\'s quote currency, e.g. NGN'
complete -c hedge -n '__hedge_path_is exposures' -l no-netting -d 'cover receivables and payables of a market apart (default: net them)'
complete -c hedge -n '__hedge_path_is exposures' -l fee-bps -x -d 'the fee per notional traded, in basis points (default: one indicative quote per market)'
complete -c hedge -n '__hedge_path_is exposures' -l show -x -a 'book exposures schedule cost stress policy coverage effectiveness' -d 'one section: book (default in tsv/csv), exposures, schedule, cost, stress, policy; with --report coverage, cost, effectiveness'
complete -c hedge -n '__hedge_path_is exposures' -l report -d 'how the book has covered them: coverage per week, cost to date, effectiveness (from history)'
complete -c hedge -n '__hedge_path_is exposures' -l html -r -F -d 'with --report: also write a self-contained HTML report (charts) to this file'
complete -c hedge -n '__hedge_path_is report' -l since -x -d 'closed on or after: 2026-11-01, an ISO time, or 7d / 2w / 1mo ago'
complete -c hedge -n '__hedge_path_is report' -l until -x -d 'closed before this date (same forms as --since); anything else is a condition to poll until, as on every read'
complete -c hedge -n '__hedge_path_is report' -l by -x -a 'day week month side tenor market hedge ref' -d 'group by day, week, month, side, tenor, market, hedge (a line per closed hedge) or ref (a line per deal reference, across its rolls); default day'
complete -c hedge -n '__hedge_path_is report' -l ref -x -d 'only what carries this client reference (your deal id)'
complete -c hedge -n '__hedge_path_is report' -l html -r -F -d 'also write a self-contained HTML report (charts, A4 printable) to this file'
complete -c hedge -n '__hedge_command_at journal' -a list -d 'List the journal of actions, newest first'
complete -c hedge -n '__hedge_command_at journal' -a show -d 'Show one journal entry in full'
complete -c hedge -n '__hedge_command_at journal' -a resolve -d 'Record by hand whether an action landed'
complete -c hedge -n '__hedge_command_at journal' -a migrate -d 'Move this machine\'s journal into the team store'
complete -c hedge -n '__hedge_path_is journal list' -l pending -d 'only actions whose outcome is not known yet (pending, submitted, unknown)'
complete -c hedge -n '__hedge_path_is journal list' -l since -x -d 'only actions from this time: 2026-11-20, an ISO time, or 30m / 2h / 3d / 1w / 1mo ago'
complete -c hedge -n '__hedge_path_is journal list' -l limit -x -d 'at most this many (default 50)'
complete -c hedge -n '__hedge_path_is journal list' -l ref -x -d 'only what carries this client reference (your deal id)'
complete -c hedge -n '__hedge_path_is journal list' -l until -x -d 'poll until this JMESPath condition over the --json data holds (exit 124 at --timeout, default 120 s; 17 once it can never hold)'
complete -c hedge -n '__hedge_path_is journal show' -l until -x -d 'poll until this JMESPath condition over the --json data holds (exit 124 at --timeout, default 120 s; 17 once it can never hold)'
complete -c hedge -n '__hedge_path_is journal resolve' -l landed -d 'it happened on the server: record it as done'
complete -c hedge -n '__hedge_path_is journal resolve' -l not-landed -d 'it did not happen: set it aside (run the command again for a new action)'
complete -c hedge -n '__hedge_path_is resume' -l no-wait -d 'return once the server answered, without waiting for the result'
complete -c hedge -n '__hedge_path_is resume' -l resend-unproven -d 'send it again with its key although its key may be forgotten and nothing proves it did not land (your word: had it landed, it happens twice)'
complete -c hedge -n '__hedge_command_at acct' -a designate -d 'Record a relationship (hashed) and print its memo'
complete -c hedge -n '__hedge_command_at acct' -a rates -d 'Import, record or list a market\'s dated rates'
complete -c hedge -n '__hedge_command_at acct' -a test -d 'Effectiveness per relationship and month'
complete -c hedge -n '__hedge_command_at acct' -a event -d 'Record an event: occurred, disposed, de-designated, …'
complete -c hedge -n '__hedge_command_at acct' -a reserve -d 'Each hedge\'s balance rolled forward'
complete -c hedge -n '__hedge_command_at acct' -a journal -d 'Balanced entries; the ERP posting file (--gl)'
complete -c hedge -n '__hedge_command_at acct' -a log -d 'The audit trail: who made each record, when, why'
complete -c hedge -n '__hedge_command_at acct' -a close -d 'Close a period: its figures kept as they are'
complete -c hedge -n '__hedge_command_at acct' -a list -d 'Each relationship, its status and reserve'
complete -c hedge -n '__hedge_command_at acct' -a show -d 'A relationship\'s memo reprinted, with its events'
complete -c hedge -n '__hedge_command_at acct' -a entities -d 'Declare the group\'s entities, or list them'
complete -c hedge -n '__hedge_command_at acct' -a approve -d 'Approve or reject a pending record (four eyes)'
complete -c hedge -n '__hedge_command_at acct' -a policy -d 'Four eyes: a second person approves what counts'
complete -c hedge -n '__hedge_command_at acct' -a disclose -d 'A period\'s disclosures (IFRS 7, ASC 815)'
complete -c hedge -n '__hedge_path_is acct designate' -l recorded-late -x -d 'record a designation dated before today (a relationship brought over from elsewhere): the memo says so on its first line'
complete -c hedge -n '__hedge_path_is acct designate' -l markdown -d 'print the memo in Markdown'
complete -c hedge -n '__hedge_path_is acct designate' -l html -r -F -d 'also write the memo as a self-contained HTML page (no script, A4 printable)'
complete -c hedge -n '__hedge_path_is acct designate' -l by -x -d 'who makes the record (default HEDGE_USER or user@host)'
complete -c hedge -n '__hedge_path_is acct rates' -l market -x -d 'the market the rates are of, e.g. EURUSD or USDTNGN'
complete -c hedge -n '__hedge_path_is acct rates' -l quote -x -d 'how the FILE\'s rates read, once: "USD per EUR", "NGN per USDT" (--record takes the server\'s)'
complete -c hedge -n '__hedge_path_is acct rates' -l record -d 'record today\'s mid price of --market from the API instead of a file'
complete -c hedge -n '__hedge_path_is acct rates' -l correct -d 'correct the file\'s dates recorded already with other figures (an appended correction; needs --reason)'
complete -c hedge -n '__hedge_path_is acct rates' -l reason -x -d 'with --correct: why the recorded rates are wrong'
complete -c hedge -n '__hedge_path_is acct rates' -l by -x -d 'who makes the record (default HEDGE_USER or user@host)'
complete -c hedge -n '__hedge_path_is acct test' -l as-of -x -d 'the last day: its month an interim period to that day (default today, the server\'s)'
complete -c hedge -n '__hedge_path_is acct test' -l period -x -d 'a month (2026-11), a quarter (2026-Q4) or a year (2026)'
complete -c hedge -n '__hedge_path_is acct test' -l entity -x -d 'the entity whose books (a company code the entities file declares): needed where the relationships are in several entities\' books'
complete -c hedge -n '__hedge_path_is acct test' -l values -r -F -d 'with an ID: cumulative fair values since designation from this CSV (date,instrument_value,hedged_item_value[,excluded_value]) instead of rates'
complete -c hedge -n '__hedge_path_is acct test' -l until -x -d 'poll until this JMESPath condition over the --json data holds (exit 124 at --timeout, default 120 s; 17 once it can never hold)'
complete -c hedge -n '__hedge_arg_at 0 acct test' -a '(__hedge_words relationships)'
complete -c hedge -n '__hedge_path_is acct event' -l occurred -x -d 'the hedged transaction happened on this date (all that is left of it, unless --share or --amount)'
complete -c hedge -n '__hedge_path_is acct event' -l disposed -x -d 'a net investment\'s operation was disposed of on this date (all, unless --share)'
complete -c hedge -n '__hedge_path_is acct event' -l share -x -d 'with --occurred or --disposed: a share of it, e.g. 0.25'
complete -c hedge -n '__hedge_path_is acct event' -l amount -x -d 'with --occurred or --disposed: an amount of the item'
complete -c hedge -n '__hedge_path_is acct event' -l de-designate -x -d 'end hedge accounting on this date (needs --reason)'
complete -c hedge -n '__hedge_path_is acct event' -l ground -x -a 'objective-changed criteria-not-met instrument-ended voluntary' -d 'with --de-designate: its ground (IFRS 9 needs one)'
complete -c hedge -n '__hedge_path_is acct event' -l not-expected -d 'with --de-designate: the transaction is no longer expected, so the reserve goes to P&L at once'
complete -c hedge -n '__hedge_path_is acct event' -l rebalance -x -d 'IFRS 9: change the designated share of the instrument from this date (needs --ratio and --reason)'
complete -c hedge -n '__hedge_path_is acct event' -l ratio -x -d 'with --rebalance: the new designated share'
complete -c hedge -n '__hedge_path_is acct event' -l terminate -x -d 'the instrument was terminated and settled in cash on this date (needs --reason)'
complete -c hedge -n '__hedge_path_is acct event' -l reason -x -d 'why (a de-designation, rebalancing, termination or correction)'
complete -c hedge -n '__hedge_path_is acct event' -l correct -x -d 'replace the event of this record (hedge acct log ID) with this one; --reason says why'
complete -c hedge -n '__hedge_path_is acct event' -l by -x -d 'who makes the record (default HEDGE_USER or user@host)'
complete -c hedge -n '__hedge_arg_at 0 acct event' -a '(__hedge_words relationships)'
complete -c hedge -n '__hedge_path_is acct reserve' -l as-of -x -d 'the last day: its month an interim period to that day (default today, the server\'s)'
complete -c hedge -n '__hedge_path_is acct reserve' -l period -x -d 'a month (2026-11), a quarter (2026-Q4) or a year (2026)'
complete -c hedge -n '__hedge_path_is acct reserve' -l entity -x -d 'the entity whose books (a company code the entities file declares): needed where the relationships are in several entities\' books'
complete -c hedge -n '__hedge_path_is acct reserve' -l values -r -F -d 'with an ID: cumulative fair values since designation from this CSV (date,instrument_value,hedged_item_value[,excluded_value]) instead of rates'
complete -c hedge -n '__hedge_path_is acct reserve' -l until -x -d 'poll until this JMESPath condition over the --json data holds (exit 124 at --timeout, default 120 s; 17 once it can never hold)'
complete -c hedge -n '__hedge_arg_at 0 acct reserve' -a '(__hedge_words relationships)'
complete -c hedge -n '__hedge_path_is acct journal' -l as-of -x -d 'the last day: its month an interim period to that day (default today, the server\'s)'
complete -c hedge -n '__hedge_path_is acct journal' -l period -x -d 'a month (2026-11), a quarter (2026-Q4) or a year (2026)'
complete -c hedge -n '__hedge_path_is acct journal' -l entity -x -d 'the entity whose books (a company code the entities file declares): needed where the relationships are in several entities\' books'
complete -c hedge -n '__hedge_path_is acct journal' -l accounts -r -F -d 'a JSON map of each role to its GL account, e.g. {"cash_flow_hedge_reserve": "3510"}'
complete -c hedge -n '__hedge_path_is acct journal' -l gl -d 'the posting file an ERP imports: a line per posting with its document, period, company code (the relationship\'s entity), ledger and GL account (needs --accounts naming every role posted to)'
complete -c hedge -n '__hedge_path_is acct journal' -l ledger -x -d 'with --gl: the ledger the lines post to (default IFRS, or USGAAP under ASC 815)'
complete -c hedge -n '__hedge_path_is acct journal' -l values -r -F -d 'with an ID: cumulative fair values since designation from this CSV (date,instrument_value,hedged_item_value[,excluded_value]) instead of rates'
complete -c hedge -n '__hedge_path_is acct journal' -l until -x -d 'poll until this JMESPath condition over the --json data holds (exit 124 at --timeout, default 120 s; 17 once it can never hold)'
complete -c hedge -n '__hedge_arg_at 0 acct journal' -a '(__hedge_words relationships)'
complete -c hedge -n '__hedge_path_is acct close' -l period -x -d 'the period to close: a month (2026-11), or a quarter (2026-Q4) or a year (2026): each of its months still open, in order'
complete -c hedge -n '__hedge_path_is acct close' -l entity -x -d 'the entity whose books (a company code the entities file declares): needed where the relationships are in several entities\' books'
complete -c hedge -n '__hedge_path_is acct close' -l values -x -d 'a relationship kept on fair values: ID=FILE, its cumulative values since designation (repeatable)'
complete -c hedge -n '__hedge_path_is acct close' -l by -x -d 'who makes the record (default HEDGE_USER or user@host)'
complete -c hedge -n '__hedge_path_is acct list' -l entity -x -d 'the entity whose books (a company code the entities file declares): needed where the relationships are in several entities\' books'
complete -c hedge -n '__hedge_path_is acct show' -l markdown -d 'print the memo in Markdown'
complete -c hedge -n '__hedge_arg_at 0 acct show' -a '(__hedge_words relationships)'
complete -c hedge -n '__hedge_path_is acct entities' -l by -x -d 'who makes the record (default HEDGE_USER or user@host)'
complete -c hedge -n '__hedge_path_is acct approve' -l reject -d 'reject it instead: it never counts (needs --reason)'
complete -c hedge -n '__hedge_path_is acct approve' -l reason -x -d 'with --reject: why'
complete -c hedge -n '__hedge_path_is acct approve' -l by -x -d 'who makes the record (default HEDGE_USER or user@host)'
complete -c hedge -n '__hedge_path_is acct policy' -l four-eyes -x -a 'on off' -d 'turn four eyes on (at once) or off (once approved)'
complete -c hedge -n '__hedge_path_is acct policy' -l by -x -d 'who makes the record (default HEDGE_USER or user@host)'
complete -c hedge -n '__hedge_path_is acct disclose' -l period -x -d 'a month (2026-11), a quarter (2026-Q4) or a year (2026)'
complete -c hedge -n '__hedge_path_is acct disclose' -l entity -x -d 'the entity whose books (a company code the entities file declares): needed where the relationships are in several entities\' books'
complete -c hedge -n '__hedge_path_is acct disclose' -l accounts -r -F -d 'a JSON map of each role to its GL account: the line items are named by them'
complete -c hedge -n '__hedge_path_is acct disclose' -l html -r -F -d 'also write them as a self-contained HTML page (no script, A4 printable)'
complete -c hedge -n '__hedge_command_at demo' -a reset -d 'Start the --demo simulator afresh (deletes its state, test funds only, and its accounting records)'
complete -c hedge -n '__hedge_path_is mcp' -l allow-live -d 'offer write tools on a live key too (each write then needs a confirmation token)'
complete -c hedge -n '__hedge_path_is mcp' -l root -r -F -d 'a directory plan and apply may read target files from (repeatable; default the working directory)'
complete -c hedge -n '__hedge_path_is mcp' -l max-notional -x -d 'refuse a write tool call that trades more than this many USD (nothing sent)'
complete -c hedge -n '__hedge_path_is mcp' -l max-daily-notional -x -d 'refuse a write that would take the agent\'s trades of the last 24 h (journal, via agent) past this many USD'
complete -c hedge -n '__hedge_path_is mcp' -l markets -x -d 'the only markets write tools may trade, comma-separated: USDTNGN,USDTKES'
complete -c hedge -n '__hedge_path_is tools' -l errors -d 'print the error catalogue instead: every error code, its exit code, whether and how to retry, what to do'
complete -c hedge -n '__hedge_path_is api' -s X -l method -x -a 'GET POST PUT PATCH DELETE' -d 'GET (default), POST, PUT, PATCH or DELETE; all but GET are journaled writes'
complete -c hedge -n '__hedge_path_is api' -s f -l raw-field -x -d 'a string parameter: query string of a GET, JSON body otherwise'
complete -c hedge -n '__hedge_path_is api' -s F -l field -x -d 'a typed parameter: numbers, true, false, null, @file; key[sub]= nests'
complete -c hedge -n '__hedge_path_is api' -s H -l header -x -d 'an extra request header (never Authorization)'
complete -c hedge -n '__hedge_path_is api' -l input -r -F -d 'the JSON body from this file (- for stdin); -f/-F then go in the query string'
complete -c hedge -n '__hedge_path_is api' -l paginate -d 'GET every page of a list and print one envelope of all its rows'
complete -c hedge -n '__hedge_path_is api' -s i -l include -d 'print the HTTP status line and the response headers before the body'
complete -c hedge -n '__hedge_path_is api' -l idempotency-key -x -d 'resume an earlier run whose outcome is unknown (reuses its key)'
complete -c hedge -n '__hedge_path_is api' -l new -d 'start a fresh action even if the same one is unresolved in the journal'
complete -c hedge -n '__hedge_path_is api' -l dry-run -d 'print the exact request that would be sent, and send nothing'
complete -c hedge -n '__hedge_path_is api' -l again -d 'send it even if the same write ended minutes ago'
complete -c hedge -n '__hedge_path_is api' -l until -x -d 'poll until this JMESPath condition over the --json data holds (exit 124 at --timeout, default 120 s; 17 once it can never hold)'
complete -c hedge -n '__hedge_arg_at 0 completion' -a 'bash zsh fish'
complete -c hedge -n '__hedge_command_at sandbox' -a serve -d 'Serve the simulator over HTTP(S) on loopback'
complete -c hedge -n '__hedge_path_is sandbox serve' -l port -x -d 'port (default: any free port)'
complete -c hedge -n '__hedge_path_is sandbox serve' -l host -x -d 'loopback address to listen on (127.0.0.1)'
complete -c hedge -n '__hedge_path_is sandbox serve' -l tls -d 'serve HTTPS with a fresh CA (printed as NODE_EXTRA_CA_CERTS)'
complete -c hedge -n '__hedge_path_is sandbox serve' -l fill-delay -x -d 'time from submitted to filled (default 2000)'
complete -c hedge -n '__hedge_path_is sandbox serve' -l fail-rate -x -d 'share of opens that fail on-chain, 0 to 1'
complete -c hedge -n '__hedge_path_is sandbox serve' -l clock-speed -x -d 'clock speed (3600: an hour a second)'
complete -c hedge -n '__hedge_path_is sandbox serve' -l start -x -d 'start its clock at this UTC time, not now'
complete -c hedge -n '__hedge_path_is sandbox serve' -l seed -x -d 'seed of the price path and faults'
complete -c hedge -n '__hedge_path_is sandbox serve' -l fault-5xx -x -d 'share of requests answered 500/503, 0 to 1'
complete -c hedge -n '__hedge_path_is sandbox serve' -l fault-429 -x -d 'share of requests answered 429, 0 to 1'
complete -c hedge -n '__hedge_path_is sandbox serve' -l drop-after-commit -x -d 'share of writes whose connection drops after they took effect'
complete -c hedge -n '__hedge_path_is sandbox serve' -l latency -x -d 'added latency per request'
complete -c hedge -n '__hedge_path_is sandbox serve' -l rate-limit -x -d 'requests per second per key before 429'
complete -c hedge -n '__hedge_path_is sandbox serve' -l dialect -x -a 'reference alpha beta gamma delta epsilon' -d 'the server\'s answers where the spec is silent: reference, alpha, beta, gamma, delta or epsilon'
complete -c hedge -n '__hedge_path_is sandbox serve' -l clock-skew -x -d 'run the Date header this many seconds off this machine\'s clock (negative: behind)'
complete -c hedge -n '__hedge_path_is sandbox serve' -l hostile-text -d 'seed names, references and messages with terminal escape sequences'
complete -c hedge -n '__hedge_path_is sandbox serve' -l view-lag -x -d 'positions, history, account trail the records'
complete -c hedge -n '__hedge_path_is sandbox serve' -l record-lag -x -d 'a new hedge reads as 404, unlisted, this long'
complete -c hedge -n '__hedge_path_is sandbox serve' -l several-per-side -d 'several hedges per side, in any dialect'
complete -c hedge -n '__hedge_path_is sandbox serve' -l settlement-delay -x -d 'hedges settle this many seconds past maturity'
complete -c hedge -n '__hedge_path_is sandbox serve' -l day -x -d 'a tenor day\'s length (default 86400)'
