// The quote as a desk reads it before deciding; shared by `hedge quote` and `hedge open`'s confirmation.
import type { Quote } from '../api/schemas.js';
import { kindFromName, labelFromName } from '../fields/fields.js';
import { pairOf, quoteCurrencyOf, sideCovers, sideGains } from '../../core/markets.js';
import { betterOrWorse, payOrEarn, payWords, priceFavourBps, toAccountSide } from '../../core/money.js';
import { formatMoney, formatRate, formatSignedMoney } from '../../core/number-format.js';
import {
  formatBps,
  formatDays,
  formatPercent,
  formatRelative,
  formatUtc,
  localTimeBeside,
  toned,
} from '../terminal/format.js';
import type { Output } from '../terminal/output.js';
import type { JsonObject } from '../../core/objects.js';

export const QUOTE_INDICATIVE_NOTE =
  'Indicative only: a quote reserves nothing and opens nothing; the execution price and carry can differ when you open.';

const KNOWN_TOP = 'market side notional_usd tenor_days pricing carry upfront maturity'.split(' ');
const KNOWN_GROUPS: Record<string, string[]> = {
  pricing: 'market_price execution_price price_impact_usd'.split(' '),
  carry: 'daily_usdc daily_rate_pct total_usdc total_rate_pct'.split(' '),
  upfront: 'required_margin_usdc platform_fee_usdc total_upfront_usdc'.split(' '),
};

/** Signed price impact in basis points of the notional (same sign as `price_impact_usd`). */
function impactBps(quote: Quote) {
  if (!(quote.notional_usd > 0)) return;
  return (quote.pricing.price_impact_usd / quote.notional_usd) * 10_000;
}

/** `USDTNGN` quotes naira per USDT; other shapes get no unit rather than a wrong one. */
export function priceUnit(market: string) {
  const currency = quoteCurrencyOf(market);
  return currency === undefined ? '' : ` ${currency} per USDT`;
}

function extraLeaves(quote: Quote) {
  return [
    ...Object.entries(quote).filter(([key]) => !KNOWN_TOP.includes(key)),
    // The groups are objects the quote's schema requires.
    ...Object.entries(KNOWN_GROUPS).flatMap(([group, known]) =>
      Object.entries(quote[group] as JsonObject)
        .filter(([key]) => !known.includes(key))
        .map(([key, value]): [string, unknown] => [`${group}.${key}`, value]),
    ),
  ];
}

/** Carry on the account's side (docs/output.md "Sign convention"): "-4.19 USDC/day (-0.0419%), you pay". */
function carryText(output: Output, usdc: number, pct: number, per: string) {
  const forAccount = toAccountSide(usdc);
  return toned(
    output.chalk,
    forAccount,
    `${formatSignedMoney(forAccount)} USDC${per} (${formatPercent(toAccountSide(pct))}), ${payWords(forAccount)}`,
  );
}

/** On the account's side, from the two prices; the server's sign decides only when they agree to a tenth of a bp. */
export function impactForAccount(quote: Quote) {
  const { execution_price: execution, market_price: market, price_impact_usd: impact } = quote.pricing;
  const favour = priceFavourBps(quote.side, execution, market);
  const sign = Math.round(favour * 10) !== 0 ? Math.sign(favour) : Math.sign(impact);
  const bps = impactBps(quote);
  return { usd: sign * Math.abs(impact), bps: bps === undefined ? undefined : sign * Math.abs(bps) };
}

/** The rows both quote cards (`hedge quote`, an addition's) begin with: the prices and the impact. */
export function priceRows(output: Output, quote: Quote, executionNote = ''): Array<[string, string]> {
  const unit = priceUnit(quote.market);
  const { usd: impact, bps } = impactForAccount(quote);
  return [
    ['Market price', `${formatRate(quote.pricing.market_price)}${unit}`],
    ['Execution price', `${formatRate(quote.pricing.execution_price)}${unit}${executionNote}`],
    [
      'Price impact',
      toned(
        output.chalk,
        impact,
        `${formatSignedMoney(impact)} USD${bps === undefined ? '' : ` (${formatBps(bps)})`}, ${betterOrWorse(impact, 'the market price', 'none')}`,
      ),
    ],
  ];
}

