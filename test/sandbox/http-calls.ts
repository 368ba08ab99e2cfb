// Shorter calls to a simulator's server: a GET's data (whatever its status), and a POST of a body.
import { api, type ApiResult, type ApiTarget } from '../support/simulator.js';

export const read = async (target: ApiTarget, path: string) => (await api(target, 'GET', path)).body.data;

export const post = (target: ApiTarget, path: string, body: unknown, idempotencyKey?: string) =>
  api(target, 'POST', path, { body, idempotencyKey });

/** An answer as [status, error code]. */
export const answered = ({ status, body }: ApiResult) => [status, body.error?.code];

/** A GET's status. */
export const statusOf = async (target: ApiTarget, path: string) => (await api(target, 'GET', path)).status;
