// The plan diff (src/core/plan.ts): target rows against the live book, the actions in execution
// order, and the pre-trade checks simulated over the whole sequence.
import {
  applyOrder,
  computePlan,
  describePlanProblem,
  describePlanStepNote,
  type PlanInput,
} from '../../src/core/plan.js';
import { reconcileSide } from '../../src/features/book/book.js';
import { decideRow } from '../../src/features/keeper/keeper-decide.js';
import { sidesToward } from '../../src/features/plan/target-plan.js';
import { rowKey } from '../../src/core/keep-rules.js';
import { cents } from '../../src/core/money.js';

const openMarket = (market: string, buy = 1_000_000, sell = buy) => ({
  market,
  status: 'open',
  available_capacity_usd: { buy, sell },
});
const NGN = openMarket('USDTNGN');
const GHS = openMarket('USDTGHS');

const NOW = Date.parse('2026-03-02T09:00:00Z');

/** The plan of `targets` over the positions the server lists, each row's side as the side model holds it (its
 * records in step with its lines) under the tolerance. */
function plan({
  positions = [],
  toleranceUsd = 0,
  ...overrides
}: Partial<Omit<PlanInput, 'sides'>> & Pick<PlanInput, 'targets'> & { toleranceUsd?: number }) {
  const books = overrides.targets.map((row) => {
    const lines = positions.filter((held) => rowKey(held) === rowKey(row));
    const records = lines.map((held, index) => ({
      id: held.hedgeId ?? `hdg_${index}`,
      status: 'filled',
      notionalUsd: held.notionalUsd,
      maturityAtMs: NOW + 86_400_000,
    }));
    const sum = cents(lines.reduce((total, held) => total + held.notionalUsd, 0));
    return reconcileSide(records, lines.length ? { notionalUsd: sum } : undefined, NOW);
  });
  return computePlan({
    positions,
    markets: [NGN, GHS],
    availableExposureUsd: 1_000_000,
    ...overrides,
    sides: sidesToward(overrides.targets, books, toleranceUsd),
  });
}

/** A position the server lists; toEqual passes over a tenor or hedge id left undefined. */
function held(market: string, side: 'buy' | 'sell', notionalUsd: number, tenorDays?: number, hedgeId?: string) {
  return { market, side, notionalUsd, tenorDays, hedgeId };
}

function row(market: string, side: 'buy' | 'sell', notionalUsd: number, line: number, extra = {}) {
  return { market, side, notionalUsd, line, ...(notionalUsd > 0 ? { tenorDays: 3 as const } : {}), ...extra };
}

/** A planned step from `currentUsd` to `targetUsd` (the change their difference), with no notes unless given. */
function step(
  action: string,
  market: string,
  side: 'buy' | 'sell',
  [currentUsd, targetUsd]: [number, number],
  line: number,
  extra = {},
) {
  return { action, market, side, currentUsd, targetUsd, deltaUsd: targetUsd - currentUsd, line, notes: [], ...extra };
}

it('the actions that reach the target: opens, adds, reduces and closes per side, leaving at-target rows and unnamed sides alone; leaves a position on a side the file does not name untouched, and reports it; sums a side the server lists as several hedges; notes an add whose row names another tenor than the open position: add keeps the maturity', () => {
  const positions = [
    held('USDTNGN', 'buy', 10_000, 3, 'hdg_a'),
    held('USDTNGN', 'sell', 20_000, 7, 'hdg_b'),
    held('USDTGHS', 'buy', 5_000, 1, 'hdg_c'),
    held('USDTGHS', 'sell', 8_000, 3, 'hdg_d'),
  ];
  const result = plan({
    positions,
    targets: [
      row('USDTNGN', 'buy', 15_000, 2),
      row('USDTNGN', 'sell', 12_500, 3),
      row('USDTGHS', 'buy', 0, 4),
      row('USDTKES', 'buy', 2_000, 5, { tenorDays: 7, clientReference: 'DEAL-9' }),
      row('USDTGHS', 'sell', 8_000, 6),
    ],
    markets: [NGN, GHS, openMarket('USDTKES', 50_000)],
  });
  expect(result.steps).toEqual([
    step('reduce', 'USDTNGN', 'sell', [20_000, 12_500], 3, { currentTenorDays: 7 }),
    step('close', 'USDTGHS', 'buy', [5_000, 0], 4, { currentTenorDays: 1 }),
    step('add', 'USDTNGN', 'buy', [10_000, 15_000], 2, { currentTenorDays: 3 }),
    step('open', 'USDTKES', 'buy', [0, 2_000], 5, { tenorDays: 7, clientReference: 'DEAL-9' }),
  ]);
  expect(result.unchanged).toEqual([{ market: 'USDTGHS', side: 'sell', currentUsd: 8_000, targetUsd: 8_000, line: 6 }]);
  expect([result.untouched, result.problems, result.atTarget]).toEqual([[], [], false]);

  const sell = held('USDTNGN', 'sell', 20_000, 7, 'hdg_b');
  const apart = plan({
    positions: [held('USDTNGN', 'buy', 10_000), sell],
    targets: [row('USDTNGN', 'buy', 10_000, 2)],
  });
  expect([apart.steps, apart.untouched, apart.atTarget]).toEqual([[], [sell], true]);
  expect(
    plan({
      positions: [held('USDTNGN', 'buy', 0.1, 3), held('usdtngn', 'buy', 0.2, 3)],
      targets: [row('USDTNGN', 'buy', 0.3, 2)],
    }).unchanged,
  ).toEqual([{ market: 'USDTNGN', side: 'buy', currentUsd: 0.3, targetUsd: 0.3, line: 2 }]);

  const tenors = plan({
    positions: [held('USDTNGN', 'buy', 10_000, 7), held('USDTNGN', 'sell', 10_000, 3), held('USDTGHS', 'buy', 10_000)],
    targets: [row('USDTNGN', 'buy', 20_000, 2), row('USDTNGN', 'sell', 20_000, 3), row('USDTGHS', 'buy', 20_000, 4)],
  });
  expect(
    tenors.steps.map((step) => [step.action, step.line, step.tenorDays, step.currentTenorDays, step.notes]),
  ).toEqual([
    ['add', 2, undefined, 7, ['tenor_differs']],
    ['add', 3, undefined, 3, []],
    // The positions list does not say the tenor: nothing to compare.
    ['add', 4, undefined, undefined, []],
  ]);
  expect(describePlanStepNote('tenor_differs', tenors.steps[0])).toBe(
    'the open USDTNGN buy position has a different tenor (7 days) than the row; add keeps its maturity (roll is not implied).',
  );
});

