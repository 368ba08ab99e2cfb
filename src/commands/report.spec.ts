// The declaration of `hedge report`: its arguments, options, tier and examples (the
// manifest collects it; report.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';
import { UNTIL_DATE_OR_CONDITION, REF_FILTER } from './spec-parts.js';

export const REPORT = declare({
  name: 'report',
  summary: 'P&L by day, week, month, side, tenor, market or deal; CSV, HTML',
  description:
    'P&L by day, week, month, side, tenor, market, closed hedge or deal reference from history, with unrealized P&L; CSV; --html FILE',
  group: 'book',
  tier: 'read',
  options: [
    {
      flags: '--since <date>',
      key: 'since',
      kind: 'value',
      description: 'closed on or after: 2026-11-01, an ISO time, or 7d / 2w / 1m ago',
    },
    UNTIL_DATE_OR_CONDITION,
    {
      flags: '--by <group>',
      key: 'by',
      kind: 'value',
      description:
        'group by day, week, month, side, tenor, market, hedge (a line per closed hedge) or ref (a line per deal reference, across its rolls); default day',
      values: ['day', 'week', 'month', 'side', 'tenor', 'market', 'hedge', 'ref'],
    },
    REF_FILTER,
    {
      flags: '--html <file>',
      key: 'html',
      kind: 'value',
      description: 'also write a self-contained HTML report (charts, A4 printable) to this file',
    },
  ],
  examples: [
    'hedge report --by week',
    'hedge report --by hedge --ref DEAL-7',
    'hedge report --since 2026-11-01 --format csv > november.csv',
    'hedge report --by month --html report.html',
  ],
});
