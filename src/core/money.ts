// Amounts as a desk reads them in sentences and tables: separators and two decimals.

import { formatMoney, formatSignedMoney } from './number-format.js';

// One sign convention: every amount is from the account's side (+ is money to it or a price in its favour, - the
// opposite); where a person reads, words say which ("you pay", "better than quoted").

/** USD in whole cents, rounded half away from zero at the decimal the value was meant to have (1.005 → 101 cents,
 * -0.005 → -1): float error is cut at 15 significant digits before rounding. */
export function toCents(value: number) {
  const cents = Math.round(Number((Math.abs(value) * 100).toPrecision(15)));
  return value < 0 && cents !== 0 ? -cents : cents;
}

/** USD with cents (0, never -0): sums and differences kept from drifting by float error. */
export const cents = (value: number) => toCents(value) / 100;

/** A carry or fee as the server signs it (positive = the account pays) → the account's side (positive = it earns). */
export function toAccountSide(paidByAccount: number) {
  return paidByAccount === 0 ? 0 : -paidByAccount;
}

/** Who pays, for a figure on the account's side: "you pay", "you earn" ("you paid", "you earned" once realized). */
export function payWords(forAccount: number, realized = false) {
  if (forAccount === 0) return 'nothing to pay';
  if (forAccount < 0) return realized ? 'you paid' : 'you pay';
  return realized ? 'you earned' : 'you earn';
}

/** "-4.19 USDC/day, you pay", "+2.79 USDC, you earned": an amount in USDC on the account's side with the words that say who pays. */
export function payOrEarn(forAccount: number, options: { per?: string; realized?: boolean } = {}) {
  const signed = formatSignedMoney(forAccount);
  const shown = signed === formatMoney(0) ? 0 : forAccount;
  return `${signed} USDC${options.per ?? ''}, ${payWords(shown, options.realized)}`;
}

/** How much better (+) or worse (-) a price is for the account than a reference, in basis points of the reference: a buy is better when it pays fewer units of the quote currency, a sell when it gets more. */
export function priceFavourBps(side: 'buy' | 'sell', price: number, reference: number) {
  if (!(reference > 0)) return 0;
  const favour = side === 'buy' ? reference - price : price - reference;
  return (favour / reference) * 10_000;
}

/** "better than quoted", "worse than the market price", or `same` when it rounds to nothing. */
export function betterOrWorse(forAccount: number, than: string, same: string) {
  if (forAccount === 0) return same;
  return `${forAccount > 0 ? 'better' : 'worse'} than ${than}`;
}

/** The price an addition executed at, implied by the position's entry before and after: the entry of a side is its notional-weighted average price, so the added notional's share of the new weighted total is what it cost. */
export function impliedAdditionPrice(before: { notionalUsd: number; entryPrice: number }, after: typeof before) {
  const added = after.notionalUsd - before.notionalUsd;
  if (!(added > 0)) return;
  return (after.entryPrice * after.notionalUsd - before.entryPrice * before.notionalUsd) / added;
}
