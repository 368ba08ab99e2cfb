// The declaration of `hedge login`: its arguments, options, tier and examples (the
// manifest collects it; login.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';

export const LOGIN = declare({
  name: 'login',
  summary: 'Save a profile: base URL and API key',
  description: 'Save a profile: base URL and API key (asked hidden on a terminal, read from stdin otherwise)',
  group: 'setup',
  tier: 'local',
  options: [
    {
      flags: '--base-url <url>',
      key: 'baseUrl',
      kind: 'value',
      description: 'the API base address, https://…/v2 (the partner desk gives it)',
    },
    {
      flags: '--ca-file <file>',
      key: 'caFile',
      kind: 'value',
      description: 'a PEM CA file to trust for this profile (self-signed sandboxes)',
    },
    {
      flags: '--journal-url <url>',
      key: 'journalUrl',
      kind: 'value',
      description:
        "the desk's shared journal store, postgres://USER@HOST:PORT/DB (password from ~/.pgpass or PGPASSWORD); `local` for this machine's file",
    },
    {
      flags: '--key-command <command>',
      key: 'keyCommand',
      kind: 'value',
      description:
        "take the key from a credential helper each time it is needed: a shell command whose output's first line is the key (`op read …`, `pass show …`); hedge stores the command, not the key",
    },
    {
      flags: '--key-store <where>',
      key: 'keyStore',
      kind: 'value',
      values: ['keyring', 'file'],
      description:
        'where to keep the key: `keyring` (the OS keyring; the default where one answers) or `file` (the 0600 config file; the fallback)',
    },
    {
      flags: '--move-key',
      key: 'moveKey',
      kind: 'flag',
      description:
        "move the profile's stored key to the OS keyring (or, with --key-store file, back to the file); asks nothing, sends nothing",
    },
  ],
  examples: [
    'hedge login --profile desk',
    "hedge login --profile desk --key-command 'pass show hedge/desk'",
    'hedge login --profile desk --move-key',
    'printf %s "$HEDGE_KEY" | hedge login --profile desk --journal-url postgres://desk@db.internal:5432/hedge',
    'printf %s "$HEDGE_KEY" | hedge login --profile desk --base-url https://api.example.com/partners/acme/v2',
  ],
});
