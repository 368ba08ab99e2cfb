// `hedge acct log [ID]`: the audit trail of this environment's accounting records: who, when, what and why.
import { type CommandContext, type In } from '../command-input.js';
import { readRecords, recordsElsewhere, type AcctRecord } from '../../../features/acct/acct-store.js';
import { LOG_FIELDS } from '../../../features/acct/acct-view.js';

/** What this command uses of its context. */
export type Options = Pick<CommandContext, 'credentials' | 'env' | 'journal' | 'journalChoice' | 'output'>;

export async function run(ctx: Options, { args }: In<'ACCT_LOG'>) {
  const records = await readRecords(ctx, 'all');
  const rows = records.flatMap((record) => {
    const entry = logEntry(record);
    return args.id === undefined || entry.subject === args.id ? [entry] : [];
  });
  await ctx.output.list(rows, LOG_FIELDS, {
    empty: `${args.id === undefined ? 'Nothing is recorded yet.' : `Nothing is recorded of ${args.id}.`}${records.length ? '' : await recordsElsewhere(ctx)}`,
  });
}

type Body = Record<string, never>;

/** A record as the trail says it: its relationship or market, what it did and why. */
function logEntry(record: AcctRecord) {
  const body = record.body as Body;
  const dates = (rows: Array<{ date: string }>) =>
    rows.length === 1 ? rows[0].date : `${rows.length} dates, ${rows[0]?.date} to ${rows.at(-1)?.date}`;
  const event = (each: Body) => `${each.type} ${each.date}${each.still_expected === false ? ' (not expected)' : ''}`;
  const [subject, what, why]: [string, string, string | null] =
    record.kind === 'designation'
      ? [body.relationship['id'], `designated as of ${body.relationship['designated_at']}`, body.recorded_late ?? null]
      : record.kind === 'event'
        ? [body.relationship_id, event(body), body.reason ?? null]
        : record.kind === 'rates'
          ? [body.market, `rates (${body.quote}): ${dates(body.rows)}`, null]
          : record.kind === 'entity'
            ? [
                body.code,
                `entity declared: ${body.name}, books in ${body.functional_currency}${body.default ? ', the default' : ''}`,
                null,
              ]
            : record.kind === 'close'
              ? [
                  body.period,
                  `closed ${body.entity === undefined ? '' : `${body.entity}'s `}${body.from} to ${body.to} (${(body.journal as unknown[]).length} entry lines)`,
                  null,
                ]
              : body.of === 'rates'
                ? [body.market, `rates corrected: ${dates(body.rows)}`, body.reason]
                : [
                    body.relationship_id,
                    `event (record ${body.record}) corrected to ${event(body.event)}`,
                    body.reason,
                  ];
  return {
    seq: record.seq,
    recorded_at: record.recorded_at,
    by: record.by ?? null,
    kind: record.kind,
    subject,
    what,
    why,
    hash: record.hash,
  };
}
