import { Chalk } from 'chalk';
import { describeEvent, renderKeepStatus, renderKeeperStatus } from '../../src/features/keeper/keep-view.js';
import { displayWidth } from '../../src/platform/terminal/width.js';
import type { KeepRowStatus } from '../../src/core/keep-rules.js';

const chalk = new Chalk({ level: 0 });
const AT = '2026-03-02T09:00:00.000Z';
/** The line of a keeper event at AT on the USDTNGN sell side. */
const line = (event: string, more: Record<string, unknown> = {}) =>
  describeEvent({ event, at: AT, market: 'USDTNGN', side: 'sell', notional_usd: 2000, ...more } as never);
const rolled = () => line('roll', { hedge_ids: ['hdg_1', 'hdg_2'] });
const status = {
  file: '/etc/hedge/a-rather-long-target-file-name-for-the-treasury-book.csv',
  rows: [
    {
      market: 'USDTNGN',
      side: 'sell',
      client_reference: 'DEAL-7',
      target_usd: 2000,
      current_usd: 2000,
      state: 'covered',
      next_action: 'roll',
      next_action_at: '2026-03-03T08:00:00.000Z',
    },
    {
      market: 'USDTKES',
      side: 'buy',
      client_reference: 'X\u001b]52;c;bad\u0007',
      target_usd: 1_500_000,
      current_usd: null,
      state: 'the exposure ended (until 2026-03-01 00:00 UTC): the side is not re-opened',
      next_action: null,
      next_action_at: null,
    },
  ],
  last_cycle_at: '2026-03-02T09:00:00.000Z',
  next_cycle_at: '2026-03-02T09:01:00.000Z',
  stopping: false,
};

it.each([40, 80, 120])(
  'the keeper status screen: fits %i columns and shows no raw escape from the file or the server',
  (width) => {
    const screen = renderKeepStatus(status, [rolled()], width, chalk);
    for (const line of screen.split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(width);
    expect(screen).not.toContain('\u001b');
    expect(screen).toContain('USDTNGN sell DEAL-7 2,000 of 2,000 USD');
  },
);

it('the keeper status screen: an event line names the time, the kind, the side, the amount and the hedges old → new', () => {
  expect(rolled()).toBe('03-02 09:00:00 UTC roll USDTNGN sell 2,000 USD hdg_1 → hdg_2');
});

it('the keeper status screen: a dry run says so in the header, and its actions read "would"', () => {
  expect(renderKeepStatus({ ...status, dry_run: true }, [], 80, chalk).split('\n')[0]).toContain(
    'DRY RUN: nothing is sent',
  );
  expect(renderKeepStatus(status, [], 80, chalk)).not.toContain('DRY RUN');
  expect([
    line('reopen', { dry_run: true }),
    describeEvent({ event: 'error', at: AT, dry_run: true, message: 'refused' }),
  ]).toEqual(['03-02 09:00:00 UTC would reopen USDTNGN sell 2,000 USD', '03-02 09:00:00 UTC error: refused']);
});

it("the keeper status screen: an error event shows the step's sentence, then the error's own words where they differ", () => {
  const reload = 'the target file could not be re-read; the previous target stays';
  expect([
    describeEvent({ event: 'error', at: AT, message: reload, error: { code: 'usage', message: 'target.csv:2: side' } }),
    describeEvent({
      event: 'error',
      at: AT,
      message: 'refused',
      error: { code: 'exposure_exceeded', message: 'refused' },
    }),
  ]).toEqual([`03-02 09:00:00 UTC error: ${reload} (target.csv:2: side)`, '03-02 09:00:00 UTC error: refused']);
});

/** `hedge keep status` of a running keeper whose last cycle showed `rows`. */
function statusCard(rows: KeepRowStatus[]) {
  const account = { environment: 'test', host: 'api.example.com', key_id: 'k1' };
  return renderKeeperStatus(
    {
      state: 'running',
      heartbeat_file: '/home/ana/.local/state/hedge/keepers/a.json',
      heartbeat_source: 'file',
      heartbeat_revision: null,
      account,
      heartbeat_age_s: 3,
      heartbeat: {
        version: 1,
        account,
        interval_s: 60,
        updated_at: AT,
        actions: {},
        pid: 4242,
        host: 'desk-1',
        since: AT,
        config_dir: '/home/ana/.config/hedge',
        file: 'target.csv',
        journal: '/home/ana/.local/state/hedge',
        last_cycle_at: AT,
        last_good_cycle_at: AT,
        next_cycle_at: AT,
        cycles: 12,
        errors: 0,
        last_error: null,
        rolls: { count: 2, carry_usd: -1234.5, fees_usd: -12000 },
        rows,
      },
    },
    { columns: 120, chalk },
  );
}

it('hedge keep status: reads every amount as the keeper screen does: 20,000 of 20,000 USD, and carry and fees with separators', () => {
  const card = statusCard([
    {
      market: 'USDTNGN',
      side: 'buy',
      target_usd: 20000,
      current_usd: 20000,
      state: 'covered',
      next_action: 'roll',
      next_action_at: AT,
    },
  ]);
  expect(card).toContain('│ 20,000 of 20,000 USD: covered; roll at 2026-03-02 09:00:00 UTC');
  expect(card).toContain('2; carry -1,234.50 USDC, you paid, fees -12,000.00 USDC, you paid');
});

it('hedge keep status: a side the last cycle could not tell reads "?", on the card and on the keeper\'s screen, never as flat', () => {
  const unknown: KeepRowStatus = {
    market: 'USDTNGN',
    side: 'sell',
    target_usd: 2000,
    current_usd: null,
    current_unknown: true,
    state: 'unknown (the book could not be read)',
    next_action: null,
    next_action_at: null,
  };
  expect(statusCard([unknown])).toContain('│ ? of 2,000 USD: unknown (the book could not be read)');
  const screen = renderKeepStatus({ ...status, rows: [unknown] }, [], 120, chalk);
  expect(screen).toContain('USDTNGN sell ? of 2,000 USD');
  expect(screen).not.toContain('flat');
});
