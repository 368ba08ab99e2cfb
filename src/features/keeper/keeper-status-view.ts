// `hedge keep status` on a screen: a card of the keeper (state, pid, host, since, last cycle,
// errors, rolls) and one line per target row (book against target, next action and when). Every
// value that came from a file or a server passes the sanitiser.
import type { ChalkInstance } from 'chalk';
import { safeText } from '../../core/security/safe-text.js';
import { drawCard } from '../../platform/terminal/table.js';
import { utcSecond } from '../../core/utc-text.js';
import { payOrEarn } from '../../core/money.js';
import { formatUpTo, plural } from '../../core/number-format.js';
import { isKeeperUp, type KeeperStatus } from './keeper-heartbeat.js';

const STATE_WORDS = {
  running: 'running',
  elsewhere: 'running on another machine',
  hung: 'HUNG: alive, but no heartbeat for a while',
  dead: 'DEAD: its process is gone without stopping',
  stopped: 'stopped',
  none: 'no keeper has run for this account here',
};

export function renderKeeperStatus(status: KeeperStatus, options: { columns: number; chalk: ChalkInstance }) {
  const c = options.chalk;
  const up = isKeeperUp(status.state);
  const word = STATE_WORDS[status.state];
  const rows: Array<[string, string]> = [['State', up ? c.green(word) : c.red(word)]];
  const beat = status.heartbeat;
  if (status.store_holder)
    rows.push([
      'Lock (team store)',
      `pid ${status.store_holder.pid} on ${safeText(status.store_holder.host)} since ${utc(status.store_holder.since)}`,
    ]);
  if (beat) {
    rows.push(
      ['Keeper', `pid ${beat.pid} on ${safeText(beat.host)}, since ${utc(beat.since)}`],
      ['Config folder', safeText(beat.config_dir)],
      ['Target file', safeText(beat.file)],
      [
        'Last cycle',
        beat.last_cycle_at ? `${utc(beat.last_cycle_at)} (${plural(beat.cycles, 'cycle')})` : '— (none yet)',
      ],
    );
    if (beat.last_good_cycle_at !== beat.last_cycle_at)
      rows.push(['Last good cycle', beat.last_good_cycle_at ? utc(beat.last_good_cycle_at) : '— (none)']);
    if (beat.next_cycle_at && up) rows.push(['Next cycle', utc(beat.next_cycle_at)]);
    if (beat.stopped_at) rows.push(['Stopped', utc(beat.stopped_at)]);
    const money = (value: number | null) => (value === null ? 'not known yet' : payOrEarn(value, { realized: true }));
    rows.push(
      [
        'Heartbeat',
        `${status.heartbeat_age_s ?? '?'} s ago${status.heartbeat_source === 'store' ? ' (team store)' : ''}`,
      ],
      [
        'Errors',
        beat.errors === 0
          ? '0'
          : `${beat.errors}; last ${utc(beat.last_error!.at)} ${safeText(beat.last_error!.code)}: ${safeText(beat.last_error!.message)}`,
      ],
      [
        'Rolls',
        beat.rolls.count === 0
          ? '0'
          : `${beat.rolls.count}; carry ${money(beat.rolls.carry_usd)}, fees ${money(beat.rolls.fees_usd)} (of the hedges rolled out)`,
      ],
    );
    for (const row of beat.rows) {
      const next = row.next_action
        ? `; ${safeText(row.next_action)}${row.next_action_at ? ` at ${utc(row.next_action_at)}` : ''}`
        : '';
      rows.push([
        `${safeText(row.market)} ${safeText(row.side)}`,
        // As the keeper's own screen shows a row (ui/keep-view.ts).
        `${row.current_unknown ? '?' : formatUpTo(row.current_usd ?? 0, 2)} of ${formatUpTo(row.target_usd, 2)} USD: ${safeText(row.state)}${next}`,
      ]);
    }
  }
  return drawCard(rows, { columns: options.columns, chalk: c, title: 'hedge keep status' });
}

function utc(iso: string) {
  const text = safeText(String(iso));
  return text.length >= 19 ? `${utcSecond(text)} UTC` : text;
}
