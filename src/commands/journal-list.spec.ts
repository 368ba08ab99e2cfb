// The declaration of `hedge journal list`: its arguments, options, tier and examples (the
// manifest collects it; journal-list.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';
import { UNTIL_OPTION, REF_FILTER } from './spec-parts.js';

export const JOURNAL_LIST = declare({
  name: 'list',
  summary: 'List the journal of actions, newest first',
  description: 'List the journal of actions, newest first: every write, by which profile, when, with what outcome',
  tier: 'read',
  isDefault: true,
  options: [
    {
      flags: '--pending',
      key: 'pending',
      kind: 'flag',
      description: 'only actions whose outcome is not known yet (pending, submitted, unknown)',
    },
    {
      flags: '--since <when>',
      key: 'since',
      kind: 'value',
      description: 'only actions from this time: 2026-11-20, an ISO time, or 2h / 3d / 1w ago',
    },
    { flags: '--limit <n>', key: 'limit', kind: 'value', description: 'at most this many (default 50)' },
    REF_FILTER,
    UNTIL_OPTION,
  ],
  examples: ['hedge journal', 'hedge journal --pending', 'hedge journal --since 1d --json'],
});
