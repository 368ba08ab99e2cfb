// `hedge history`: closed hedges with what they realized, newest first, and their totals.
// The spec names only `net_pnl_usd`; the rest follows the wire contract and any other field the
// server sends is shown after these.
import type { HistoryRecord } from '../../../platform/api/schemas.js';
import {
  type CommandContext,
  type In,
  parseClientReference,
  parseListLength,
  plural,
  readNumber,
  sameReference,
  UsageError,
} from '../command-input.js';
import { HISTORY_RESOURCE, JOINED_REFERENCE } from '../../../platform/fields/resource-fields.js';
import { parseReportDate, reportPeriodProblem } from '../../../features/report/report-rules.js';
import { inPeriod, walkHistory } from '../../../features/report/report.js';
import { historyRecordForPeople, historyTotals, readHistoryRecord } from '../../../platform/api/wire/fields.js';
import { moreNote } from '../../../platform/fields/list-notes.js';
import { readDeal, type DealHedges } from '../../../features/book/deal.js';
import { dealStillHeld } from '../../../features/book/deal-view.js';
import { shellWord } from '../../../core/program.js';
import { stringOf } from '../../../core/objects.js';
import { markResized, readResizedHedges, resizedNote } from '../../../features/report/history-view.js';

/** What this command uses of its context. */
export type Options = Pick<CommandContext, 'client' | 'clock' | 'hedgeCommand' | 'journal' | 'log' | 'output'>;

/** What a --until condition may read: the fields of a closed hedge as --json prints them. */
export const CONDITION_FIELDS = HISTORY_RESOURCE.fields.filter((field) => !field.screenOnly).map((field) => field.key);

/** --since and --until as close times: since inclusive, until exclusive. A time ago (7d, 2w, 1mo) counts back from
 * now as it is when the period is first read: this machine's clock until `client()` has opened the client, then the
 * server's, as the close times compared with it are the server's. Both are checked at once (on this machine's
 * clock), before anything is sent. */
export function closePeriod(ctx: Options, options: { since?: string; until?: string }) {
  let now = () => ctx.clock.now();
  const at = (ms: number) => {
    const [since, until] = (['since', 'until'] as const).map((name) => {
      const raw = options[name];
      if (raw === undefined) return;
      const parsed = parseReportDate(raw, new Date(ms));
      if (typeof parsed === 'string') throw new UsageError(`--${name}: ${parsed}`);
      return parsed;
    });
    const problem = reportPeriodProblem(since, until);
    if (problem) throw new UsageError(problem);
    return { since, until };
  };
  at(now());
  let period: ReturnType<typeof at> | undefined;
  return {
    get since() {
      return (period ??= at(now())).since;
    },
    get until() {
      return (period ??= at(now())).until;
    },
    async client() {
      const client = await ctx.client();
      now = () => client.transport.serverNow().bestMs;
      return client;
    },
  };
}

/** What a deal still holds after its last roll, said beside what it closed (in every format); `ended`: the hedges the
 * history read lists closed. */
export function noteStillHeld(ctx: Options, deal: DealHedges | undefined, ended?: ReadonlySet<string>) {
  const held = deal && dealStillHeld(deal, ctx.hedgeCommand('hedges', '--ref', shellWord(deal.reference)), ended);
  if (held !== undefined) ctx.output.note(held);
}

/** Hedge records deal references are joined from, read short of what the server may hold: said, with what it means. */
export function noteShortRecords(ctx: Options, read: DealHedges['read']) {
  const short = read && moreNote(read, read.limit, 'hedge records', '');
  if (short)
    ctx.output.warn(
      `${short} A closed hedge past them whose history record carries no reference is not joined to its deal.`,
    );
}

