// What a journal entry traded, as an agent's limits count it.
import { readNumber } from '../../core/number-format.js';
import { POSITION_FIELD_SYNONYMS } from '../../platform/api/wire/fields.js';
import { CHANGE_BODY_FIELDS } from '../../platform/api/wire/unspecified.js';
import { bodyOf, type JournalEntry } from '../../platform/journal/index.js';

/** A write's amount as its body carries it: under our name or a synonym, else (a change's) the one number beside its
 * market and side, under the server's own name for it (client.ts changeRequestFromBody). */
export function bodyAmount(entry: Pick<JournalEntry, 'request'>) {
  const body = bodyOf(entry);
  for (const name of [...POSITION_FIELD_SYNONYMS.notionalUsd, ...Object.keys(body)]) {
    const value = CHANGE_BODY_FIELDS.has(name) ? undefined : readNumber(body[name]);
    if (value !== undefined) return value;
  }
}

/** What a journal entry traded: what it recorded it moved (a close), else its body's amount (open, add, reduce), else its context's notional. */
export function tradedUsd(entry: Pick<JournalEntry, 'request' | 'context' | 'traded_usd'>) {
  if (typeof entry.traded_usd === 'number') return Math.abs(entry.traded_usd);
  return Math.abs(bodyAmount(entry) ?? readNumber(entry.context?.notional_usd) ?? 0);
}
