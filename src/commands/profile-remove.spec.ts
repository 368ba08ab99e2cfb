// The declaration of `hedge profile remove`: its arguments, options, tier and examples (the
// manifest collects it; profile-remove.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';
import { PROFILE_NAME_ARG } from './spec-parts.js';

export const PROFILE_REMOVE = declare({
  name: 'remove',
  summary: 'Delete a stored profile',
  tier: 'local',
  args: [PROFILE_NAME_ARG],
  examples: ['hedge profile remove old-desk'],
});
