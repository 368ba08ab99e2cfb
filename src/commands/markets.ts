import type { CommandContext } from '../runtime/context.js';
import type { FieldSpec } from '../ui/fields.js';
import { formatPercent } from '../ui/format.js';

type PerSide = { buy: number; sell: number };

/** Positive carry: the account pays; negative: it earns. Said in words on the table. */
function carryText(rate: number): string {
  if (rate > 0) return `${formatPercent(rate)} pays`;
  if (rate < 0) return `${formatPercent(rate)} earns`;
  return formatPercent(rate);
}

export async function run(ctx: CommandContext): Promise<void> {
  const client = await ctx.client();
  const { markets } = await client.listMarkets();
  const human = ctx.output.isHuman;
  const capacity = (side: keyof PerSide): FieldSpec => ({
    key: `capacity_${side}_usd`,
    label: `Capacity ${side} (USD)`,
    kind: 'money',
    covers: ['available_capacity_usd'],
    get: (m) => (m.available_capacity_usd as PerSide)[side],
  });
  const carry = (side: keyof PerSide): FieldSpec => ({
    key: `carry_${side}_daily_pct`,
    label: `Carry/day ${side}`,
    kind: human ? 'text' : 'percent',
    covers: ['net_rate_daily_pct'],
    get: (m) => {
      const rate = (m.net_rate_daily_pct as PerSide)[side];
      return human ? carryText(rate) : rate;
    },
  });
  const fields: FieldSpec[] = [
    { key: 'market', label: 'Market' },
    { key: 'status', label: 'Status', kind: 'status' },
    { key: 'price', label: 'Price', kind: 'rate' },
    capacity('buy'),
    capacity('sell'),
    carry('buy'),
    carry('sell'),
  ];
  ctx.output.list(markets, fields, { empty: 'No markets are available to this account.' });
  if (human && markets.length > 0) ctx.output.note(ctx.output.chalk.dim('Carry: positive = the account pays, negative = it earns.'));
}