/** What a quote asks up front, the fee (on the account's side) in words. */
export function upfrontRows(output: Output, quote: Quote, fee: number): Array<[string, string]> {
  return [
    ['Required margin', `${formatMoney(quote.upfront.required_margin_usdc)} USDC`],
    ['Platform fee', payOrEarn(fee)],
    ['Total upfront', output.chalk.bold(`${formatMoney(quote.upfront.total_upfront_usdc)} USDC`)],
  ];
}

/** The quote as text for the output's mode (JSON prints the quote itself); `nowMs` is when "time from now" is measured from. */
export function renderQuoteCard(output: Output, quote: Quote, nowMs: number) {
  if (output.mode === 'plain') {
    const bps = impactBps(quote);
    // Every known leaf in its order, the impact in basis points after the pricing, then what else the server sent.
    const rows = [
      ...KNOWN_TOP.flatMap((key): Array<[string, unknown]> => {
        const group = quote[key] as JsonObject;
        if (!KNOWN_GROUPS[key]) return [[key, group]];
        const leaves = KNOWN_GROUPS[key].map((leaf): [string, unknown] => [`${key}.${leaf}`, group[leaf]]);
        return key === 'pricing' ? [...leaves, ['price_impact_bps', bps && Math.round(bps * 100) / 100]] : leaves;
      }),
      ...extraLeaves(quote),
    ];
    return output.recordText(
      Object.fromEntries(rows),
      rows.map(([key]) => ({ key, label: key })),
    );
  }
  const c = output.chalk;
  const days = formatDays(quote.tenor_days);
  // The maturity in UTC, the local time beside it where that reads another clock, and how far off it is.
  const { maturity } = quote;
  const [local, relative, utc] = [localTimeBeside(maturity), formatRelative(maturity, nowMs), formatUtc(maturity)];
  const rows = [
    ...priceRows(output, quote),
    ['Carry per day', carryText(output, quote.carry.daily_usdc, quote.carry.daily_rate_pct, '/day')],
    [`Carry over ${days}`, carryText(output, quote.carry.total_usdc, quote.carry.total_rate_pct, '')],
    // One sign convention for money you pay, as every card shows a fee (docs/output.md).
    ...upfrontRows(output, quote, -Math.abs(quote.upfront.platform_fee_usdc)),
    ['Maturity', relative === '' ? utc : local === '' ? `${utc}, ${relative}` : `${utc}\n${local} local, ${relative}`],
  ] satisfies Array<[string, string]>;
  for (const [path, value] of extraLeaves(quote)) {
    const leaf = path.slice(path.lastIndexOf('.') + 1);
    const label = path.includes('.')
      ? `${labelFromName(path.slice(0, path.indexOf('.')))}: ${labelFromName(leaf)}`
      : labelFromName(leaf);
    rows.push([label, output.humanValue({ key: leaf, kind: kindFromName(leaf, value) }, value)]);
  }
  const side = quote.side === 'buy' ? c.green('buy') : c.magenta('sell');
  const title = `Quote ${quote.market} ${side} ${formatMoney(quote.notional_usd)} USD, ${days}`;
  // What the side protects against, from the market's own pair (none when its id names no pair).
  const pair = pairOf(quote.market);
  const gains =
    pair && (quote.side === 'buy' || quote.side === 'sell')
      ? [`${sideGains(quote.side, pair)}.`, `${capitalised(sideCovers(quote.side, pair))}.`]
      : [];
  return output.card(rows, title, [...gains, c.dim(QUOTE_INDICATIVE_NOTE)]);
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
