// The declaration of `hedge plan`: its arguments, options, tier and examples (the
// manifest collects it; plan.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';
import { UNTIL_OPTION } from './spec-parts.js';

export const PLAN = declare({
  name: 'plan',
  summary: 'The actions that bring the book to a target file; sends nothing',
  description:
    'Show the actions that bring the book to a target file (CSV or JSON), their cost and checks; sends nothing',
  group: 'automation',
  tier: 'read',
  args: [
    {
      name: 'file',
      required: true,
      description: 'the target file (CSV: market,side,notional_usd,tenor_days[,client_reference]), or - for stdin',
    },
  ],
  options: [
    {
      flags: '--tolerance <usd>',
      key: 'tolerance',
      kind: 'value',
      description: 'treat differences up to this many USD as at target (default 0)',
    },
    UNTIL_OPTION,
  ],
  // A checkout's sample target (docs/examples/); `# exit 9`: what a plan that has changes to make exits with.
  examples: [
    'hedge plan docs/examples/target.csv   # exit 9: changes to make',
    'hedge plan docs/examples/target.csv --json   # exit 9',
    'cat docs/examples/target.csv | hedge plan -   # exit 9',
  ],
});
