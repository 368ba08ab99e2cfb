// What `hedge keep` shows: on a terminal, one live status screen redrawn in place (the target
// rows, each row's state and next action, the last events); otherwise NDJSON, one event a line,
// for a supervisor's log, a pager hook or a script. And `hedge keep status` on a screen: a card of
// the keeper and one line per target row. Renders only; every value from a file or a server is sanitised.
import type { ChalkInstance } from 'chalk';
import { formatUpTo, plural } from '../../core/number-format.js';
import { utcDayMinute, utcDaySecond, utcSecond } from '../../core/utc-text.js';
import { drawCard } from '../../platform/terminal/table.js';
import { payOrEarn } from '../../core/money.js';
import { isKeeperUp, type KeeperStatus } from './keeper-service.js';
import type { KeepEvent, KeepReporter, KeepStatus } from '../../core/keep-rules.js';
import { safeDeep, safeJson, safeText } from '../../core/security/safe-text.js';
import { liveScreen } from '../../platform/terminal/live-screen.js';
import { wrapParts } from '../../platform/terminal/width.js';
import { formatSpan } from '../../core/duration.js';

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
export function renderKeepStatus(shown: KeepStatus, recent: readonly string[], width: number, chalk: ChalkInstance) {
  // Every string from the target file or the server made safe once.
  const status = safeDeep(shown);
  const wrapped = (parts: string[]) => wrapParts(parts, width, chalk.dim(' · '), 2);
  return [
    ...wrapped([
      ...(status.dry_run ? [chalk.bold('DRY RUN: nothing is sent')] : []),
      chalk.bold(`hedge keep ${status.file}`),
      ...[
        status.last_cycle_at ? `last cycle ${clock(status.last_cycle_at)}` : 'first cycle running',
        ...(status.next_cycle_at ? [`next cycle ${clock(status.next_cycle_at)}`] : []),
        ...(status.stopping ? ['stopping'] : []),
      ].map((part) => chalk.dim(part)),
    ]),
    '',
    ...status.rows.flatMap((row) => {
      const current = row.current_unknown ? '?' : row.current_usd === null ? 'flat' : formatUpTo(row.current_usd, 2);
      const ref = row.client_reference ? ` ${row.client_reference}` : '';
      return wrapped([
        `${row.market} ${row.side.padEnd(4)}${ref} ${current} of ${formatUpTo(row.target_usd, 2)} USD`,
        row.state,
        ...(row.next_action
          ? [`${row.next_action}${row.next_action_at ? ` ${utcDayMinute(row.next_action_at)} UTC` : ''}`]
          : []),
      ]);
    }),
    ...(recent.length ? ['', ...recent.flatMap((line) => wrapped([chalk.dim(line)]))] : []),
  ].join('\n');
}

/** One event as a line for people: time, kind, what, ids. */
export function describeEvent(said: KeepEvent) {
  const event = safeDeep(said);
  const where = event.market ? ` ${String(event.market)} ${String(event.side ?? '')}` : '';
  const amount = typeof event.notional_usd === 'number' ? ` ${formatUpTo(event.notional_usd, 2)} USD` : '';
  const ids =
    Array.isArray(event.hedge_ids) && event.hedge_ids.length ? ` ${event.hedge_ids.map(String).join(' → ')}` : '';
  // An error event's own words beside the step's sentence, where they differ.
  const cause = (event.error as { message?: unknown } | undefined)?.message;
  const because = typeof cause === 'string' && cause !== event.message ? ` (${cause})` : '';
  const message = typeof event.message === 'string' ? `: ${event.message}${because}` : '';
  // A dry run did none of it: its actions read "would roll", "would reopen".
  const kind =
    event.dry_run === true && ['roll', 'reopen', 'converge'].includes(event.event)
      ? `would ${event.event}`
      : event.event;
  return `${clock(event.at)} ${kind}${where}${amount}${ids}${message}`;
}

const clock = (iso: string) => `${utcDaySecond(iso)} UTC`;

// ---- hedge keep status

const STATE_WORDS = {
  running: 'running',
  elsewhere: 'running on another machine',
  hung: 'HUNG: alive, but no heartbeat for a while',
  dead: 'DEAD: its process is gone without stopping',
  stopped: 'stopped',
  none: 'no keeper has run for this account here',
};

export function renderKeeperStatus(
  status: KeeperStatus,
  { columns, chalk, card = true }: { columns: number; chalk: ChalkInstance; card?: boolean },
) {
  const up = isKeeperUp(status.state);
  const holder = status.store_holder;
  // Every string of the heartbeat (a file, the team store) made safe once.
  const beat = status.heartbeat && safeDeep(status.heartbeat);
  const money = (value: number | null) => (value === null ? 'not known yet' : payOrEarn(value, { realized: true }));
  const error = beat?.last_error;
  const rows = [
    ['State', chalk[up ? 'green' : 'red'](STATE_WORDS[status.state])],
    holder && ['Lock (team store)', `pid ${holder.pid} on ${safeText(holder.host)} since ${utc(holder.since)}`],
    ...(beat
      ? [
          ['Keeper', `pid ${beat.pid} on ${beat.host}, since ${utc(beat.since)}`],
          ['Config folder', beat.config_dir],
          ['Target file', beat.file],
          [
            'Last cycle',
            beat.last_cycle_at ? `${utc(beat.last_cycle_at)} (${plural(beat.cycles, 'cycle')})` : '— (none yet)',
          ],
          beat.last_good_cycle_at !== beat.last_cycle_at && [
            'Last good cycle',
            beat.last_good_cycle_at ? utc(beat.last_good_cycle_at) : '— (none)',
          ],
          beat.next_cycle_at && up && ['Next cycle', utc(beat.next_cycle_at)],
          beat.stopped_at && ['Stopped', utc(beat.stopped_at)],
          [
            'Heartbeat',
            `${status.heartbeat_age_s === null ? '?' : `${formatSpan(status.heartbeat_age_s * 1000)} ago`}${status.heartbeat_source === 'store' ? ' (team store)' : ''}`,
          ],
          [
            'Errors',
            beat.errors === 0 ? '0' : `${beat.errors}; last ${utc(error!.at)} ${error!.code}: ${error!.message}`,
          ],
          [
            'Rolls',
            beat.rolls.count === 0
              ? '0'
              : `${beat.rolls.count}; carry ${money(beat.rolls.carry_usd)}, fees ${money(beat.rolls.fees_usd)} (of the hedges rolled out)`,
          ],
          // As the keeper's own screen shows a row.
          ...beat.rows.map((row) => [
            `${row.market} ${row.side}`,
            `${row.current_unknown ? '?' : formatUpTo(row.current_usd ?? 0, 2)} of ${formatUpTo(row.target_usd, 2)} USD: ${row.state}${row.next_action ? `; ${row.next_action}${row.next_action_at ? ` at ${utc(row.next_action_at)}` : ''}` : ''}`,
          ]),
        ]
      : []),
  ].filter((row): row is [string, string] => Array.isArray(row));
  // In a pipe, a line per row (`State: running`), for grep and cut; a person's terminal, the card.
  if (!card) return rows.map(([label, value]) => `${label}: ${value}`).join('\n');
  return drawCard(rows, { columns, chalk, title: 'hedge keep status' });
}

function utc(iso: string) {
  const text = safeText(String(iso));
  return text.length >= 19 ? `${utcSecond(text)} UTC` : text;
}
