// The declaration of `hedge journal show`: its arguments, options, tier and examples (the
// manifest collects it; journal-show.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';
import { UNTIL_OPTION } from './spec-parts.js';

export const JOURNAL_SHOW = declare({
  name: 'show',
  summary: 'Show one journal entry in full',
  description: 'Show one journal entry in full: request, idempotency key, outcome',
  tier: 'read',
  options: [UNTIL_OPTION],
  args: [
    { name: 'id', required: true, description: 'a journal id (a_…) or a unique part of one (as a table shows it)' },
  ],
  examples: ['hedge journal show a_mwrrf5p1'],
});