export async function run(ctx: Options, input: In<'HISTORY'>) {
  const { output } = ctx;
  const { limit, defaulted: defaultLength } = parseListLength(input.options.limit, input.options.all);
  const period = closePeriod(ctx, input.options);
  const reference = parseClientReference(input.options.ref);
  const filtering = input.options.since !== undefined || input.options.until !== undefined || reference !== undefined;
  const client = await period.client();
  // Following one deal: its hedges from their records, so that a closed hedge whose
  // history record carries no reference is the deal's by its hedge id, and the deal's hedge still
  // held after its rolls can be named.
  const deal = reference === undefined ? undefined : await readDeal(client, reference);
  if (deal?.problem !== undefined)
    output.warn(
      `The deal's hedge records were not read: ${deal.problem}; closed hedges are matched on their own reference alone.`,
    );
  noteShortRecords(ctx, deal?.read);
  let original: HistoryRecord[] = [];
  // The deal's hedges the history read lists closed: not still held, whatever their records say.
  const ended = new Set<string>();
  if (!filtering) {
    const list = await client.readHistory({ limit, checkCut: !defaultLength, lookAhead: defaultLength });
    original = list.items;
    // Never fewer rows without a word: said on stderr in every format.
    const short = moreNote(list, limit, 'closed hedges', ctx.hedgeCommand('history', '--all'), defaultLength);
    if (short) output.warn(short);
  } else {
    // The closed hedges of a period (or a deal): every page is read (newest first) and filtered as it
    // comes, up to --limit kept. JSON goes out as it is kept, so a long history is never held whole;
    // the other formats get what was kept.
    const streamed = output.jsonListWriter(HISTORY_RESOURCE.fields);
    // A period (or a reference) lists every closed hedge in it unless --limit says fewer: it was
    // never one server page, so it keeps no default length.
    const keptAtMost = defaultLength ? Number.POSITIVE_INFINITY : limit;
    let unreadable = 0;
    let count = 0;
    const walk = await walkHistory(client, period, (raw) => {
      const { clientReference, hedgeId } = idsOf(raw);
      const dealOf = hedgeId === undefined ? undefined : deal?.referenceOf(hedgeId);
      if (dealOf !== undefined) ended.add(hedgeId!);
      const verdict = inPeriod(raw, period);
      if (verdict === 'unreadable') unreadable += 1;
      if (verdict !== 'in') return true;
      if (reference !== undefined && !sameReference(clientReference ?? dealOf, reference)) return true;
      if (streamed) streamed.add(output.named(raw, historyRecordForPeople));
      else original.push(raw);
      return ++count < keptAtMost;
    });
    if (walk.warning) output.warn(walk.warning);
    if (unreadable > 0)
      output.warn(`${plural(unreadable, 'closed hedge')} left out: no readable close time to filter on.`);
    if (streamed) {
      streamed.end();
      return noteStillHeld(ctx, deal, ended);
    }
  }
  const count = original.length;
  const records = output.named(original, (sent) => sent.map(historyRecordForPeople) as HistoryRecord[]);
  // The reference joined from the records is shown (table, TSV, CSV, --fields), never added to the JSON the server sent.
  if (deal !== undefined)
    records.forEach((record, index) => {
      if (idsOf(original[index]).clientReference === undefined)
        (record as Record<PropertyKey, unknown>)[JOINED_REFERENCE] = deal.reference;
    });
  const totals = historyTotals(records);
  const options = {
    empty:
      reference !== undefined
        ? `No closed hedge carries the reference ${reference}.`
        : filtering
          ? 'No closed hedges in this period.'
          : 'No closed hedges yet.',
    totals: {
      label: `Total (${plural(count, 'hedge')})`,
      shortLabel: `Total (${count})`,
      row: totals,
    },
    columnNotes: [
      // The signs of the parts net P&L is made of: said only where one of them is shown.
      {
        columns: ['gross_pnl_usd', 'carry_usdc', 'fees_usdc'],
        text: 'Net P&L = gross P&L + carry + fees, each from your side: - you paid, + you earned.',
      },
    ],
  };
  await output.list(records, HISTORY_RESOURCE, {
    ...options,
    // A person's table marks the hedges this journal resized, and says what they held: a record's
    // P&L is its hedge's whole life (TSV, CSV and JSON: as sent).
    people: async (shown) => {
      const ids = original.map((record) => idsOf(record).hedgeId);
      const sizes = await readResizedHedges(ctx, new Set(ids.filter((id) => id !== undefined)));
      const found = ids.map((id) => (id === undefined ? undefined : sizes.get(id)));
      markResized(records, found.map(Boolean), totals);
      const resized = resizedNote(
        found.flatMap((held, index) => {
          if (held === undefined) return [];
          const record = records[index] as Record<PropertyKey, unknown>;
          const ref = record[JOINED_REFERENCE] ?? record.client_reference;
          return [
            {
              hedgeId: ids[index]!,
              reference: stringOf(ref),
              shownUsd: readNumber(record.notional_usd),
              sizes: held,
            },
          ];
        }),
      );
      const notes =
        resized === undefined ? [] : [{ columns: ['notional_usd', 'net_pnl_usd'], text: resized, alone: true }];
      await shown.list(records, HISTORY_RESOURCE, { ...options, columnNotes: [...options.columnNotes, ...notes] });
    },
  });
  noteStillHeld(ctx, deal, ended);
}

/**
 * The hedge a record closed and its deal reference, read under any of their known names
 * (api/wire/fields.ts). A record without a net P&L still lists (history shows what the server
 * sends): its fields are then read alone, so one odd record never breaks the list.
 */
function idsOf(record: HistoryRecord) {
  try {
    return readHistoryRecord(record);
  } catch {
    return { hedgeId: stringOf(record.hedge_id), clientReference: stringOf(record.client_reference) };
  }
}
