// `hedge acct log [ID]`: the audit trail of this environment's accounting records: who, when, what and why.
import { type CommandContext, type In } from '../command-input.js';
import { madeBy, readRecords, recordsElsewhere, type AcctRecord } from '../../../features/acct/acct-store.js';
import { approvals, booksSaid, subjectOf, type Approvals } from '../../../features/acct/acct-approval.js';
import { LOG_FIELDS } from '../../../features/acct/acct-view.js';

/** What this command uses of its context. */
export type Options = Pick<CommandContext, 'credentials' | 'env' | 'journal' | 'journalChoice' | 'output'>;

export async function run(ctx: Options, { args }: In<'ACCT_LOG'>) {
  const records = await readRecords(ctx, 'all');
  const state = approvals(records);
  const rows = records.flatMap((record) => {
    const entry = logEntry(record, records, state);
    return args.id === undefined || entry.subject === args.id ? [entry] : [];
  });
  await ctx.output.list(rows, LOG_FIELDS, {
    empty: `${args.id === undefined ? 'Nothing is recorded yet.' : `Nothing is recorded of ${args.id}.`}${records.length ? '' : await recordsElsewhere(ctx)}`,
  });
}

type Body = Record<string, never>;

/** Where a record stands under four eyes: pending, approved or rejected (by whom, in which record), or nothing. */
function standing(record: AcctRecord, state: Approvals) {
  if (state.pending.includes(record)) return 'pending approval';
  const decision = state.decisions.get(record.seq);
  if (!decision) return null;
  return `${decision.body.rejected === true ? 'rejected' : 'approved'} by ${madeBy(decision)} (record ${decision.seq})`;
}

/** A record as the trail says it: who made it (with the profile and the key's fingerprint), its relationship or
 * market, what it did and why, and where it stands under four eyes. */
function logEntry(record: AcctRecord, records: readonly AcctRecord[], state: Approvals) {
  const body = record.body as Body;
  const by = typeof record.by === 'object' ? record.by : undefined;
  const decided = record.kind === 'approval' ? records[Number(body.record) - 1] : undefined;
  const dates = (rows: Array<{ date: string }>) =>
    rows.length === 1 ? rows[0].date : `${rows.length} dates, ${rows[0]?.date} to ${rows.at(-1)?.date}`;
  const event = (each: Body) =>
    `${each.type} ${each.date}${each.ground ? ` (${each.ground})` : ''}${each.still_expected === false ? ' (not expected)' : ''}`;
  const said = (): [string, string | null] => {
    if (decided)
      return [
        `${body.rejected === true ? 'rejected' : 'approved'} record ${decided.seq} (${decided.kind}${booksSaid(decided)}, by ${madeBy(decided)})`,
        body.reason ?? null,
      ];
    switch (record.kind) {
      case 'policy':
        return [`four eyes ${body.four_eyes === true ? 'on' : 'off'}`, null];
      case 'designation':
        return [`designated as of ${body.relationship['designated_at']}`, body.recorded_late ?? null];
      case 'event':
        return [event(body), body.reason ?? null];
      case 'rates':
        return [`rates (${body.quote}): ${dates(body.rows)}`, null];
      case 'entity':
        return [
          `entity declared: ${body.name}, books in ${body.functional_currency}${body.default ? ', the default' : ''}`,
          null,
        ];
      case 'close':
        return [
          `closed ${body.entity === undefined ? '' : `${body.entity}'s `}${body.from} to ${body.to} (${(body.journal as unknown[]).length} entry lines)`,
          null,
        ];
      default:
        return body.of === 'rates'
          ? [`rates corrected: ${dates(body.rows)}`, body.reason]
          : [`event (record ${body.record}) corrected to ${event(body.event)}`, body.reason];
    }
  };
  const subject = subjectOf(decided ?? record);
  const [what, why] = said();
  return {
    seq: record.seq,
    recorded_at: record.recorded_at,
    by: madeBy(record) ?? null,
    profile: by ? (by.profile ?? null) : (madeBy(record) ?? null),
    key: by?.key ?? null,
    kind: record.kind,
    subject,
    what,
    why,
    approval: standing(record, state),
    hash: record.hash,
  };
}
