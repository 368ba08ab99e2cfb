// The declaration of `hedge demo reset`: its arguments, options, tier and examples (the
// manifest collects it; demo-reset.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';

export const DEMO_RESET = declare({
  name: 'reset',
  summary: 'Start the --demo simulator afresh (deletes its state: test funds only)',
  tier: 'local',
  examples: ['hedge demo reset'],
});
