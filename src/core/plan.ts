// The plan of `hedge plan` / `hedge apply`: from a target file and the live book (positions, markets, account headroom) to the actions that reach the target, in the order they will be sent, with the pre-trade checks simulated over the whole sequence.
import { cents } from './money.js';
import { formatUsd } from './number-format.js';
import { findMarket } from './markets.js';
import { rowKey } from './keep-rules.js';
import { withoutUndefined } from './objects.js';
import { safeText } from './security/safe-text.js';
import type { Side } from './vocabulary.js';
import type { TargetRow } from './target-file.js';

type PlanAction = 'open' | 'add' | 'reduce' | 'close';

/** Facts about a step that do not stop it: - tenor_differs: an add keeps the open position's maturity, whatever tenor the row names (roll is not implied); - market_disabled / market_not_listed: a reduce or close on a market that is not open for new exposure; taking risk off is still allowed. */
type PlanStepNote = 'tenor_differs' | 'market_disabled' | 'market_not_listed';

export interface PlanStep extends Pick<TargetRow, 'market' | 'side' | 'tenorDays' | 'clientReference' | 'line'> {
  action: PlanAction;
  currentUsd: number;
  targetUsd: number;
  deltaUsd: number;
  currentTenorDays?: number;
  notes: PlanStepNote[];
}

type PlanProblem = Pick<PlanStep, 'line' | 'action' | 'market' | 'side'> & { stepIndex: number } & (
    | { code: 'exposure_exceeded'; details: { requiredUsd: number; availableExposureUsd: number } }
    | { code: 'capacity_exceeded'; details: { requiredUsd: number; availableCapacityUsd: number } }
    | { code: 'market_not_listed'; details: Record<string, never> }
    | { code: 'market_disabled'; details: { status: string } }
  );

export interface PlanInput {
  targets: TargetRow[];
  /** Each row's side, in the rows' order, as the side model holds it: its notional (0: flat), the step that brings it to
   * the row's target (features/book/book.ts towardTarget, the keeper's too; none: on target), and the live hedges on it
   * that are not the row's (another reference, or none, and not adopted). */
  sides: ReadonlyArray<{
    currentUsd: number;
    toward?: { change: PlanAction; amountUsd: number };
    notOwned: OtherHedge[];
  }>;
  /** The positions list: the tenors a side's lines show, and the sides the file does not name. */
  positions: Array<{ market: string; side: Side; notionalUsd: number; tenorDays?: number; hedgeId?: string }>;
  markets: Array<{ market: string; status: string; available_capacity_usd: { buy: number; sell: number } }>;
  availableExposureUsd: number;
}

/** A hedge on a row's side that is not the row's. */
interface OtherHedge {
  id: string;
  clientReference?: string;
}

export function computePlan({ targets, sides, positions, markets, availableExposureUsd }: PlanInput) {
  const unsorted: PlanStep[] = [];
  // A target row that needs no action: shown as current → target with nothing to do.
  const unchanged = [];
  // A row whose side holds hedges that are not its own: nothing is planned for it until the user adopts them.
  const notThisRows = [];
  for (const [index, row] of targets.entries()) {
    const { market, side, notionalUsd: targetUsd, line, clientReference, tenorDays } = row;
    const { currentUsd, toward, notOwned } = sides[index];
    if (notOwned.length)
      notThisRows.push({
        market,
        side,
        line,
        currentUsd,
        targetUsd,
        ...withoutUndefined({ clientReference }),
        hedges: notOwned,
      });
    else if (!toward) unchanged.push({ market, side, currentUsd, targetUsd, line });
    else {
      // The tenors the side's positions lines show: an add keeps its maturity, whatever the row names.
      const tenors = new Set(positions.flatMap((held) => (rowKey(held) === rowKey(row) ? (held.tenorDays ?? []) : [])));
      const listed = findMarket(markets, market);
      const { change: action } = toward;
      const step = {
        market,
        side,
        currentUsd,
        targetUsd,
        deltaUsd: cents(targetUsd - currentUsd),
        line,
        ...(tenors.size === 1 && { currentTenorDays: [...tenors][0] }),
      };
      unsorted.push(
        action === 'open'
          ? { ...step, action, ...withoutUndefined({ tenorDays, clientReference }), notes: [] }
          : action === 'add'
            ? {
                ...step,
                action,
                notes:
                  tenorDays !== undefined && [...tenors].some((tenor) => tenor !== tenorDays) ? ['tenor_differs'] : [],
              }
            : // Taking exposure off is allowed on any market; the notes say when it is not open.
              {
                ...step,
                action,
                notes: !listed ? ['market_not_listed'] : listed.status === 'open' ? [] : ['market_disabled'],
              },
      );
    }
  }
  const steps = applyOrder(unsorted);
  // The file describes the sides it names and nothing more: a side it does not mention is left as it is, so a file about one market cannot close the book on another by omission.
  const named = new Set(targets.map(rowKey));
  const untouched = positions.filter((position) => position.notionalUsd > 0 && !named.has(rowKey(position)));
  return {
    steps,
    atTarget: !steps.length && !notThisRows.length,
    problems: preTradeProblems(steps, markets, availableExposureUsd),
    unchanged,
    untouched,
    notThisRows,
  };
}

