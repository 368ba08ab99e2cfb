// How `hedge maturities` reads: a table with a line per UTC day on a terminal, the flat list in a
// pipe or under --json. Renders only.
import { groupByDay, type Maturity } from './maturities.js';
import { formatMoney, plural } from '../../core/number-format.js';
import type { Output } from '../../platform/terminal/output.js';
import { MATURITY_RESOURCE } from '../../platform/fields/resource-fields.js';

/** The settlements (soonest first) on stdout: grouped by UTC day on a terminal, the flat list otherwise. */
export async function renderMaturities(
  output: Output,
  maturities: Maturity[],
  empty: string,
  undated: number,
  nowMs: number,
) {
  // A day's line goes before its first settlement's row: "Mon 02 Mar 2026" (en-GB's date with its weekday, without
  // the comma after it), its count and notional.
  const sections = groupByDay(maturities).map((day) => {
    const date = new Date(`${day.day}T00:00:00Z`)
      .toLocaleDateString('en-GB', {
        weekday: 'short',
        day: '2-digit',
        month: 'short',
        year: 'numeric',
        timeZone: 'UTC',
      })
      .replace(',', '');
    return {
      before: maturities.indexOf(day.maturities[0]),
      line: output.chalk.bold(
        `${date} · ${plural(day.maturities.length, 'hedge')} · ${formatMoney(day.notional_usd)} USD`,
      ),
    };
  });
  const shared = maturities.some((item) => item.net_pnl_usd === null && item.hedge_id !== null);
  await output.list(maturities, MATURITY_RESOURCE, {
    empty,
    sections,
    nowMs,
    // Each part said only under a table that shows its column.
    columnNotes: [
      { text: 'Times in UTC.' },
      { columns: ['net_pnl_usd'], text: 'P&L: net (price and carry) at the mark, as `hedge positions` shows it.' },
      { columns: ['accrued_carry_usdc'], text: 'Carry: accrued to date, from your side (- you paid).' },
      ...(shared
        ? [
            {
              columns: ['net_pnl_usd', 'accrued_carry_usdc'],
              text: 'A side holding several hedges shows its P&L and carry once, in `hedge positions` (— here).',
            },
          ]
        : []),
    ],
  });
  if (undated > 0)
    output.warn(
      `${plural(undated, 'open position')} without a readable maturity (not listed); see \`hedge positions\`.`,
    );
}
