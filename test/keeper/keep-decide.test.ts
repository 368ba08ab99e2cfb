import { describe, expect, it } from 'vitest';
import { backoffMs, decideRow, DEFAULT_ROLL_BEFORE_MS, tenorFor, type KeepRow } from '../../src/core/keep-rules.js';
import { parseTargetFile } from '../../src/core/target-file.js';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-03-02T09:00:00Z');
const row: KeepRow = { market: 'USDTNGN', side: 'sell', notionalUsd: 2000, tenorDays: 1 };
const rules = { toleranceUsd: 0 };

describe('decideRow', () => {
  it('a side a colleague closed before its maturity is drift, not re-opened, until the target says so again', () => {
    const closed = { closedOutside: { hedgeId: 'hdg_9', closedAtLocalMs: NOW - HOUR } };
    expect(decideRow(row, closed, NOW, rules)).toEqual({
      kind: 'drift',
      currentUsd: 0,
      targetUsd: 2000,
      change: 'open',
      amountUsd: 2000,
      alsoRollDue: false,
      tenorDays: 1,
    });
    // The target file written before the close: still the colleague's call.
    expect(decideRow({ ...row, statedAtMs: NOW - 2 * HOUR }, closed, NOW, rules).kind).toBe('drift');
    // Written after it: the target says so again.
    expect(decideRow({ ...row, statedAtMs: NOW - HOUR / 2 }, closed, NOW, rules)).toEqual({
      kind: 'reopen',
      notionalUsd: 2000,
      tenorDays: 1,
    });
    // A target of 0 stays flat either way.
    expect(decideRow({ ...row, notionalUsd: 0 }, closed, NOW, rules).kind).toBe('hold');
  });

  it("near `until`, a re-open or roll gets the shortest tenor that still reaches it, never more than the row's", () => {
    const week = { ...row, tenorDays: 7 as const };
    expect(tenorFor({ ...week, untilMs: NOW + 20 * HOUR }, NOW)).toBe(1);
    expect(tenorFor({ ...week, untilMs: NOW + 50 * HOUR }, NOW)).toBe(3);
    expect(tenorFor({ ...week, untilMs: NOW + 100 * HOUR }, NOW)).toBe(7);
    expect(tenorFor({ ...week, untilMs: NOW + 30 * 24 * HOUR }, NOW)).toBe(7);
    expect(tenorFor({ ...row, tenorDays: 3, untilMs: NOW + 6 * 24 * HOUR }, NOW)).toBe(3);
    expect(decideRow({ ...week, untilMs: NOW + 50 * HOUR }, {}, NOW, rules)).toEqual({
      kind: 'reopen',
      notionalUsd: 2000,
      tenorDays: 3,
    });
  });

  it('holds a covered side until roll_before ahead of its maturity, and names when it will roll', () => {
    const decision = decideRow(
      row,
      { position: { notionalUsd: 2000, hedgeId: 'hdg_1', maturityAtMs: NOW + 5 * HOUR } },
      NOW,
      rules,
    );
    expect(decision).toEqual({
      kind: 'hold',
      reason: 'covered',
      nextAction: 'roll',
      nextActionAtMs: NOW + 5 * HOUR - DEFAULT_ROLL_BEFORE_MS,
    });
  });

  it('rolls the current notional once the maturity is within roll_before (the row may widen it)', () => {
    const view = { position: { notionalUsd: 2000, hedgeId: 'hdg_1', maturityAtMs: NOW + 2 * HOUR } };
    expect(decideRow(row, view, NOW, rules).kind).toBe('hold');
    expect(decideRow({ ...row, rollBeforeMs: 3 * HOUR }, view, NOW, rules)).toEqual({
      kind: 'roll',
      notionalUsd: 2000,
      hedgeId: 'hdg_1',
      maturityAtMs: NOW + 2 * HOUR,
      tenorDays: 1,
    });
    expect(decideRow(row, view, NOW + HOUR, rules).kind).toBe('roll');
  });

  it('re-opens a side that settled while nobody watched, with the target notional', () => {
    expect(decideRow(row, {}, NOW, rules)).toEqual({ kind: 'reopen', notionalUsd: 2000, tenorDays: 1 });
  });

  it('never opens a side whose hedge is still being opened, whatever its status is called', () => {
    for (const status of ['submitted', 'submitting', 'settling']) {
      expect(decideRow(row, { opening: { hedgeId: 'hdg_2', status } }, NOW, rules).kind).toBe('hold');
    }
  });

  it('leaves a row past `until` to mature: no roll when the exposure ends by the maturity, no re-open after it', () => {
    const view = { position: { notionalUsd: 2000, hedgeId: 'hdg_1', maturityAtMs: NOW + HOUR / 2 } };
    expect(decideRow({ ...row, untilMs: NOW + HOUR / 2 }, view, NOW, rules).kind).toBe('skip');
    expect(decideRow({ ...row, untilMs: NOW + 10 * HOUR }, view, NOW, rules).kind).toBe('roll');
    expect(decideRow({ ...row, untilMs: NOW - 1 }, {}, NOW, rules).kind).toBe('skip');
    expect(decideRow({ ...row, untilMs: NOW + 1 }, {}, NOW, rules).kind).toBe('reopen');
  });

  it('reports drift beyond the tolerance with the change that would bring it back', () => {
    const view = (notionalUsd: number) => ({
      position: { notionalUsd, hedgeId: 'hdg_1', maturityAtMs: NOW + 20 * HOUR },
    });
    expect(decideRow(row, view(2500), NOW, rules)).toMatchObject({
      kind: 'drift',
      change: 'reduce',
      amountUsd: 500,
      alsoRollDue: false,
    });
    expect(decideRow(row, view(1500), NOW, rules)).toMatchObject({ kind: 'drift', change: 'add', amountUsd: 500 });
    expect(decideRow(row, view(2000.4), NOW, { toleranceUsd: 0.5 }).kind).toBe('hold');
    expect(decideRow({ ...row, notionalUsd: 0 }, view(100), NOW, rules)).toMatchObject({
      kind: 'drift',
      change: 'close',
    });
  });

  it('a target of 0 is never rolled: a position left there is drift to close, even when it matures soon', () => {
    const view = { position: { notionalUsd: 1000, hedgeId: 'hdg_1', maturityAtMs: NOW + HOUR / 2 } };
    expect(decideRow({ ...row, notionalUsd: 0 }, view, NOW, rules)).toMatchObject({
      kind: 'drift',
      change: 'close',
      alsoRollDue: false,
    });
  });

  it('drift past `until` is reported, and the side is not rolled with it', () => {
    const view = { position: { notionalUsd: 1000, hedgeId: 'hdg_1', maturityAtMs: NOW + HOUR / 2 } };
    expect(decideRow({ ...row, untilMs: NOW + HOUR / 4 }, view, NOW, rules)).toMatchObject({
      kind: 'drift',
      alsoRollDue: false,
    });
    expect(decideRow(row, view, NOW, rules)).toMatchObject({ kind: 'drift', alsoRollDue: true });
  });

  it('a flat target with nothing open holds', () => {
    expect(decideRow({ ...row, notionalUsd: 0, tenorDays: undefined }, {}, NOW, rules).kind).toBe('hold');
  });
});

