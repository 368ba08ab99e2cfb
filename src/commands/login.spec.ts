// The declaration of `hedge login`: its arguments, options, tier and examples (the
// manifest collects it; login.ts types its input from it). Data only: the front bundles it.
import { declare } from '../cli/command-spec.js';

export const LOGIN = declare({
  name: 'login',
  summary: 'Save a profile: base URL and API key',
  description: 'Save a profile: base URL and API key (asked hidden on a terminal, read from stdin otherwise)',
  group: 'setup',
  tier: 'local',
  options: [
    { flags: '--base-url <url>', key: 'baseUrl', kind: 'value', description: 'the API base address, https://…/v2 (the partner desk gives it)' },
    { flags: '--ca-file <file>', key: 'caFile', kind: 'value', description: 'a PEM CA file to trust for this profile (self-signed sandboxes)' },
    {
      flags: '--journal-url <url>',
      key: 'journalUrl',
      kind: 'value',
      description: "the desk's shared journal store, postgres://USER@HOST:PORT/DB (password from ~/.pgpass or PGPASSWORD); `local` for this machine's file",
    },
  ],
  examples: [
    'hedge login --profile desk',
    'printf %s "$HEDGE_KEY" | hedge login --profile desk --journal-url postgres://desk@db.internal:5432/hedge',
    'printf %s "$HEDGE_KEY" | hedge login --profile desk --base-url https://api.example.com/partners/acme/v2',
  ],
});
