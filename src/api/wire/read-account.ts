// The tolerant reader of the account. The spec names `balance_usdc` and `available_exposure_usd`;
// the other figures are "not shown", so each is read from the first of several plausible names
// (the names of the simulator's dialects among them, src/sandbox/DIALECTS.md). Read, they are
// shown under our names: in the account card, and in the one shape `--json` gives a script.
import { firstField, readNumber } from './read-fields.js';
import { showUnderKnownNames } from './unspecified.js';

/** Every name each account figure is read from, ours (docs/output.md) first. Extend here, and only here. */
export const ACCOUNT_FIELD_SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  balance_usdc: ['balance_usdc'],
  margin_in_use_usdc: ['margin_in_use_usdc', 'used_margin_usdc', 'margin_locked_usdc', 'margin_used_usdc'],
  open_exposure_usd: ['open_exposure_usd', 'exposure_usd', 'gross_exposure_usd'],
  unrealized_pnl_usd: ['unrealized_pnl_usd', 'upnl_usd', 'floating_pnl_usd', 'unrealised_pnl_usd'],
  open_positions: ['open_positions', 'open_position_count', 'num_positions', 'positions'],
  available_exposure_usd: ['available_exposure_usd'],
  exposure_cap_usd: ['exposure_cap_usd', 'exposure_limit_usd', 'max_exposure_usd'],
};

/**
 * The account in hedge's one shape: each figure read under another name shown under ours (the
 * name it came under dropped, as the same value), every other field as sent (showUnderKnownNames).
 */
export function accountForPeople(raw: Record<string, unknown>): Record<string, unknown> {
  const facts = Object.entries(ACCOUNT_FIELD_SYNONYMS).map(([known, synonyms]) => ({
    known,
    value: firstField(raw, synonyms, readNumber),
    synonyms,
  }));
  return showUnderKnownNames(raw, facts);
}
