// `hedge positions`: one line per open market and side. The spec names only `net_margin_usd`
// (what closing now would return); the other names follow the wire contract, and any other field
// the server sends is shown after them.
import type { CommandContext } from '../context.js';
import type { FieldSpec } from '../ui/fields.js';

const POSITION_FIELDS: FieldSpec[] = [
  { key: 'market', label: 'Market' },
  { key: 'side', label: 'Side', kind: 'side' },
  { key: 'notional_usd', label: 'Notional (USD)', kind: 'money' },
  { key: 'entry_price', label: 'Entry', kind: 'rate' },
  { key: 'mark_price', label: 'Mark', kind: 'rate' },
  { key: 'gross_pnl_usd', label: 'Gross P&L (USD)', kind: 'pnl' },
  { key: 'accrued_carry_usdc', label: 'Carry accrued (USDC)', kind: 'money' },
  { key: 'net_pnl_usd', label: 'Net P&L (USD)', kind: 'pnl' },
  { key: 'close_fee_usdc', label: 'Fee to close (USDC)', kind: 'money' },
  { key: 'margin_usdc', label: 'Margin (USDC)', kind: 'money' },
  { key: 'net_margin_usd', label: 'Net margin (USD)', kind: 'money' },
  { key: 'maturity_at', label: 'Maturity', kind: 'time' },
  { key: 'hedge_id', label: 'Hedge ID' },
  { key: 'units', label: 'Units', kind: 'count' },
  { key: 'opened_at', label: 'Opened', kind: 'utc' },
];

export async function run(ctx: CommandContext): Promise<void> {
  const client = await ctx.client();
  const positions = await client.listPositions();
  ctx.output.list(positions, POSITION_FIELDS, { empty: 'No open positions.' });
  if (ctx.output.isHuman && positions.length > 0) {
    ctx.output.note(ctx.output.chalk.dim('Net margin: what closing now would return to the balance (margin + net P&L - fee to close).'));
  }
}
