// The declaration of `hedge profile reset-wire`: its arguments, options, tier and examples (the
// manifest collects it; profile-reset-wire.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';

export const PROFILE_RESET_WIRE = declare({
  name: 'reset-wire',
  group: 'setup',
  summary: 'Forget the wire names learned from the server',
  description:
    'Forget the wire names hedge learned from the server (page-size parameter, add/reduce amount) for the profile or server in use',
  tier: 'local',
  options: [{ flags: '--all', key: 'all', kind: 'flag', description: 'forget them for every profile and server' }],
  examples: ['hedge profile reset-wire', 'hedge --profile desk profile reset-wire', 'hedge profile reset-wire --all'],
});