describe('backoffMs', () => {
  it('doubles from the interval and stops at the cap', () => {
    expect([0, 1, 2, 3].map((failures) => backoffMs(failures, 60_000))).toEqual([0, 60_000, 120_000, 240_000]);
    expect(backoffMs(20, 60_000)).toBe(HOUR);
  });
});

describe('target file: keep columns', () => {
  it('reads until (a date or a zoned timestamp) and roll_before', () => {
    const parsed = parseTargetFile(
      'market,side,notional_usd,tenor_days,until,roll_before\nUSDTNGN,sell,2000,1,2026-12-31,2h\nUSDTNGN,buy,500,3,2026-12-31T17:00:00+01:00,\n',
      { sourceName: 't.csv' },
    );
    expect(parsed).toEqual({
      rows: [
        {
          market: 'USDTNGN',
          side: 'sell',
          notionalUsd: 2000,
          tenorDays: 1,
          untilMs: Date.parse('2026-12-31T00:00:00Z'),
          rollBeforeMs: 2 * HOUR,
          line: 2,
        },
        {
          market: 'USDTNGN',
          side: 'buy',
          notionalUsd: 500,
          tenorDays: 3,
          untilMs: Date.parse('2026-12-31T16:00:00Z'),
          line: 3,
        },
      ],
    });
  });

  it('refuses an until without a zone and a roll_before that is not a duration, naming the line', () => {
    const parsed = parseTargetFile(
      'market,side,notional_usd,tenor_days,until,roll_before\nUSDTNGN,sell,2000,1,2026-12-31T17:00,soon\n',
      { sourceName: 't.csv' },
    );
    expect(
      'problems' in parsed && parsed.problems.map((problem) => [problem.line, problem.message.split(':')[0]]),
    ).toEqual([
      [2, 'until'],
      [2, 'roll_before'],
    ]);
  });
});
