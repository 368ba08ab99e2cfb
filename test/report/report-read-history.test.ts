import { historyRecordForPeople, readHistoryRecord, readTimestamp } from '../../src/platform/api/wire/fields.js';
import { InvalidResponseError } from '../../src/core/errors.js';

// One closed hedge, as our simulator writes it (src/platform/api/wire-contract.md) …
const SIMULATOR_STYLE = {
  hedge_id: 'hdg_7f3a',
  market: 'USDTNGN',
  side: 'sell',
  notional_usd: 25000,
  tenor_days: 7,
  client_reference: 'DEAL-42',
  opened_at: '2026-11-15T08:00:00.000Z',
  closed_at: '2026-11-22T08:00:00.000Z',
  close_reason: 'settled',
  entry_price: 1530.25,
  exit_price: 1522.1,
  gross_pnl_usd: 133.16,
  carry_usdc: -12.4,
  fees_usdc: 20,
  net_pnl_usd: 125.56,
};

// … as another service might (other names, numbers as strings, an epoch close time) …
const OTHER_NAMES = {
  hedge: { id: 'hdg_7f3a' },
  symbol: 'USDTNGN',
  direction: 'SHORT',
  size_usd: '25000.00',
  tenor: '7d',
  open_time: '2026-11-15 08:00:00',
  exit_time: 1795334400,
  client_ref: 'DEAL-42',
  entry_rate: '1530.25',
  close_price: '1522.10',
  realized_pnl_usd: '133.16',
  carry_paid_usdc: '-12.40',
  fee_usd: 20,
  net_pnl_usd: '125.56',
};

const FACTS = {
  hedgeId: 'hdg_7f3a',
  market: 'USDTNGN',
  side: 'sell',
  notionalUsd: 25000,
  tenorDays: 7,
  openedAt: '2026-11-15T08:00:00.000Z',
  closedAt: '2026-11-22T08:00:00.000Z',
  clientReference: 'DEAL-42',
  entryPrice: 1530.25,
  exitPrice: 1522.1,
  grossPnlUsd: 133.16,
  // From the account's side (− you pay): the record's carry of −12.4 was earned, its fee of 20 paid.
  carryUsd: 12.4,
  feesUsd: -20,
  netPnlUsd: 125.56,
};

// … and in camelCase (the facts' own names, but carry and fees as the server signs them).
const { carryUsd: _carry, feesUsd: _fees, ...SAME_NAMES } = FACTS;
const CAMEL_CASE = {
  ...SAME_NAMES,
  side: 'Sell',
  openedAt: '2026-11-15T09:00:00+01:00',
  closedAt: '2026-11-22T08:00:00Z',
  carryUsdc: -12.4,
  feesUsdc: 20,
};

describe('readHistoryRecord', () => {
  it('reads the same facts from three naming styles', () => {
    for (const record of [SIMULATOR_STYLE, OTHER_NAMES, CAMEL_CASE]) expect(readHistoryRecord(record)).toEqual(FACTS);
  });

  it("shows each fact under the simulator's own name", () => {
    expect(
      Object.keys(
        historyRecordForPeople({
          net_pnl: 1,
          carry_paid_usdc: 2,
          fees: 3,
          close_time: '2026-11-22T08:00:00Z',
          position_id: 'hdg_1',
        }),
      ).sort(),
    ).toEqual('carry_usdc closed_at fees_usdc hedge_id net_pnl_usd'.split(' '));
  });

  it('leaves out what it cannot read, and never guesses 0', () => {
    expect(
      readHistoryRecord({
        net_pnl_usd: -3.5,
        carry_usdc: 'n/a',
        fees_usdc: null,
        side: 'both',
        tenor_days: 2.5,
        closed_at: 'yesterday',
      }),
    ).toEqual({ netPnlUsd: -3.5 });
  });

  it('takes the first synonym with a usable value', () => {
    expect([
      readHistoryRecord({ net_pnl_usd: 1, closed_at: null, settled_at: '2026-11-22T08:00:00Z' }).closedAt,
      readHistoryRecord({ net_pnl_usd: 1, gross_pnl_usd: 2, realized_pnl_usd: 3 }).grossPnlUsd,
    ]).toEqual(['2026-11-22T08:00:00.000Z', 2]);
  });

  it('refuses a record without a net P&L, naming it', () => {
    expect(() => readHistoryRecord({ hedge_id: 'hdg_1', gross_pnl_usd: 3 })).toThrow(InvalidResponseError);
    expect(() => readHistoryRecord({ hedge_id: 'hdg_1', net_pnl_usd: 'lots' })).toThrow(
      'A closed-hedge record (hdg_1) has no net P&L (net_pnl_usd).',
    );
  });
});

describe('readTimestamp', () => {
  it('reads ISO 8601 (UTC when no zone is written) and epoch seconds or milliseconds', () => {
    expect(
      [
        '2026-11-22T08:00:00Z',
        '2026-11-22T08:00:00',
        '2026-11-22T09:00:00+0100',
        '2026-11-22',
        1795334400,
        1795334400000,
        '1795334400',
      ].map((value) => readTimestamp(value)),
    ).toEqual(
      '2026-11-22T08:00:00.000Z 2026-11-22T08:00:00.000Z 2026-11-22T08:00:00.000Z 2026-11-22T00:00:00.000Z 2026-11-22T08:00:00.000Z 2026-11-22T08:00:00.000Z 2026-11-22T08:00:00.000Z'.split(
        ' ',
      ),
    );
  });

  it('refuses what is not a time', () => {
    for (const value of ['Nov 22 2026', '2026-13-40T00:00:00Z', '', true, {}, Number.NaN])
      expect(readTimestamp(value), String(value)).toBeUndefined();
  });
});
