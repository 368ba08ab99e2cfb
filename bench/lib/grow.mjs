// Grows a sandbox through real HTTP writes, as clients grow it (src/sandbox/growth.ts does the
// same through engine calls, for tests): on each side, open a hedge, close it, again and again.
// The sandbox runs with a fill delay of 0, so a fill lands before the next request on its side is
// handled and no clock has to be moved: every write is a real request with its Idempotency-Key,
// and the server's indexes, queues and idempotency records grow the way traffic grows them.
// Loopback only (the bench's own sandboxes).
import { Pool } from 'undici';

/**
 * One worker per market and side, each on its own keep-alive connection, so that several writes
 * are in flight (the server handles them one at a time, as it would a busy desk's).
 * @param {object} target  {baseUrl, apiKey}
 * @param {object} options {markets: string[], hedges, keyPrefix}
 * @returns {Promise<{writes: number, seconds: number}>}
 */
export async function growOverHttp(target, { markets, hedges, keyPrefix }) {
  const url = new URL(target.baseUrl);
  if (!/^(127\.0\.0\.1|localhost|\[::1\])$/.test(url.hostname)) throw new Error(`growth refused: ${url.origin} is not loopback`);
  const lanes = markets.flatMap((market) => [{ market, side: 'buy' }, { market, side: 'sell' }]);
  const pool = new Pool(url.origin, { connections: lanes.length, pipelining: 1 });
  const headers = { authorization: `Bearer ${target.apiKey}`, accept: 'application/json', 'content-type': 'application/json' };
  let writes = 0;
  const write = async (path, body) => {
    const key = `${keyPrefix}-${(writes += 1)}`;
    const response = await pool.request({ path: `${url.pathname}${path}`, method: 'POST', headers: { ...headers, 'idempotency-key': key }, body: JSON.stringify(body) });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`POST ${path} answered ${response.statusCode}: ${text.slice(0, 300)}`);
  };
  // Each lane: open, close, open, close … (a side holds one open hedge at a time).
  const lane = async ({ market, side }, count) => {
    for (let index = 0; index < count; index++) {
      await write('/hedges', { market, side, notional_usd: 1_000, tenor_days: 7, client_reference: `${keyPrefix}-${market}-${side}-${index}` });
      await write('/hedges/close', { market, side });
    }
  };
  const started = process.hrtime.bigint();
  try {
    await Promise.all(lanes.map((one, index) => lane(one, Math.floor(hedges / lanes.length) + (index < hedges % lanes.length ? 1 : 0))));
  } finally {
    await pool.close();
  }
  return { writes, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

/**
 * `count` sequential GETs of `path` on one keep-alive connection; checks each answers 200.
 * @returns {Promise<{seconds: number}>}
 */
export async function readOverHttp(target, path, count) {
  const url = new URL(target.baseUrl);
  const pool = new Pool(url.origin, { connections: 1, pipelining: 1 });
  const headers = { authorization: `Bearer ${target.apiKey}`, accept: 'application/json' };
  const started = process.hrtime.bigint();
  try {
    for (let index = 0; index < count; index++) {
      const response = await pool.request({ path: `${url.pathname}${path}`, method: 'GET', headers });
      const text = await response.body.text();
      if (response.statusCode !== 200) throw new Error(`GET ${path} answered ${response.statusCode}: ${text.slice(0, 300)}`);
    }
  } finally {
    await pool.close();
  }
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

/**
 * Opens one hedge on each market and side (left open: positions), each write with its
 * Idempotency-Key. The fill delay is 0, so they are filled by the next request.
 * @returns {Promise<number>} how many were opened
 */
export async function openOverHttp(target, { markets, keyPrefix }) {
  const url = new URL(target.baseUrl);
  const pool = new Pool(url.origin, { connections: 1, pipelining: 1 });
  const headers = { authorization: `Bearer ${target.apiKey}`, accept: 'application/json', 'content-type': 'application/json' };
  let opened = 0;
  try {
    for (const market of markets) {
      for (const side of ['buy', 'sell']) {
        const body = JSON.stringify({ market, side, notional_usd: 1_000, tenor_days: 7, client_reference: `${keyPrefix}-${market}-${side}` });
        const response = await pool.request({ path: `${url.pathname}/hedges`, method: 'POST', headers: { ...headers, 'idempotency-key': `${keyPrefix}-${(opened += 1)}` }, body });
        const text = await response.body.text();
        if (response.statusCode !== 200) throw new Error(`POST /hedges answered ${response.statusCode}: ${text.slice(0, 300)}`);
      }
    }
  } finally {
    await pool.close();
  }
  return opened;
}
