import type { CommandContext } from '../runtime/context.js';
import { toAccountSide } from '../domain/money.js';
import type { FieldSpec } from '../ui/fields.js';
import { formatPercent } from '../ui/format.js';

type PerSide = { buy: number; sell: number };

/**
 * Carry on the account's side (docs/output-reference.md "Sign convention"): the server's positive rate is paid by
 * the account, so it reads "-0.0405% pay"; a rate the account earns reads "+0.0279% earn".
 */
function carryText(rate: number): string {
  const forAccount = toAccountSide(rate);
  if (forAccount < 0) return `${formatPercent(forAccount)} pay`;
  if (forAccount > 0) return `${formatPercent(forAccount)} earn`;
  return formatPercent(0);
}

export async function run(ctx: CommandContext): Promise<void> {
  const client = await ctx.client();
  const { markets } = await client.listMarkets();
  const human = ctx.output.isHuman;
  const capacity = (side: keyof PerSide): FieldSpec => ({
    key: `capacity_${side}_usd`,
    label: `Capacity ${side}`,
    unit: 'USD',
    kind: 'money',
    decimals: 0,
    priority: 3,
    covers: ['available_capacity_usd'],
    get: (m) => (m.available_capacity_usd as PerSide | undefined)?.[side],
  });
  const carry = (side: keyof PerSide): FieldSpec => ({
    key: `carry_${side}_daily_pct`,
    label: `Carry/day ${side}`,
    kind: human ? 'text' : 'percent',
    priority: 1,
    covers: ['net_rate_daily_pct'],
    get: (m) => {
      const rate = (m.net_rate_daily_pct as PerSide | undefined)?.[side];
      return human && typeof rate === 'number' ? carryText(rate) : rate;
    },
  });
  const fields: FieldSpec[] = [
    { key: 'market', label: 'Market', priority: 0 },
    { key: 'status', label: 'Status', kind: 'status', priority: 2 },
    { key: 'price', label: 'Price', unit: 'rate', kind: 'rate', priority: 0 },
    capacity('buy'),
    capacity('sell'),
    carry('buy'),
    carry('sell'),
  ];
  ctx.output.list(markets, fields, { empty: 'No markets are available to this account.' });
  if (human && markets.length > 0) ctx.output.note(ctx.output.chalk.dim('Carry per day of the notional, on the account\'s side: - you pay, + you earn.'));
}
