// Public surface of the sandbox: the server for tests, the demo and `hedge sandbox serve`; the
// engine and model for unit tests that need no socket.

export {
  SANDBOX_BASE_PATH,
  generateTestKey,
  startSandbox,
  type RequestLogEntry,
  type RequestLogStatus,
  type RunningSandbox,
  type SandboxOptions,
  type SeedHedgesOptions,
} from './server.js';
export { serveSandbox, type ServeIo } from './serve.js';
export {
  SandboxEngine,
  createEngineState,
  isTestKey,
  type EngineOptions,
  type EngineRequest,
  type ExtraMarket,
  type HandleContext,
  type IdempotencyLease,
} from './engine.js';
export type { EngineState } from './engine-state.js';
export { parseStateFile, stateFileBytes, type StateFileContents } from './state-file.js';
export { unreadPart } from './lazy-state.js';
export type { Envelope, EngineResponse } from './envelope.js';
export type { FaultMatch, FaultSettings, InjectedError, MalformedKind, RequestTarget, StallMode } from './faults.js';
export { SANDBOX_DIALECTS, type SandboxDialect, type WireDialect, wireDialect } from './dialects.js';
export { HOSTILE_FIELD_NAME, HOSTILE_FIELD_VALUE, HOSTILE_SEQUENCES, HOSTILE_TEXT } from './hostile-text.js';
export { growHedges, type GrowthOptions, type GrowthResult } from './growth.js';
export { createClock, type SandboxClock, type SandboxClockOptions } from './clock.js';
export { MARKET_MODEL } from './market-model.js';
export { INVALID_JSON } from './validation.js';
