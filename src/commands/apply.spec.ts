// The declaration of `hedge apply`: its arguments, options, tier and examples (the
// manifest collects it; apply.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';

export const APPLY = declare({
  name: 'apply',
  summary: 'Bring the book to a target file, each action journaled',
  description:
    'Bring the book to a target file: plan, confirm once, then each action through the journal; re-running is harmless',
  group: 'automation',
  tier: 'write',
  args: [{ name: 'file', required: true, description: 'the target file, or - for stdin' }],
  options: [
    {
      flags: '--tolerance <usd>',
      key: 'tolerance',
      kind: 'value',
      description: 'treat differences up to this many USD as at target (default 0)',
    },
    { flags: '--dry-run', key: 'dryRun', kind: 'flag', description: 'the same as `hedge plan`: show, send nothing' },
  ],
  // A checkout's sample target (docs/examples/): the examples run as written from its root.
  examples: ['hedge apply docs/examples/target.csv', 'hedge apply docs/examples/target.csv --yes --json'],
});
