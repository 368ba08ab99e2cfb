// The declaration of `hedge profile list`: its arguments, options, tier and examples (the
// manifest collects it; profile-list.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';

export const PROFILE_LIST = declare({
  name: 'list',
  summary: 'List profiles: name, environment, base URL, which is current',
  description: 'List profiles: name, environment, base URL, redacted key, which is current',
  tier: 'local',
  examples: ['hedge profile list'],
});