const buy = [held('USDTNGN', 'buy', 10_000, 3)];
const small = [held('USDTNGN', 'buy', 50)];
/** The plan for one USDTNGN row under a tolerance: at target, or its one step and change. */
const within = (toleranceUsd: number, notional: number, positions = buy, side: 'buy' | 'sell' = 'buy') => {
  const result = plan({ positions, toleranceUsd, targets: [row('USDTNGN', side, notional, 2)] });
  return result.atTarget ? 'at target' : result.steps.map((step) => `${step.action} ${step.deltaUsd}`).join();
};

it('tolerance: treats a difference of exactly the tolerance as at target and one cent more as a change, for closes too; a flat side is at target only under a target of 0; exact at 0; a negative tolerance is a programming error', () => {
  expect([
    within(100, 10_100),
    within(100, 9_900),
    within(100, 10_100.01),
    within(100, 9_899.99),
    within(50, 50, [], 'sell'),
    within(50, 50.01, [], 'sell'),
    within(50, 0, small),
    within(49.99, 0, small),
    within(0, 10_000),
    within(0, 10_000.01),
  ]).toEqual([
    'at target',
    'at target',
    'add 100.01',
    'reduce -100.01',
    'open 50',
    'open 50.01',
    'at target',
    'close -50',
    'at target',
    'add 0.01',
  ]);
  expect(() => within(-1, 1)).toThrow(RangeError);
});

it('one on-target rule: plan and the keeper decide alike on a flat side under a small target and on a held side a fraction of a cent inside or outside the tolerance', () => {
  // [held (null: flat), target, tolerance]: the keeper's decision of the side beside the plan's.
  const cases: Array<[number | null, number, number]> = [
    [null, 50, 50],
    [null, 0, 50],
    [10_000.004, 10_000, 0],
    [10_000.006, 10_000, 0],
    [10_000, 10_100.01, 100.01],
    [10_000, 10_100.016, 100.01],
  ];
  const decisions = cases.map(([heldUsd, targetUsd, toleranceUsd]) => {
    const records =
      heldUsd === null ? [] : [{ id: 'hdg_1', status: 'filled', notionalUsd: heldUsd, maturityAtMs: NOW + 86_400_000 }];
    const line = heldUsd === null ? undefined : { notionalUsd: heldUsd, hedgeId: 'hdg_1' };
    const keeper = decideRow(
      { market: 'USDTNGN', side: 'buy', notionalUsd: targetUsd, tenorDays: 3 },
      reconcileSide(records, line, NOW),
      NOW,
      { toleranceUsd },
    ).kind;
    const positions = heldUsd === null ? [] : [held('USDTNGN', 'buy', heldUsd, 3)];
    return [keeper, within(toleranceUsd, targetUsd, positions)];
  });
  expect(decisions).toEqual([
    ['reopen', 'open 50'],
    ['hold', 'at target'],
    ['hold', 'at target'],
    ['drift', 'reduce -0.01'],
    ['hold', 'at target'],
    ['drift', 'add 100.02'],
  ]);
});

