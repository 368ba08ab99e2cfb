// A small closed-loop HTTP load generator: `connections` keep-alive connections, each sending
// its next request as soon as the previous answer is read, until `durationMs` has passed or
// `maxRequests` were sent. Loopback only (the bench's own sandbox).
import { Pool } from 'undici';

/**
 * @returns {Promise<{requests: number, ok: number, errors: number, seconds: number, perSecond: number, statuses: Record<string, number>}>}
 */
export async function loadTest({ origin, path, method = 'GET', headers = {}, body, connections, durationMs, maxRequests }) {
  if (!/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(origin)) throw new Error(`load test refused: ${origin} is not loopback`);
  const pool = new Pool(origin, { connections, pipelining: 1 });
  let sent = 0;
  let ok = 0;
  let errors = 0;
  const statuses = {};
  const started = performance.now();
  const deadline = started + durationMs;
  const worker = async () => {
    while (sent < maxRequests && performance.now() < deadline) {
      sent += 1;
      try {
        const response = await pool.request({ path, method, headers, body });
        await response.body.dump();
        statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
        if (response.statusCode >= 200 && response.statusCode < 300) ok += 1;
        else errors += 1;
      } catch {
        errors += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  return { requests: sent, ok, errors, seconds, perSecond: ok / seconds, statuses };
}
