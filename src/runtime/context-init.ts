// What a command's context is started with: the streams, environment, globals, clock and signal,
// who asked, an agent's limits, and the seams a test fills in place of a service.
import type { HedgeClient } from '../api/client.js';
import type { Clock, HttpConnections } from '../api/transport.js';
import type { Env, ResolvedCredentials } from '../config/credentials.js';
import type { ProfileStore } from '../config/profile-store.js';
import type { DemoHandle } from '../demo/start-demo.js';
import type { Journal } from '../journal/index.js';
import type { Notice } from '../ui/notices.js';
import type { Output } from '../ui/output.js';
import type { Prompter } from '../ui/prompter.js';
import type { Io } from '../ui/terminal.js';
import type { PlanCheck, TargetFileSource, TradeGate } from './agent-limits.js';
import type { GlobalOptions } from './globals.js';
import type { SignalRouter } from './signal-router.js';

export interface ContextInit {
  io: Io;
  env: Env;
  globals: GlobalOptions;
  clock: Clock;
  signal: AbortSignal;
  output: Output;
  /** Overrides for tests; each is built lazily otherwise. */
  prompter?: Prompter;
  store?: ProfileStore;
  startDemo?: (configDir: string) => Promise<DemoHandle>;
  /** The client seam: a unit test runs a command in-process against a fake client. */
  client?: HedgeClient;
  credentials?: ResolvedCredentials;
  journal?: Journal;
  /**
   * Connections owned by someone else (the agent server's, shared by its calls, some at once): used,
   * never closed here. Unset: the context builds its own on first use and closes them when it ends.
   */
  connections?: HttpConnections;
  /** Who asked for the command: a person or script at the CLI (default), an agent through `hedge mcp`, or a keeper's step. */
  origin?: 'cli' | 'agent' | 'keeper';
  /** The runner's signal router (a derived context shares its parent's); a new one when absent. */
  signals?: SignalRouter;
  targetFiles?: TargetFileSource;
  tradeGate?: TradeGate;
  planCheck?: PlanCheck;
  /** Absolute clock time when --timeout runs out, when it must be another context's (derive()). */
  deadline?: number;
  /**
   * Where the flows' notices go; unset: said on this context's output (ui/notices.ts). A context
   * whose notices a caller takes (a keeper's step) is not read by people: it draws no progress and
   * reads nothing only people would be shown.
   */
  notify?: (notice: Notice) => void;
  /** Confirmed before it ran (a keeper's step: by the keeper's own start), so nothing is asked; unset: --yes says. */
  confirmedAhead?: boolean;
}

/** The settings a command runs with, as given (ContextInit), read-only. */
export type Given = Readonly<
  Required<Pick<ContextInit, 'io' | 'env' | 'globals' | 'clock' | 'signal' | 'output'>> &
    Pick<ContextInit, 'targetFiles' | 'tradeGate' | 'planCheck'>
>;
