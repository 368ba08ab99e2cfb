// Four eyes (maker–checker), a policy a team sets in its records: while it is on, a designation, a correction, a
// de-designation, a close and turning the policy off are recorded pending and count only once another person approves
// them, by an approval record of its own in the same hash chain. Pure over the records, but for the two flows that
// append (approve or reject, and set the policy).
import { UsageError } from '../../core/errors.js';
import { appendRecords, madeBy, type AcctRecord } from './acct-store.js';

type Body = Record<string, never>;

/** Whether a record made while four eyes is on waits for another person: what changes the books' standing. */
function awaits({ kind, body }: AcctRecord, fourEyes: boolean) {
  if (!fourEyes) return false;
  if (kind === 'event') return (body as Body).type === 'de-designated';
  if (kind === 'policy') return (body as Body).four_eyes === false;
  return kind === 'designation' || kind === 'correction' || kind === 'close' || kind === 'entity';
}

/** Which records count: those four eyes did not hold, and those held that another person approved (a rejected one
 * never counts); with the records still pending, each record's decision by its number, and the policy now. */
export function approvals(records: readonly AcctRecord[]) {
  const decisions = new Map<number, AcctRecord>();
  for (const record of records) if (record.kind === 'approval') decisions.set(Number(record.body.record), record);
  let fourEyes = false;
  const pending: AcctRecord[] = [];
  const counted = new Set<number>();
  for (const record of records) {
    if (record.kind === 'approval') continue;
    if (awaits(record, fourEyes)) {
      const decision = decisions.get(record.seq);
      if (!decision) pending.push(record);
      if (!decision || decision.body.rejected === true) continue;
    }
    counted.add(record.seq);
    if (record.kind === 'policy') fourEyes = record.body.four_eyes === true;
  }
  return { fourEyes, pending, decisions, counts: (record: AcctRecord) => counted.has(record.seq) };
}
export type Approvals = ReturnType<typeof approvals>;

/** What a record is of: its relationship, its market, its period (a close's, whatever its entity), an entity
 * declared, or the policy. */
export function subjectOf({ kind, body }: AcctRecord): string {
  const of = body as Body;
  if (kind === 'designation') return (of.relationship as Body).id;
  if (kind === 'close') return of.period;
  if (kind === 'entity') return of.code;
  if (kind === 'policy') return 'policy';
  if (kind === 'rates' || of.of === 'rates') return of.market;
  return of.relationship_id;
}

/** What a pending record of a relationship, a market, a period or an entity stops, said: another person approves it
 * first. */
export function pendingProblem(state: Approvals, subject: string, option: string) {
  const held = state.pending.find((record) => subjectOf(record) === subject);
  return held && awaitsSaid(held, option);
}

/** A record four eyes holds, said as what it stops. */
export function awaitsSaid(held: AcctRecord, option: string) {
  const [subject, books] = [subjectOf(held), booksSaid(held)];
  return `${option}: ${subject}'s ${held.kind}${books} (record ${held.seq}, by ${madeBy(held)}) awaits approval: it counts, and more is recorded of ${subject}${books}, once another person approves it (hedge acct approve ${held.seq}) or it is rejected (hedge acct approve ${held.seq} --reject --reason TEXT).`;
}

/** The entity whose books a close closes, as said beside its period (' in NG01's books'), or ''. */
export const booksSaid = ({ kind, body }: Pick<AcctRecord, 'kind' | 'body'>) =>
  kind === 'close' && typeof body.entity === 'string' ? ` in ${body.entity}'s books` : '';

type Ports = Parameters<typeof appendRecords>[0];

/** Approves a pending record (another person than its maker only), or rejects it (`reject`: why; the maker may withdraw
 * their own): an approval record naming it by number and hash, and a close's by the entity whose books it closes.
 * Returns the approval record and the record it decides. */
export async function decide(ctx: Ports, seq: number, reject: string | undefined, by: string | undefined) {
  let target: AcctRecord | undefined;
  const [added] = await appendRecords(
    ctx,
    'approval',
    // Every record: the one decided may be a market's rates corrected.
    'all',
    (records, author) => {
      target = records.find((record) => record.seq === seq);
      if (!target)
        throw new UsageError(`RECORD: no record ${seq} is recorded; expected a number hedge acct log gives.`);
      const state = approvals(records);
      const decision = state.decisions.get(seq);
      if (decision)
        throw new UsageError(
          `RECORD: record ${seq} was ${decision.body.rejected === true ? 'rejected' : 'approved'} already (record ${decision.seq}, by ${madeBy(decision)}).`,
        );
      if (!state.pending.includes(target))
        throw new UsageError(
          `RECORD: record ${seq} (${target.kind}) does not await approval: it counts already${state.fourEyes ? '' : ' (four eyes is off: hedge acct policy --four-eyes on)'}.`,
        );
      const maker = madeBy(target) ?? '';
      if (reject === undefined && maker.toLowerCase() === author.name.toLowerCase())
        throw new UsageError(
          `RECORD: record ${seq} was made by ${maker}, who cannot approve it: four eyes asks another person (they run hedge acct approve ${seq}).`,
        );
      const entity = target.kind === 'close' ? target.body.entity : undefined;
      return [
        {
          record: seq,
          hash: target.hash,
          ...(entity !== undefined && { entity }),
          ...(reject !== undefined && { rejected: true, reason: reject }),
        },
      ];
    },
    { by },
  );
  return { added, target: target! };
}

/** Turns four eyes on (at once) or off (pending, while it is on: another person approves that too). Returns the policy
 * record made (none when it was so already) and every record after it. */
export async function setPolicy(ctx: Ports, fourEyes: boolean, by?: string) {
  let before: readonly AcctRecord[] = [];
  const added = await appendRecords(
    ctx,
    'policy',
    // Every record: what four eyes holds includes corrected rates.
    'all',
    (records) => {
      const state = approvals((before = records));
      const problem = pendingProblem(state, 'policy', '--four-eyes');
      if (problem) throw new UsageError(problem);
      return state.fourEyes === fourEyes ? [] : [{ four_eyes: fourEyes }];
    },
    { by },
  );
  return { made: added.at(0), records: [...before, ...added] };
}

/** The numbers of the records among `added` (appended after `before`) that four eyes holds pending (a quarter's close
 * is a record a month, a declaration one an entity). */
export function heldOf(before: readonly AcctRecord[], added: readonly AcctRecord[]) {
  const { pending } = approvals([...before, ...added]);
  return added.filter((record) => pending.includes(record)).map((record) => record.seq);
}

/** What a person is told of the records four eyes holds ('' for none). */
export function heldNote(seqs: readonly number[]) {
  if (!seqs.length) return '';
  const [first] = seqs;
  return seqs.length === 1
    ? `Recorded pending approval as record ${first}: it counts once another person approves it (hedge acct approve ${first}).`
    : `Recorded pending approval as records ${seqs.join(', ')}: each counts once another person approves it (hedge acct approve ${first}, and each of the others).`;
}
