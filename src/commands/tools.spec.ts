// The declaration of `hedge tools`: its arguments, options, tier and examples (the
// manifest collects it; tools.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';

export const TOOLS = declare({
  name: 'tools',
  summary: 'The tools an agent may call: schemas, risk tiers, errors',
  description:
    'Describe the commands an agent may call: names, argument schemas, risk tiers and the errors each can return',
  group: 'setup',
  tier: 'local',
  options: [
    {
      flags: '--errors',
      key: 'errors',
      kind: 'flag',
      description:
        'print the error catalogue instead: every error code, its exit code, whether and how to retry, what to do',
    },
  ],
  examples: ['hedge tools --json', 'hedge tools --errors --json'],
});
