// The declaration of `hedge logout`: its arguments, options, tier and examples (the
// manifest collects it; logout.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';

export const LOGOUT = declare({
  name: 'logout',
  summary: "Remove a profile's stored API key",
  description: 'Remove the stored API key of a profile (the current one by default)',
  group: 'setup',
  tier: 'local',
  examples: ['hedge logout', 'hedge logout --profile desk'],
});
