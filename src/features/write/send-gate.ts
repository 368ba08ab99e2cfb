// What a journal entry traded, as an agent's limits count it.
import { readNumber } from '../../core/number-format.js';
import { POSITION_FIELD_SYNONYMS } from '../../platform/api/wire/fields.js';
import { bodyOf, type JournalEntry } from '../../platform/journal/index.js';

/** What a journal entry traded: what it recorded it moved (a close), else its body's notional (open, add, reduce), else its context's. */
export function tradedUsd(entry: Pick<JournalEntry, 'request' | 'context' | 'traded_usd'>) {
  if (typeof entry.traded_usd === 'number') return Math.abs(entry.traded_usd);
  for (const name of POSITION_FIELD_SYNONYMS.notionalUsd) {
    const value = readNumber(bodyOf(entry)[name]);
    if (value !== undefined) return Math.abs(value);
  }
  return Math.abs(readNumber(entry.context?.notional_usd) ?? 0);
}
