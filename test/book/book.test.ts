// The book model of a side: the hedge records and the positions line reconciled, never one alone.
import { describe, expect, it } from 'vitest';
import { expectationMet, reconcileSide } from '../../src/features/book/book.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');
const HOUR = 3_600_000;
const filled = (id: string, notionalUsd: number, maturityInMs = 24 * HOUR) => ({
  id,
  status: 'filled',
  notionalUsd,
  maturityAtMs: NOW + maturityInMs,
});

describe('reconcileSide', () => {
  it('flat: no live record, no line; closed and failed hedges hold nothing', () => {
    const book = reconcileSide(
      [
        { id: 'hdg_a', status: 'closed', notionalUsd: 1000 },
        { id: 'hdg_b', status: 'failed', notionalUsd: 500 },
      ],
      undefined,
      NOW,
    );
    expect(book).toMatchObject({ state: 'flat', recordsUsd: 0, filled: [], opening: [] });
  });

  it('in step: the filled hedges of the side add up to the positions line (several hedges aggregated in one line)', () => {
    const book = reconcileSide(
      [filled('hdg_a', 1000), filled('hdg_b', 2000, 48 * HOUR)],
      { notionalUsd: 3000, hedgeId: 'hdg_b' },
      NOW,
    );
    expect(book.state).toBe('in-step');
    expect(book.recordsUsd).toBe(3000);
    // The latest maturity first.
    expect(book.filled.map((record) => record.id)).toEqual(['hdg_b', 'hdg_a']);
  });

  it('settling: a notional that differs (an add on the record, not yet on the line)', () => {
    const book = reconcileSide([filled('hdg_a', 1500)], { notionalUsd: 1000 }, NOW);
    expect(book).toMatchObject({
      state: 'settling',
      why: 'the positions list shows 1,000.00 USD, the hedge records 1,500.00 USD',
    });
    // Cents rounding is not a difference.
    expect(reconcileSide([filled('hdg_a', 1000.004)], { notionalUsd: 1000 }, NOW).state).toBe('in-step');
  });

  it('settling: a hedge past its maturity still shown filled (late settlement) is neither flat nor rollable', () => {
    const book = reconcileSide([filled('hdg_a', 1000, -60_000)], { notionalUsd: 1000 }, NOW);
    expect(book).toMatchObject({ state: 'settling', why: 'hedge hdg_a is past its maturity and not settled yet' });
  });

  it('a hedge being opened, or in a status the spec does not name, is listed apart and never final', () => {
    const book = reconcileSide(
      [{ id: 'hdg_o', status: 'submitted' }, { id: 'hdg_s', status: 'settling' }, filled('hdg_a', 1000)],
      { notionalUsd: 1000 },
      NOW,
    );
    expect(book.state).toBe('in-step');
    expect(book.opening.map((record) => record.id)).toEqual(['hdg_o', 'hdg_s']);
  });
});

describe('expectationMet', () => {
  it('an open is seen once its hedge is filled on its record and the line shows the side at the expected notional', () => {
    const expected = { notionalUsd: 1000, present: ['hdg_new'], sinceMs: NOW };
    expect(expectationMet(reconcileSide([filled('hdg_new', 1000)], undefined, NOW), expected)).toBe(false);
    expect(expectationMet(reconcileSide([{ id: 'hdg_new', status: 'submitted' }], undefined, NOW), expected)).toBe(
      false,
    );
    expect(
      expectationMet(
        reconcileSide([filled('hdg_new', 1000)], { notionalUsd: 1000, hedgeId: 'hdg_new' }, NOW),
        expected,
      ),
    ).toBe(true);
  });

  it('a roll is seen once its old hedge is gone from every view and the new one is in all of them', () => {
    const expected = { notionalUsd: 1000, present: ['hdg_new'], gone: ['hdg_old'], sinceMs: NOW };
    const lineStillOld = reconcileSide(
      [{ id: 'hdg_old', status: 'closed', notionalUsd: 1000 }, filled('hdg_new', 1000)],
      { notionalUsd: 1000, hedgeId: 'hdg_old' },
      NOW,
    );
    expect(lineStillOld.state).toBe('in-step');
    expect(expectationMet(lineStillOld, expected)).toBe(false);
    expect(
      expectationMet(
        reconcileSide([filled('hdg_new', 1000)], { notionalUsd: 1000, hedgeId: 'hdg_new' }, NOW),
        expected,
      ),
    ).toBe(true);
  });

  it('an expected hedge that has ended on its record since (settled at maturity) was seen: the side moved on', () => {
    const expected = { notionalUsd: 1000, present: ['hdg_new'], gone: ['hdg_old'], sinceMs: NOW };
    expect(
      expectationMet(reconcileSide([{ id: 'hdg_new', status: 'closed', notionalUsd: 1000 }], undefined, NOW), expected),
    ).toBe(true);
    // Not while the views still disagree about it.
    expect(
      expectationMet(
        reconcileSide(
          [{ id: 'hdg_new', status: 'closed', notionalUsd: 1000 }],
          { notionalUsd: 1000, hedgeId: 'hdg_new' },
          NOW,
        ),
        expected,
      ),
    ).toBe(false);
  });

  it("a write that names its hedge is seen by it: a colleague's add right after is the book's to show (drift), not a reason to wait", () => {
    const expected = { notionalUsd: 1000, present: ['hdg_new'], sinceMs: NOW };
    expect(
      expectationMet(
        reconcileSide([filled('hdg_new', 1500)], { notionalUsd: 1500, hedgeId: 'hdg_new' }, NOW),
        expected,
      ),
    ).toBe(true);
    // One that names none (a convergence) is seen by its notional.
    expect(
      expectationMet(reconcileSide([filled('hdg_new', 1500)], { notionalUsd: 1500 }, NOW), {
        notionalUsd: 1000,
        sinceMs: NOW,
      }),
    ).toBe(false);
  });

  it('a close is seen once the side is flat in every view', () => {
    const expected = { notionalUsd: 0, gone: ['hdg_a'], sinceMs: NOW };
    expect(
      expectationMet(
        reconcileSide([{ id: 'hdg_a', status: 'closed' }], { notionalUsd: 1000, hedgeId: 'hdg_a' }, NOW),
        expected,
      ),
    ).toBe(false);
    expect(expectationMet(reconcileSide([{ id: 'hdg_a', status: 'closed' }], undefined, NOW), expected)).toBe(true);
  });
});
