// The declaration of `hedge journal resolve`: its arguments, options, tier and examples (the
// manifest collects it; journal-resolve.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';

export const JOURNAL_RESOLVE = declare({
  name: 'resolve',
  group: 'book',
  summary: 'Record by hand whether an action landed',
  description: 'Record by hand whether an unresolved action landed (when hedge cannot tell); sends nothing',
  tier: 'local',
  args: [
    { name: 'id', required: true, description: 'a journal id (a_…) or a unique part of one (as a table shows it)' },
  ],
  options: [
    { flags: '--landed', key: 'landed', kind: 'flag', description: 'it happened on the server: record it as done' },
    {
      flags: '--not-landed',
      key: 'notLanded',
      kind: 'flag',
      description: 'it did not happen: set it aside (run the command again for a new action)',
    },
  ],
  examples: ['hedge journal resolve a_mwrrf5p1 --landed', 'hedge journal resolve a_mwrrf5p1 --not-landed'],
});
