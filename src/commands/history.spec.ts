// The declaration of `hedge history`: its arguments, options, tier and examples (the
// manifest collects it; history.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';
import { UNTIL_DATE_OR_CONDITION, REF_FILTER, LIST_LENGTH_OPTIONS } from './spec-parts.js';

export const HISTORY = declare({
  name: 'history',
  summary: 'Closed hedges: realized P&L, carry and fees, with totals',
  description: 'List closed hedges with realized P&L, carry and fees, with totals',
  group: 'book',
  tier: 'read',
  options: [
    ...LIST_LENGTH_OPTIONS,
    {
      flags: '--since <date>',
      key: 'since',
      kind: 'value',
      description: 'closed on or after: 2026-11-01, an ISO time, or 7d / 2w / 1m ago',
    },
    UNTIL_DATE_OR_CONDITION,
    REF_FILTER,
  ],
  examples: ['hedge history', 'hedge history --ref DEAL-7', 'hedge history --json | jq "map(.net_pnl_usd) | add"'],
});
