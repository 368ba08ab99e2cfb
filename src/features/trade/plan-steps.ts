// A plan of steps (an apply's, a roll's close then open), carried out under runWrite's lock stage: one confirmation
// bound to what was shown, then each step through the one write flow in turn, with its own key.
import { bodyOf, type JournalEntry, type ListOptions } from '../../platform/journal/index.js';
import type { WritePorts } from '../write/ports.js';
import { recordFromJournal, sendTrade, type TradeRecord } from './trade-actions.js';
import { isUnresolved } from '../../platform/journal/entry.js';
import { planDryRun } from '../write/write-flow.js';
import { makeIdempotencyKey, type Held } from '../write/write-run.js';
import { confirmRowFromElsewhere, identityOf, sentBy } from '../write/row-trust.js';
import { confirmOrStop } from '../write/confirm.js';
import { sameAsShown } from '../book/book.js';
import type { Approval } from '../write/write-run.js';
import { safeText } from '../../core/security/safe-text.js';
import type { Trade } from '../../platform/runtime/context.js';

/** This account's entries of the groups whose id starts with `groupPrefix`, as `query` lists them (newest first). */
export async function ownGroupEntries(ports: WritePorts, groupPrefix: string, query: ListOptions) {
  const [journal, identity] = await Promise.all([ports.journal(), identityOf(ports)]);
  return (await journal.list(query)).filter((entry) => sentBy(identity, entry) && entry.group?.startsWith(groupPrefix));
}

/** A plan shown and confirmed once: `show` presents it and says what it showed, with the question to ask (none: the plan
 * stands as shown). A "yes" holds for the trades shown: a book that moved under the question sends nothing, is said
 * (`moved`), and the plan is built and shown anew. */
export async function confirmedPlan<P extends { trades: readonly Trade[] }, S extends { question?: string }>(
  ports: WritePorts,
  build: () => Promise<P>,
  show: (plan: P) => Promise<S>,
  bound: { live: boolean; moved: (shown: P, now: P) => void },
) {
  for (let plan = await build(); ;) {
    const shown = await show(plan);
    if (shown.question === undefined) return { plan, shown };
    await confirmOrStop(ports, shown.question, { live: bound.live });
    const now = await build();
    if (sameAsShown(plan.trades, now.trades)) return { plan, shown };
    bound.moved(plan, now);
    plan = now;
  }
}

/** What a step of a plan did: its journal row, and what the write flow was answered and read (null: not due, nothing sent). */
export type StepDone = { entry: JournalEntry; answer?: unknown; result?: unknown } | null;

/** A step of a plan as the executor carries it out, as data: its record (the plan's group, its leg) and the key
 * journaled for it earlier (a resumed step), else a new one. What the plan checks of it right before it is sent, and
 * what its failure means for the plan, its owner (apply, roll) says in its own loop, under the plan's locks. */
export interface PlanRunStep {
  record: TradeRecord;
  key?: string;
  /** false: sent, not waited for (--no-wait). */
  wait?: boolean;
  /** Approved otherwise than by the plan (an earlier plan's step finished: judged as a write of its own). */
  approved?: Approval;
}

/** The executor of a plan's step (an apply's, a roll's close or open), run under the plan's locks (`held`): through the
 * one write flow, approved by the plan (its one confirmation covered every step, with its checks, and an agent's limits
 * admitted it whole) unless the step says otherwise, with its own key. */
export async function runStep(ports: WritePorts, { record, key, wait = true, approved }: PlanRunStep, held: Held) {
  // A plan's step is its owner's to decide: a change to a flat side is the server's to refuse, and said by the plan.
  const step = {
    ...record,
    approved: approved ?? { by: 'plan' as const },
    serverDecides: !approved || record.serverDecides,
  };
  return (await sendTrade(ports, step, { wait, idempotencyKey: key, held })) as StepDone;
}

/** A step of a journaled plan: its row from an earlier run (none: never journaled), and what its dry run says of it. */
export type JournaledStep = PlanRunStep & { row?: JournalEntry; note?: string };

/** The steps of a journaled plan still to take, each under its row's key (a new one when it has none): those whose row is
 * absent or unresolved while no later step was sent (a row past `planned`) — a resumed plan goes on where it stopped. */
export const stepsDue = (steps: readonly JournaledStep[]) =>
  steps.flatMap(({ row, key = row?.idempotency_key, ...step }, index) =>
    (!row || isUnresolved(row)) && !steps.slice(index + 1).some((later) => later.row && later.row.outcome !== 'planned')
      ? [{ ...step, key }]
      : [],
  );

/** A journaled plan's dry run: each step due, with the request it would send and its note. */
export async function stepsDryRun(ports: WritePorts, steps: readonly JournaledStep[]) {
  const client = await ports.client();
  return Promise.all(
    stepsDue(steps).map(async ({ record, key = makeIdempotencyKey(), note }) => ({
      leg: record.leg ?? record.kind,
      request: await planDryRun(ports, client.plan(record.kind, record.request, key)),
      note,
    })),
  );
}

/** A journaled plan as the journal holds it: each leg's row, and whether one is still unresolved (the plan is
 * unfinished). */
export async function journaledPlan(ports: WritePorts, group: string) {
  const rows = await (await ports.journal()).list({ group });
  return { row: (leg: string) => rows.find((row) => row.leg === leg), unfinished: rows.some(isUnresolved) };
}

/** A journaled plan set aside: its unresolved rows abandoned, never to be sent. */
export async function setAside(ports: WritePorts, rows: ReadonlyArray<JournalEntry | undefined>, message: string) {
  const journal = await ports.journal();
  for (const row of rows) if (row && isUnresolved(row)) await journal.update(row.id, { outcome: 'abandoned', message });
}

/** An earlier plan's unresolved rows of this account (`groupPrefix`, its command `what`), oldest first, each finished as
 * a step under its own key (one begun on another machine, a team store's, only when a person says so), or said and
 * left when it is no trade the executor can send again (`hedge resume` can). Not approved by a plan: an agent's limits
 * judge each step finished here (write-flow.ts). Returns how many there were. */
export async function finishEarlierSteps(ports: WritePorts, groupPrefix: string, what: string, held: Held) {
  const client = await ports.client();
  const rows = (await ownGroupEntries(ports, groupPrefix, { pending: true })).reverse();
  for (const row of rows) {
    const record = recordFromJournal(client, row);
    const { id, command, leg } = row;
    if (!record) {
      ports.notify({
        kind: 'step-not-resumable',
        level: 'warn',
        text: `Journal ${id} (${safeText(command)}) is not an action ${what} can finish; see \`${ports.hedgeCommand('resume', id)}\`.`,
      });
      continue;
    }
    const step =
      `${command} ${safeText(String(bodyOf(row).market ?? ''))} ${safeText(String(bodyOf(row).side ?? ''))}`.trim();
    await confirmRowFromElsewhere(ports, row, 'finish it');
    ports.notify({
      kind: 'resuming-step',
      level: 'note',
      text: `Finishing the ${step} of an earlier ${what} (journal ${id}, ${safeText(leg ?? '')}) with its own key ${row.idempotency_key} …`,
    });
    const done = await runStep(ports, { record, key: row.idempotency_key, approved: { by: 'run' } }, held);
    const outcome = done?.entry.outcome ?? 'unknown';
    ports.notify({
      kind: 'resumed-step',
      level: 'note',
      text:
        outcome === 'failed'
          ? `Journal ${id}: the ${step} failed on-chain (nothing was opened); the plan below starts from the book as it is.`
          : `Journal ${id}: the ${step} is ${outcome}.`,
    });
  }
  return rows.length;
}
