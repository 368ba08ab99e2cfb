// The declaration of `hedge hedges`: its arguments, options, tier and examples (the
// manifest collects it; hedges.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';
import { STATUS_VALUES, WATCH_OPTIONS, UNTIL_OPTION, REF_FILTER, LIST_LENGTH_OPTIONS } from './spec-parts.js';

export const HEDGES = declare({
  name: 'hedges',
  summary: 'List hedges, newest first, or show one in full',
  description: 'List hedges, newest first, or show one hedge in full',
  group: 'book',
  tier: 'read',
  args: [
    {
      name: 'id',
      required: false,
      description: 'a hedge id (hdg_…) to show in full, or a unique part of one (as a table shows it)',
    },
  ],
  options: [
    {
      flags: '--status <status>',
      key: 'status',
      kind: 'value',
      description: 'only hedges in this status',
      values: STATUS_VALUES,
    },
    REF_FILTER,
    ...LIST_LENGTH_OPTIONS,
    {
      flags: '--wait',
      key: 'wait',
      kind: 'flag',
      description: 'with an ID: poll until the hedge is filled, failed or closed',
    },
    ...WATCH_OPTIONS,
    UNTIL_OPTION,
  ],
  examples: [
    'hedge hedges --status filled --limit 20',
    'hedge hedges hdg_01HX… --wait',
    'hedge hedges hdg_01HX… --until "status==\'filled\'" --json',
    'hedge hedges --ref DEAL-42 --json',
  ],
});
