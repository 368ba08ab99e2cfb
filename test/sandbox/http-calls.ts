// Shorter calls to a simulator's server: a GET's data (whatever its status), a POST of a body, the
// data of a successful answer (any other fails the test), and sandbox time moved to an instant.
import { join } from 'node:path';
import { type RunningSandbox } from '../../src/sandbox/http/server.js';
import { tempFolders } from '../support/hedge-cli.js';
import {
  api,
  apiData,
  useSimulators,
  type ApiResult,
  type ApiTarget,
  type SimulatorOptions,
} from '../support/simulator.js';

export const read = async (target: ApiTarget, path: string) => (await api(target, 'GET', path)).body.data;

export const post = (target: ApiTarget, path: string, body: unknown, idempotencyKey?: string) =>
  api(target, 'POST', path, { body, idempotencyKey });

/** An answer as [status, error code]. */
export const answered = ({ status, body }: ApiResult) => [status, body.error?.code];

/** A GET's status. */
export const statusOf = async (target: ApiTarget, path: string) => (await api(target, 'GET', path)).status;

export const getData = (target: ApiTarget, path: string) => apiData(target, 'GET', path);
export const postData = (target: ApiTarget, path: string, body: unknown) => apiData(target, 'POST', path, body);

/** The hedge ids of the positions list, line by line. */
export const lineIds = async (target: ApiTarget) =>
  (await getData(target, '/positions')).map((line: { hedge_id: string }) => line.hedge_id);

/** Simulators' servers (the quick preset, `defaults`, then a test's options), closed after each test. */
export function useSandboxes(defaults: SimulatorOptions = {}) {
  const simulators = useSimulators();
  return async (options: SimulatorOptions = {}) =>
    (await simulators({ preset: 'quick', ...defaults, ...options })).sandbox;
}

/** A state file's path, in a folder of its own removed after the test (close what uses it first). */
export function useStateFiles() {
  const folder = tempFolders('hedge-sandbox-state-');
  return () => join(folder(), 'state.json');
}

/** Moves sandbox time to `atMs` (never back). */
export const moveTo = (sandbox: RunningSandbox, atMs: number) => sandbox.clock.advance(atMs - sandbox.clock.now());
