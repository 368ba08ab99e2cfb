// The declaration of `hedge account`: its arguments, options, tier and examples (the
// manifest collects it; account.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';
import { WATCH_OPTIONS, UNTIL_OPTION } from './spec-parts.js';

export const ACCOUNT = declare({
  name: 'account',
  summary: 'Balance, margin in use, exposure, unrealized P&L, headroom',
  description: 'Show the account: balance, margin in use, exposure, unrealized P&L and headroom',
  group: 'book',
  tier: 'read',
  options: [...WATCH_OPTIONS, UNTIL_OPTION],
  examples: ['hedge account', 'hedge account --json | jq .available_exposure_usd', 'hedge account --watch'],
});
