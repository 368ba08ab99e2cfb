// Public surface of the sandbox: the server for tests, the demo and `hedge sandbox serve`; the engine and model
// for unit tests that need no socket.

export {
  SANDBOX_BASE_PATH,
  startSandbox,
  type RequestLogEntry,
  type RunningSandbox,
  type SandboxOptions,
} from './http/server.js';
export { serveSandbox } from './http/serve.js';
export type { MalformedKind } from './http/faults.js';
export { SANDBOX_DIALECTS, type SandboxDialect } from './dialect-names.js';
export { wireDialect } from './dialects.js';
export { HOSTILE_FIELD_NAME, HOSTILE_FIELD_VALUE, HOSTILE_SEQUENCES, HOSTILE_TEXT } from './http/hostile-text.js';