it('execution order: sends closes and reduces first, then adds and opens, each by file line', () => {
  const steps = [
    { action: 'open', line: 2 },
    { action: 'reduce', line: 7 },
    { action: 'add', line: 3 },
    { action: 'close', line: 5 },
    { action: 'open', line: 1 },
  ] as const;
  expect(applyOrder(steps)).toEqual([
    { action: 'close', line: 5 },
    { action: 'reduce', line: 7 },
    { action: 'open', line: 1 },
    { action: 'open', line: 2 },
    { action: 'add', line: 3 },
  ]);
  expect(steps[0]).toEqual({ action: 'open', line: 2 }); // the input is not reordered in place
});

const book = [held('USDTNGN', 'sell', 40_000, 3)];

it('pre-trade checks over the whole plan: passes a plan that only fits because the reduction runs before the open; fails on the step that goes over the cap, with the headroom left at that point; checks the side capacity of each add or open; refuses new exposure on a market that is not listed or not open, and lets exposure off with a note', () => {
  // The open is on an earlier line, but 30k of headroom only exists once the sell side is cut by 25k.
  const fits = plan({
    positions: book,
    availableExposureUsd: 5_000,
    targets: [row('USDTNGN', 'buy', 30_000, 2), row('USDTNGN', 'sell', 15_000, 3)],
  });
  expect([fits.steps.map((step) => step.action), fits.problems]).toEqual([['reduce', 'open'], []]);
  const result = plan({
    positions: book,
    availableExposureUsd: 5_000,
    targets: [
      row('USDTNGN', 'buy', 20_000, 2),
      row('USDTGHS', 'buy', 15_000.5, 3),
      row('USDTNGN', 'sell', 15_000, 4),
      row('USDTGHS', 'sell', 9_999.5, 5),
    ],
  });
  // Headroom: 5,000 + 25,000 (reduce) = 30,000; open buy 20,000 → 10,000 left; open GHS buy
  // 15,000.50 is over; refused, it uses nothing, so GHS sell 9,999.50 still fits.
  expect(result.steps.map((step) => `${step.action} ${step.market} ${step.side}`)).toEqual([
    'reduce USDTNGN sell',
    'open USDTNGN buy',
    'open USDTGHS buy',
    'open USDTGHS sell',
  ]);
  expect(result.problems).toEqual([
    {
      code: 'exposure_exceeded',
      stepIndex: 2,
      line: 3,
      action: 'open',
      market: 'USDTGHS',
      side: 'buy',
      details: { requiredUsd: 15_000.5, availableExposureUsd: 10_000 },
    },
  ]);
  expect(describePlanProblem(result.problems[0])).toBe(
    'open USDTGHS buy needs 15,000.50 USD of exposure headroom; 10,000.00 USD is left at that point of the plan.',
  );

  const capped = plan({
    markets: [openMarket('USDTNGN', 12_000, 500_000)],
    positions: [held('USDTNGN', 'buy', 10_000)],
    targets: [row('USDTNGN', 'buy', 22_000.01, 2), row('USDTNGN', 'sell', 12_000.01, 3)],
  });
  expect(capped.problems).toEqual([
    {
      code: 'capacity_exceeded',
      stepIndex: 0,
      line: 2,
      action: 'add',
      market: 'USDTNGN',
      side: 'buy',
      details: { requiredUsd: 12_000.01, availableCapacityUsd: 12_000 },
    },
  ]);
  expect(describePlanProblem(capped.problems[0])).toBe(
    'add USDTNGN buy needs 12,000.01 USD of buy capacity; 12,000.00 USD is available.',
  );

  const disabled = { ...openMarket('USDTNGN', 0), status: 'disabled' };
  const closing = plan({
    markets: [disabled],
    availableExposureUsd: 0,
    positions: [held('USDTNGN', 'sell', 10_000), held('USDTOLD', 'buy', 3_000)],
    targets: [
      row('USDTNGN', 'buy', 1_000, 2),
      row('USDTNGN', 'sell', 0, 3),
      row('USDTXYZ', 'sell', 500, 4),
      row('USDTOLD', 'buy', 1_000, 5),
    ],
  });
  expect(closing.steps.map((step) => [step.action, step.market, step.notes])).toEqual([
    ['close', 'USDTNGN', ['market_disabled']],
    ['reduce', 'USDTOLD', ['market_not_listed']],
    ['open', 'USDTNGN', []],
    ['open', 'USDTXYZ', []],
  ]);
  // 12,000 of headroom freed by the two reductions: only the market checks fail, and the disabled
  // market's capacity of 0 besides.
  expect(closing.problems.map((problem) => [problem.code, problem.stepIndex, problem.line, problem.details])).toEqual([
    ['market_disabled', 2, 2, { status: 'disabled' }],
    ['capacity_exceeded', 2, 2, { requiredUsd: 1_000, availableCapacityUsd: 0 }],
    ['market_not_listed', 3, 4, {}],
  ]);
  expect(closing.problems.map(describePlanProblem)).toEqual([
    'open USDTNGN buy: market USDTNGN is disabled, not open for new exposure.',
    'open USDTNGN buy needs 1,000.00 USD of buy capacity; 0.00 USD is available.',
    'open USDTXYZ sell: market USDTXYZ is not listed for this account.',
  ]);
});
