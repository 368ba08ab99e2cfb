// What the keeper says as it works, as data: its events, each row's status, and the reporter they
// go to (flows/keep.ts emits them; ui/keep-view.ts draws them or writes them as NDJSON).

/** One thing the keeper did or saw; `event` is its kind. Printed as one JSON line. */
export interface KeepEvent {
  event: 'start' | 'cycle' | 'roll' | 'reopen' | 'drift' | 'converge' | 'skip' | 'notice' | 'error' | 'stop' | 'alert';
  /** Our clock, ISO 8601 UTC. */
  at: string;
  /** The server's time maturities were compared with: the latest its clock can read (domain/server-clock.ts). */
  server_time?: string;
  market?: string;
  side?: string;
  notional_usd?: number;
  hedge_ids?: string[];
  journal_id?: string;
  [field: string]: unknown;
}

/** A target row as the status screen shows it. */
export interface KeepRowStatus {
  market: string;
  side: string;
  client_reference?: string;
  target_usd: number;
  current_usd: number | null;
  /**
   * Set when what the side holds cannot be told this cycle (its views disagree while a change lands,
   * or the book could not be read): `current_usd` is then null without the side being flat.
   */
  current_unknown?: true;
  state: string;
  next_action: string | null;
  next_action_at: string | null;
}

export interface KeepStatus {
  file: string;
  rows: KeepRowStatus[];
  last_cycle_at?: string;
  next_cycle_at?: string;
  stopping: boolean;
  /** A dry run: the screen says so, and what it shows is what a real run would do. */
  dry_run?: boolean;
}

export interface KeepReporter {
  event(event: KeepEvent): void;
  status(status: KeepStatus): void;
  close(): void;
}
