// What a journal entry traded, as an agent's limits count it.
import { readNumber } from '../../core/number-format.js';
import { bodyOf, recordedUsd, type JournalEntry } from '../../platform/journal/index.js';

/** What a journal entry traded: what it recorded it moved (a close), else its body's amount under whatever name the
 * server gives it (open, add, reduce), else its context's notional, else what an agent's limits judged it trades. */
export function tradedUsd(entry: Pick<JournalEntry, 'request' | 'context' | 'traded_usd'>) {
  if (typeof entry.traded_usd === 'number') return Math.abs(entry.traded_usd);
  const { notional_usd: notional, judged_usd: judged } = entry.context ?? {};
  return Math.abs(recordedUsd(bodyOf(entry)) ?? readNumber(notional) ?? readNumber(judged) ?? 0);
}
