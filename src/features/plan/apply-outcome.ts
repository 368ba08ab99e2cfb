// What an apply run did, as data (commands/apply.ts renders it and chooses the exit code).
import type { JournalEntry } from '../../platform/journal/index.js';
import type { QuotedPlan } from './target-plan.js';
import type { PlanStep } from '../../core/plan.js';

/** One unfinished step of an earlier apply, as resuming it left it. */
export interface ResumedStep {
  entry: JournalEntry;
  /** `open USDTNGN buy`: the step in words. */
  what: string;
  /** The journal's outcome after the resume; `not-resumable` when apply cannot finish it (hedge resume can). */
  outcome: string;
}

/** One step of the run as its report shows it; its outcome one of filled / done / failed / rejected / unknown / pending / not_sent / not_run. */
export type ApplyReportRow = ReturnType<typeof reportRow>;

/** A step's row: `outcome` when the journal entry does not say it (or there is none). */
export function reportRow(index: number, step: PlanStep, entry?: JournalEntry, outcome?: string) {
  return {
    step: index + 1,
    action: step.action,
    market: step.market,
    side: step.side,
    delta_usd: step.deltaUsd,
    outcome: outcome ?? entry?.outcome ?? 'not_run',
    hedge_id: entry?.hedge_id ?? null,
    journal_id: entry?.id ?? null,
  };
}

/** `resumed`: what an earlier apply left unfinished, finished before the plan was made. */
export type ApplyOutcome = { quoted: QuotedPlan; resumed: ResumedStep[] } &
  /** The plan fails pre-trade checks: nothing was sent. */
  (
    | { kind: 'fails-checks' }
    /** The book was at the target: nothing to do, nothing sent. */
    | { kind: 'at-target' }
    /** Every step carried out; `rows` one per step. */
    | { kind: 'applied'; rows: ApplyReportRow[] }
    /** Step `stoppedAt` (from 0) ended in `error`; `rows` has every step, the later ones `not_run`. */
    | { kind: 'stopped'; rows: ApplyReportRow[]; stoppedAt: number; error: unknown }
  );
