// The sandbox engine's state and options: one JSON document the book (book.ts) acts on, saved whole (the HTTP layer,
// http/, answers requests with them).

import { DEFAULT_DIALECT, type SandboxDialect } from './dialect-names.js';
import type { EngineState } from './engine-state.js';
import type { MarketDefinition } from './market-model.js';
import { hashString } from './prng.js';

export interface EngineOptions {
  apiKeys: readonly string[];
  /**
   * Account ids already worked out for some of apiKeys (accountIdFor's result): the demo's one built-in key has a
   * constant id, so a `--demo` command never loads node:crypto to hash it.
   */
  knownAccountIds?: Readonly<Record<string, string>>;
  seed?: string | number;
  fillDelayMs?: number;
  failRate?: number;
  exposureCapUsd?: number;
  /** Markets listed besides (or instead of) the dialect's, none of their open interest held elsewhere. */
  extraMarkets?: readonly Omit<MarketDefinition, 'backgroundOpenInterestUsd'>[];
  rateLimit?: number;
  dialect?: SandboxDialect;
  severalPerSide?: boolean;
  viewLagMs?: number;
  recordLagMs?: number;
  settlementDelayMs?: number;
  dayMs?: number;
}

export const DEFAULT_SEED = 'hedge-sandbox';

export function createEngineState(
  seed: string | number = DEFAULT_SEED,
  dialect: SandboxDialect = DEFAULT_DIALECT,
  idSeed = hashString(`ids:${seed}`),
): EngineState {
  return {
    version: 1,
    seed: String(seed),
    prngState: hashString(`prng:${seed}`),
    idState: idSeed >>> 0,
    sequence: 0,
    dialect,
    nowMs: 0,
    accounts: {},
    openInterestUsd: {},
    events: [],
    idempotency: {},
  };
}
