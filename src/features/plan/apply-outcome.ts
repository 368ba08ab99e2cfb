// What an apply run did, as data (commands/apply.ts renders it and chooses the exit code).
import type { JournalEntry } from '../../platform/journal/index.js';
import type { QuotedPlan } from './target-plan.js';

/** One unfinished step of an earlier apply, as resuming it left it. */
export interface ResumedStep {
  entry: JournalEntry;
  /** `open USDTNGN buy`: the step in words. */
  what: string;
  /** The journal's outcome after the resume; `not-resumable` when apply cannot finish it (hedge resume can). */
  outcome: string;
}

/** One step of the run as its report shows it (a type, not an interface: a list's row is a JsonObject). */
export type ApplyReportRow = {
  step: number;
  action: string;
  market: string;
  side: string;
  delta_usd: number;
  /** filled / done / failed / rejected / unknown / pending / not_sent / not_run. */
  outcome: string;
  hedge_id: string | null;
  journal_id: string | null;
};

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
