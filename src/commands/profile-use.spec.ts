// The declaration of `hedge profile use`: its arguments, options, tier and examples (the
// manifest collects it; profile-use.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';
import { PROFILE_NAME_ARG } from './spec-parts.js';

export const PROFILE_USE = declare({
  name: 'use',
  summary: 'Make a profile the current one',
  tier: 'local',
  args: [PROFILE_NAME_ARG],
  examples: ['hedge profile use desk'],
});
