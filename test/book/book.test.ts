// The book model of a side: the hedge records and the positions line reconciled, never one alone.
import {
  changeVerdict,
  reconcileSide,
  viewsState,
  type ExpectedChange,
  type HedgeRecord,
} from '../../src/features/book/book.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');
const HOUR = 3_600_000;
const filled = (id: string, notionalUsd: number, maturityInMs = 24 * HOUR) => ({
  id,
  status: 'filled',
  notionalUsd,
  maturityAtMs: NOW + maturityInMs,
});

it('reconcileSide: flat: no live record, no line; closed and failed hedges hold nothing; in step: the filled hedges of the side add up to the positions line (several hedges aggregated in one line)', () => {
  const flat = reconcileSide(
    [
      { id: 'hdg_a', status: 'closed', notionalUsd: 1000 },
      { id: 'hdg_b', status: 'failed', notionalUsd: 500 },
    ],
    undefined,
    NOW,
  );
  expect([viewsState(flat), flat]).toMatchObject(['flat', { recordsUsd: 0, filled: [], opening: [] }]);
  const book = reconcileSide(
    [filled('hdg_a', 1000), filled('hdg_b', 2000, 48 * HOUR)],
    { notionalUsd: 3000, hedgeId: 'hdg_b' },
    NOW,
  );
  expect([viewsState(book), book.recordsUsd]).toEqual(['in-step', 3000]);
  // The latest maturity first.
  expect(book.filled.map((record) => record.id)).toEqual(['hdg_b', 'hdg_a']);
});

it('reconcileSide: settling: a notional that differs (an add on the record, not yet on the line); a hedge past its maturity still shown filled (late settlement) is neither flat nor rollable', () => {
  const differs = reconcileSide([filled('hdg_a', 1500)], { notionalUsd: 1000 }, NOW);
  expect([viewsState(differs), differs.why]).toEqual([
    'settling',
    'the positions list shows 1,000.00 USD, the hedge records 1,500.00 USD',
  ]);
  // Cents rounding is not a difference.
  expect(viewsState(reconcileSide([filled('hdg_a', 1000.004)], { notionalUsd: 1000 }, NOW))).toBe('in-step');
  const late = reconcileSide([filled('hdg_a', 1000, -60_000)], { notionalUsd: 1000 }, NOW);
  expect([viewsState(late), late.why]).toEqual(['settling', 'hedge hdg_a is past its maturity and not settled yet']);
});

it('reconcileSide: a hedge being opened, or in a status the spec does not name, is listed apart and never final; one in a status hedge does not know makes the side settling, never open nor flat', () => {
  const opening = reconcileSide(
    [{ id: 'hdg_o', status: 'submitted' }, filled('hdg_a', 1000)],
    { notionalUsd: 1000 },
    NOW,
  );
  expect([viewsState(opening), opening.opening.map((record) => record.id)]).toEqual(['in-step', ['hdg_o']]);
  const book = reconcileSide(
    [{ id: 'hdg_o', status: 'submitted' }, { id: 'hdg_s', status: 'settling' }, filled('hdg_a', 1000)],
    { notionalUsd: 1000 },
    NOW,
  );
  expect([viewsState(book), book.why]).toEqual([
    'settling',
    'hedge hdg_s shows status "settling", which hedge does not know (neither open nor ended)',
  ]);
  expect(book.opening.map((record) => record.id)).toEqual(['hdg_o', 'hdg_s']);
  // Closed early and shown so at notional 0, with the side gone from the list: settling too, never flat or held.
  expect(viewsState(reconcileSide([{ id: 'hdg_s', status: 'settling', notionalUsd: 0 }], undefined, NOW))).toBe(
    'settling',
  );
  // A line that still names a closed hedge of the side is in step while the notionals agree.
  expect(
    viewsState(
      reconcileSide(
        [{ id: 'hdg_old', status: 'closed', notionalUsd: 1000 }, filled('hdg_new', 1000)],
        { notionalUsd: 1000, hedgeId: 'hdg_old' },
        NOW,
      ),
    ),
  ).toBe('in-step');
});

const open: ExpectedChange = { kind: 'open', before: 0, changeUsd: 1000, hedgeId: 'hdg_new' };
const roll = { ...open, gone: ['hdg_old'] };
const close: ExpectedChange = { kind: 'close', before: 1000, gone: ['hdg_a'] };
const closed = (id: string) => ({ id, status: 'closed', notionalUsd: 1000 });
const line = (hedgeId?: string, notionalUsd = 1000) => ({ notionalUsd, hedgeId });
const cases: Array<[string, HedgeRecord[], ReturnType<typeof line> | undefined, ExpectedChange, string]> = [
  ['an open filled on its record, no line yet', [filled('hdg_new', 1000)], undefined, open, 'not-yet'],
  ['an open still submitted', [{ id: 'hdg_new', status: 'submitted' }], undefined, open, 'not-yet'],
  ['an open filled, the line at the expected notional', [filled('hdg_new', 1000)], line('hdg_new'), open, 'landed'],
  [
    'a roll whose line still names the old hedge',
    [closed('hdg_old'), filled('hdg_new', 1000)],
    line('hdg_old'),
    roll,
    'not-yet',
  ],
  [
    'a roll: the old hedge gone from every view, the new one in all',
    [filled('hdg_new', 1000)],
    line('hdg_new'),
    roll,
    'landed',
  ],
  // An expected hedge that has ended on its record since (settled at maturity) was seen: the side moved on.
  ['an expected hedge ended on its record since', [closed('hdg_new')], undefined, roll, 'landed'],
  ['an expected hedge ended on its record, still on the line', [closed('hdg_new')], line('hdg_new'), roll, 'not-yet'],
  // …and one that failed never will: the side is the book's to say again too.
  ['an expected hedge failed on its record since', [{ id: 'hdg_new', status: 'failed' }], undefined, open, 'failed'],
  // A write that names its hedge is seen by it: a colleague's add right after is the book's to show (drift).
  [
    "a write that names its hedge, a colleague's add since",
    [filled('hdg_new', 1500)],
    line('hdg_new', 1500),
    open,
    'landed',
  ],
  [
    'a write that names none is seen by its notional',
    [filled('hdg_new', 1500)],
    line(undefined, 1500),
    { kind: 'open', before: 0, changeUsd: 1000 },
    'moved',
  ],
  ['a close while the line still shows the side', [{ id: 'hdg_a', status: 'closed' }], line('hdg_a'), close, 'not-yet'],
  ['a close, flat in every view', [{ id: 'hdg_a', status: 'closed' }], undefined, close, 'landed'],
];
it.each(cases)(
  "changeVerdict: every view shows what a write expects (an actor's own, as the keeper waits for it): %s: %s",
  (_name, records, positions, expected, verdict) => {
    expect(changeVerdict(reconcileSide(records, positions, NOW), expected).verdict).toBe(verdict);
  },
);
