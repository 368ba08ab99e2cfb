// What `hedge keep` shows: on a terminal, one live status screen redrawn in place (the target
// rows, each row's state and next action, the last events); otherwise NDJSON, one event a line,
// for a supervisor's log, a pager hook or a script. Renders only: the flow hands it events.
import type { ChalkInstance } from 'chalk';
import { formatUpTo } from '../../core/number-format.js';
import { utcDayMinute, utcDaySecond } from '../../core/utc-text.js';
import type { KeepEvent, KeepReporter, KeepStatus } from '../../core/keep-rules.js';
import { safeJson, safeText } from '../../core/security/safe-text.js';
import { liveScreen } from '../../platform/terminal/live-screen.js';
import { wrapParts } from '../../platform/terminal/width.js';

/** NDJSON on a stream: every event, nothing else (the status is in the `cycle` events); control and bidi characters escaped. */
export function ndjsonReporter(stdout: NodeJS.WritableStream): KeepReporter {
  return {
    event: (event) => stdout.write(`${safeJson(event)}\n`),
    status: () => {},
    close: () => {},
  };
}

const EVENTS_SHOWN = 6;

/** The live status on a terminal, fitted to `columns` (and again on a resize). */
export async function liveReporter(
  stdout: NodeJS.WritableStream,
  columns: () => number,
  chalk: ChalkInstance,
): Promise<KeepReporter> {
  const recent: string[] = [];
  let last: KeepStatus | undefined;
  const screen = await liveScreen(stdout, columns, () => last && renderKeepStatus(last, recent, columns(), chalk), {
    showCursor: true,
  });
  return {
    event(event) {
      if (event.event === 'cycle') return;
      recent.push(describeEvent(event));
      if (recent.length > EVENTS_SHOWN) recent.shift();
      screen.render();
    },
    status(status) {
      last = status;
      screen.render();
    },
    close: screen.close,
  };
}

/** The screen: a title, each row, then the latest events; no line wider than `width`, none cut: a line wraps between its parts, and at its spaces. */
export function renderKeepStatus(status: KeepStatus, recent: readonly string[], width: number, chalk: ChalkInstance) {
  const wrapped = (parts: string[]) => wrapParts(parts, width, chalk.dim(' · '), 2);
  return [
    ...wrapped([
      ...(status.dry_run ? [chalk.bold('DRY RUN: nothing is sent')] : []),
      chalk.bold(`hedge keep ${safeText(status.file)}`),
      ...[
        status.last_cycle_at ? `last cycle ${clock(status.last_cycle_at)}` : 'first cycle running',
        ...(status.next_cycle_at ? [`next cycle ${clock(status.next_cycle_at)}`] : []),
        ...(status.stopping ? ['stopping'] : []),
      ].map((part) => chalk.dim(part)),
    ]),
    '',
    ...status.rows.flatMap((row) => {
      const current = row.current_unknown ? '?' : row.current_usd === null ? 'flat' : formatUpTo(row.current_usd, 2);
      const ref = row.client_reference ? ` ${safeText(row.client_reference)}` : '';
      return wrapped([
        `${safeText(row.market)} ${row.side.padEnd(4)}${ref} ${current} of ${formatUpTo(row.target_usd, 2)} USD`,
        safeText(row.state),
        ...(row.next_action
          ? [`${row.next_action}${row.next_action_at ? ` ${utcDayMinute(row.next_action_at)} UTC` : ''}`]
          : []),
      ]);
    }),
    ...(recent.length ? ['', ...recent.flatMap((line) => wrapped([chalk.dim(line)]))] : []),
  ].join('\n');
}

/** One event as a line for people: time, kind, what, ids. */
export function describeEvent(event: KeepEvent) {
  const where = event.market ? ` ${safeText(String(event.market))} ${safeText(String(event.side ?? ''))}` : '';
  const amount = typeof event.notional_usd === 'number' ? ` ${formatUpTo(event.notional_usd, 2)} USD` : '';
  const ids =
    Array.isArray(event.hedge_ids) && event.hedge_ids.length
      ? ` ${event.hedge_ids.map((id) => safeText(String(id))).join(' → ')}`
      : '';
  // An error event's own words beside the step's sentence, where they differ.
  const cause = (event.error as { message?: unknown } | undefined)?.message;
  const because = typeof cause === 'string' && cause !== event.message ? ` (${safeText(cause)})` : '';
  const message = typeof event.message === 'string' ? `: ${safeText(event.message)}${because}` : '';
  // A dry run did none of it: its actions read "would roll", "would reopen".
  const kind =
    event.dry_run === true && ['roll', 'reopen', 'converge'].includes(event.event)
      ? `would ${event.event}`
      : event.event;
  return `${clock(event.at)} ${kind}${where}${amount}${ids}${message}`;
}

const clock = (iso: string) => `${utcDaySecond(iso)} UTC`;
