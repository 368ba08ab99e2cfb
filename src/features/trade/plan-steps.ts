// What a plan of steps (an apply's, a roll's close then open) is carried out under: the book's and the sides' locks,
// one confirmation bound to what was shown, then each step through the one write flow in turn, with its own key.
import type { JournalEntry, Holder, ListOptions } from '../../platform/journal/index.js';
import type { WritePorts } from '../write/ports.js';
import { withAccountLock, withSideLocks } from '../write/account-lock.js';
import type { TradeRecord } from './trade-actions.js';
import { sendTrade } from './change.js';
import { identityOf, sentBy } from '../write/identity.js';

/** This account's entries of the groups whose id starts with `groupPrefix`, as `query` lists them (newest first). */
export async function ownGroupEntries(ports: WritePorts, groupPrefix: string, query: ListOptions) {
  const [journal, identity] = await Promise.all([ports.journal(), identityOf(ports)]);
  return (await journal.list(query)).filter((entry) => sentBy(identity, entry) && entry.group?.startsWith(groupPrefix));
}

/** The plan's lock on the book, then each of its sides' (a second apply or roll waits); `waitedFor`: who held the book meanwhile. */
export function underPlanLocks<T>(
  ports: WritePorts,
  sides: ReadonlyArray<{ market: string; side: string }>,
  body: (waitedFor: Holder | undefined) => Promise<T>,
) {
  return withAccountLock(ports, 'the book of this account', ['book'], (waitedFor) =>
    withSideLocks(ports, sides, () => body(waitedFor)),
  );
}

/** One step sent and waited for (`wait`), with the key journaled for it earlier (a resumed step) or a new one: the
 * plan's one confirmation covered it, with its checks, and an agent's limits admitted the whole plan. */
export async function sendStep(ports: WritePorts, record: TradeRecord, wait: boolean, idempotencyKey?: string) {
  return (await sendTrade(
    ports,
    await ports.client(),
    { ...record, approved: { by: 'plan' } },
    { wait, dryRun: false, fresh: false, idempotencyKey },
  )) as {
    entry: JournalEntry;
    answer?: unknown;
    result?: unknown;
  };
}
