// The card of an action that ended hedges (a close, a reduce of the whole side, or their resume): the figures of the
// history records of the hedges it ended, summed, in the one sign convention (docs/output.md "Sign convention").
import { expect } from 'vitest';
import { payOrEarn, toAccountSide } from '../../src/core/money.js';
import { formatMoney, formatSignedMoney } from '../../src/core/number-format.js';
import type { Simulator } from '../support/simulator.js';

/** A figure the account paid (carry, fees) as a closed card words it, as regex text: "-1\.23 USDC, you paid". */
export const paidWords = (paid: number) => payOrEarn(toAccountSide(paid), { realized: true }).replace(/[+.]/g, '\\$&');

/** The server's history records of the hedges `ids`, one each: a figure of theirs summed. */
export function summed(simulator: Simulator, ids: string[]) {
  const records = Object.values(simulator.sandbox.engine.state.accounts)
    .flatMap((account) => account.history)
    .filter((record) => ids.includes(record.hedge_id));
  expect(records).toHaveLength(ids.length);
  return (key: 'notional_usd' | 'net_pnl_usd' | 'fees_usdc') =>
    records.reduce((total, record) => total + record[key], 0);
}

/** The card names each of `ids` on its Hedge ID row (in whatever order), and shows their notional, net P&L and fees summed. */
export function expectSummedCard(simulator: Simulator, stdout: string, ids: string[]) {
  const sum = summed(simulator, ids);
  expect(/Hedge ID\s+│ (.+?) +│/.exec(stdout)?.[1].split(', ').sort()).toEqual([...ids].sort());
  expect(stdout).toMatch(new RegExp(`Notional \\(USD\\)\\s+│ ${formatMoney(sum('notional_usd'))} `));
  // Signed as every P&L is: a gain "+0.15", a loss "-0.15".
  expect(stdout).toMatch(
    new RegExp(`Net P&L \\(USD\\)\\s+│ ${formatSignedMoney(sum('net_pnl_usd')).replace(/[+.]/g, '\\$&')} `),
  );
  expect(stdout).toMatch(new RegExp(`Fees\\s+│ ${paidWords(sum('fees_usdc'))}`));
}