/** The pre-trade checks, walking the steps in execution order as the server would see them: headroom starts at the account's `available_exposure_usd`, a close or reduce frees its notional, an open or add uses it; capacity per side shrinks with each open or add on that side. */
function preTradeProblems(steps: PlanStep[], markets: PlanInput['markets'], availableExposureUsd: number) {
  const problems: PlanProblem[] = [];
  let headroomUsd = availableExposureUsd;
  const usedCapacityUsd = new Map<string, number>();
  steps.forEach((step, stepIndex) => {
    const { line, action, market, side, deltaUsd: requiredUsd } = step;
    const base = { stepIndex, line, action, market, side };
    // A close's or reduce's change is negative: it frees what it takes off.
    if (!addsExposure(action)) {
      headroomUsd = cents(headroomUsd - requiredUsd);
      return;
    }
    const listed = findMarket(markets, market);
    const found = problems.length;
    if (!listed) problems.push({ ...base, code: 'market_not_listed', details: {} });
    else if (listed.status !== 'open')
      problems.push({ ...base, code: 'market_disabled', details: { status: listed.status } });
    if (requiredUsd > headroomUsd)
      problems.push({
        ...base,
        code: 'exposure_exceeded',
        details: { requiredUsd, availableExposureUsd: headroomUsd },
      });
    const key = rowKey(step);
    const usedUsd = usedCapacityUsd.get(key) ?? 0;
    if (listed) {
      const availableCapacityUsd = cents(listed.available_capacity_usd[side] - usedUsd);
      if (requiredUsd > availableCapacityUsd)
        problems.push({ ...base, code: 'capacity_exceeded', details: { requiredUsd, availableCapacityUsd } });
    }
    // A step refused frees and uses nothing.
    if (problems.length > found) return;
    headroomUsd = cents(headroomUsd - requiredUsd);
    usedCapacityUsd.set(key, cents(usedUsd + requiredUsd));
  });
  return problems;
}

export type Plan = ReturnType<typeof computePlan>;

/** The order in which the steps are sent: closes and reduces first, then adds and opens, each group by file line. */
export function applyOrder<T extends Pick<PlanStep, 'action' | 'line'>>(steps: readonly T[]) {
  return [...steps].sort((a, b) => +addsExposure(a.action) - +addsExposure(b.action) || a.line - b.line);
}

function addsExposure(action: PlanAction) {
  return action === 'open' || action === 'add';
}

/** A plain sentence for a person, a log or an agent; the amounts as a desk reads them (the details keep the numbers). */
export function describePlanProblem({ action, market, side, code, details }: PlanProblem) {
  const what = `${action} ${market} ${side}`;
  switch (code) {
    case 'exposure_exceeded':
      return `${what} needs ${formatUsd(details.requiredUsd)} of exposure headroom; ${formatUsd(details.availableExposureUsd)} is left at that point of the plan.`;
    case 'capacity_exceeded':
      return `${what} needs ${formatUsd(details.requiredUsd)} of ${side} capacity; ${formatUsd(details.availableCapacityUsd)} is available.`;
    case 'market_not_listed':
      return `${what}: market ${market} is not listed for this account.`;
    case 'market_disabled':
      return `${what}: market ${market} is ${details.status}, not open for new exposure.`;
  }
}

export function describePlanStepNote(note: PlanStepNote, { market, side, currentTenorDays }: PlanStep) {
  switch (note) {
    case 'tenor_differs':
      return `the open ${market} ${side} position has ${currentTenorDays === undefined ? 'another tenor' : `a different tenor (${currentTenorDays} days)`} than the row; add keeps its maturity (roll is not implied).`;
    case 'market_disabled':
      return `market ${market} is not open; taking exposure off is still attempted.`;
    case 'market_not_listed':
      return `market ${market} is not listed for this account; taking exposure off is still attempted.`;
  }
}

/** A problem as the JSON output carries it (plan's `problems`, apply's refusal). */
export function problemAsData(problem: PlanProblem) {
  const { code, stepIndex, line, action, market, side, details } = problem;
  return { code, step: stepIndex + 1, line, action, market, side, message: describePlanProblem(problem), details };
}

/** `hdg_1 (DEAL-43)`: a hedge that is not a row's, as messages name it. */
export const otherHedgeWords = ({ id, clientReference }: OtherHedge) => `${id} (${clientReference ?? 'no reference'})`;

/** "the buy side of USDTNGN holds hdg_1 (DEAL-43), not this row's (DEAL-7)": a row's side holding hedges not its own,
 * as messages name it. */
export const notThisRowWords = ({ side, market, hedges, clientReference }: Plan['notThisRows'][number]) =>
  `the ${side} side of ${safeText(market)} holds ${safeText(hedges.map(otherHedgeWords).join(', '))}, not this row's (${clientReference === undefined ? 'no reference' : safeText(clientReference)})`;

/** What `--adopt` takes to make a side's other hedges a row's: each one's reference where it has one, else its id. */
export const adoptWords = (hedges: readonly OtherHedge[]) => hedges.map((hedge) => hedge.clientReference ?? hedge.id);
