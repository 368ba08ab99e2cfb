// What `hedge plan` computes and `hedge apply` carries out, as data.
import type { Quote } from '../../platform/api/schemas.js';
import type { Plan, PlanTotals } from '../../core/plan.js';

/** The cost of an open or add, from POST /quotes (indicative). */
export interface StepQuote {
  quote?: Quote;
  /** Set when the quote could not be had (the step itself may still be fine). */
  error?: { code: string; message: string };
}

export interface QuotedPlan {
  plan: Plan;
  /** Parallel to plan.steps; undefined for reduce and close (nothing to quote). */
  quotes: Array<StepQuote | undefined>;
  totals: PlanTotals;
  source: string;
}
