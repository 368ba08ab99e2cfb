// The declaration of `hedge whoami`: its arguments, options, tier and examples (the
// manifest collects it; whoami.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';
import { UNTIL_OPTION } from './spec-parts.js';

export const WHOAMI = declare({
  name: 'whoami',
  summary: 'The profile, environment and key in use, and whether it works',
  description:
    'Show the profile, environment, base URL and key in use, where each came from, and whether the key works',
  group: 'setup',
  tier: 'read',
  options: [UNTIL_OPTION],
  examples: ['hedge whoami', 'HEDGE_PROFILE=desk hedge whoami --json'],
});
