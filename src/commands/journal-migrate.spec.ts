// The declaration of `hedge journal migrate`: its arguments, options, tier and examples (the
// manifest collects it; journal-migrate.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';

export const JOURNAL_MIGRATE = declare({
  name: 'migrate',
  group: 'book',
  summary: "Move this machine's journal into the team store",
  description: "Move this machine's journal (and fallback records) into the team store; running it again adds nothing",
  tier: 'local',
  examples: [
    'HEDGE_JOURNAL_URL=postgres://desk@db.internal:5432/hedge hedge journal migrate',
    'hedge journal migrate --profile desk --json',
  ],
});
