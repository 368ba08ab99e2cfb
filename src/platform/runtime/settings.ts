// What a command's context is made from: the global options, the process, and what an agent's call brings.
import type { Output } from '../terminal/output.js';
import type { Notice } from '../results/notices.js';
import type { OutputFormat } from '../../core/vocabulary.js';
import type { createClient, HedgeClient } from '../api/client.js';
import type { Env } from '../config/env.js';
import type { ApiRequest, Clock, HttpConnections } from '../api/transport.js';
import type { ResolvedCredentials } from '../config/credentials.js';
import type { Journal, SideAfter } from '../journal/index.js';
import type { Prompter } from '../terminal/prompter.js';
import type { Io } from '../terminal/terminal.js';
import type { ProfileStore } from '../config/profile-store.js';

/** The global options, once parsed (src/cli/globals.ts reads them off the command line). */
export interface GlobalOptions {
  /** true with --json, --format json, --format ndjson, --query or --raw: data on stdout is JSON. */
  json: boolean;
  /** true when JSON was asked for by name (--json, --format json or ndjson): a failure is then a JSON document. */
  jsonErrors?: boolean;
  /** --format as typed (--json alone is `json`); undefined: table on a terminal, tsv in a pipe. */
  format?: OutputFormat;
  /** --raw: JSON is the server's data as it sent it instead of hedge's one shape. */
  raw?: boolean;
  /** --fields, split on commas, in the order given. */
  fields?: string[];
  query?: string;
  /** false with --no-header: tsv and csv without their header row. */
  header: boolean;
  profile?: string;
  demo: boolean;
  yes: boolean;
  input: boolean;
  color: boolean;
  verbose: boolean;
  /** --timeout in seconds: bounds the whole command, waits included; 0 means no bound at all. */
  timeout?: number;
  /** --request-timeout in seconds: bounds each HTTP attempt. */
  requestTimeout?: number;
  /** The program as the user runs it (`hedge`, `./bin/hedge.js`), for the command lines hedge suggests; absent: `hedge`. */
  program?: string;
}

// What an agent's call brings besides its arguments: where target files come from, trade limits, its token's plan.
export interface TargetFileSource {
  read(file: string): Promise<{ text: string; sourceName: string }>;
}

export interface Trade {
  market: string;
  notionalUsd: number;
  /** The hedges its side held and their notional when read: a confirmation binds them (features/write/confirm.ts). */
  held?: SideAfter;
}

/** The operator's limits on an agent's call (`hedge mcp --max-notional`, `--max-daily-notional`, `--markets`). */
export interface TradeGate {
  admit(trades: readonly Trade[] | undefined, what: string, again?: Readmission): Promise<void>;
}

/** An action judged anew: its amount replaces what was counted for it before, never adds to it. */
export interface Readmission {
  /** What this call admitted for the action before (a retry): replaced by `trades`. */
  replacing?: readonly Trade[];
  /** The journal entry the action finishes (a resume): what it recorded leaves the daily count, `trades` counts instead. */
  finishing?: string;
}

/** A live write an agent confirmed with a token: the command passes the requests it is about to send, in order. */
export interface PlanCheck {
  check(requests: readonly ApiRequest[], trades: readonly Trade[] | undefined): void;
}

/** What a client of the command may be built with besides its credentials. */
export type ClientSettings = Partial<Parameters<typeof createClient>[0]>;

export interface ContextInit {
  io: Io;
  env: Env;
  globals: GlobalOptions;
  clock: Clock;
  signal: AbortSignal;
  output: Output;
  prompter?: Prompter;
  client?: HedgeClient;
  credentials?: ResolvedCredentials;
  journal?: Journal;
  /** Someone else's connections (the agent server's, shared by its calls): used, never closed here. */
  connections?: HttpConnections;
  /** Who asked: a person or script at the CLI (default), an agent through `hedge mcp`, or a keeper's step. */
  origin?: 'cli' | 'agent' | 'keeper';
  targetFiles?: TargetFileSource;
  tradeGate?: TradeGate;
  planCheck?: PlanCheck;
  /** Absolute clock time when --timeout runs out, when it must be another context's (derive()). */
  deadline?: number;
  /** Where the flows' notices go (unset: the output); a context whose notices are taken draws no progress. */
  notify?: (notice: Notice) => void;
}

/** Words a command read, kept for shell completion. */
export interface CompletionWords {
  marketsList?: string[];
  markets?: string[];
  hedges?: string[];
  relationships?: string[];
}

/** What a builder reads of its command: its settings, its other services, and where it registers a close. */
export interface Building extends Pick<
  ContextInit,
  'io' | 'env' | 'globals' | 'clock' | 'signal' | 'output' | 'deadline'
> {
  readonly init: Pick<ContextInit, 'notify'>;
  log(line: string): void;
  notify(notice: Notice): void;
  hedgeCommand(...words: string[]): string;
  onDispose(dispose: () => Promise<void> | void): void;
  store(): Promise<ProfileStore>;
  credentials(): Promise<ResolvedCredentials>;
  connections(): Promise<HttpConnections>;
  prompter(): Promise<Prompter>;
  rememberForCompletion(words: CompletionWords): void;
}
