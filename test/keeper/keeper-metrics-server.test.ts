// The keeper's --metrics server (features/keeper/keeper-service.ts) over real sockets on 127.0.0.1: its label
// values come from a fixed set (an error code the server made up, escape sequences and all, is
// `other`), and it holds at most maxConnections sockets, cutting slow headers after an injected
// timeout, while a normal scrape still answers once they are cut.
import { connect, type Socket } from 'node:net';
import {
  METRICS_SERVER_LIMITS,
  serveKeeperMetrics,
  type KeeperMetrics,
} from '../../src/features/keeper/keeper-service.js';
import { until } from '../support/polling.js';

const NOW = Date.parse('2026-03-02T09:00:00Z');

const opened: KeeperMetrics[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const metrics of opened.splice(0)) await metrics.close();
});

async function serve(options: Partial<Parameters<typeof serveKeeperMetrics>[1]> = {}) {
  const metrics = await serveKeeperMetrics(
    { host: '127.0.0.1', port: 0 },
    {
      now: () => NOW,
      staleAfterMs: 60_000,
      startedAtMs: NOW,
      knownErrorCodes: ['capacity_exceeded', 'heartbeat'],
      ...options,
    },
  );
  opened.push(metrics);
  return metrics;
}

async function scrape(metrics: KeeperMetrics) {
  const response = await fetch(`http://${metrics.address}/metrics`);
  return { status: response.status, text: await response.text() };
}

it('--metrics labels: an error code outside the known set is counted as `other` (one series for any number of new codes); a row is labelled by its market only when it is a market name, and by its side only when it is buy or sell; no escape byte reaches the exposition; a side the cycle could not tell (settling, the book unread) has no book series, never a 0 that reads as flat', async () => {
  const metrics = await serve();
  for (const code of [
    'capacity_exceeded',
    'code\u001b]52;c;ZXZpbA==\u0007\u001b[2J',
    'brand_new_code_1',
    'brand_new_code_2',
    'heartbeat',
  ])
    metrics.error(code);
  metrics.rows([
    { market: 'USDTNGN', side: 'buy', target_usd: 1000, current_usd: 900 },
    { market: 'USD\u001b]0;pwned\u0007', side: 'sell\u202e', target_usd: 2000, current_usd: null },
  ]);
  const { status, text } = await scrape(metrics);
  expect(status).toBe(200);
  expect(text.match(/^hedge_keeper_errors_total\{.*/gm)!.sort()).toEqual([
    'hedge_keeper_errors_total{code="capacity_exceeded"} 1',
    'hedge_keeper_errors_total{code="heartbeat"} 1',
    'hedge_keeper_errors_total{code="other"} 3',
  ]);
  for (const line of [
    'hedge_keeper_target_usd{market="USDTNGN",side="buy"} 1000',
    'hedge_keeper_target_usd{market="other",side="other"} 2000',
    'hedge_keeper_book_usd{market="other",side="other"} 0',
  ])
    expect(text).toContain(line);
  expect(text).not.toMatch(/brand_new_code|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
  // A row gone from the target leaves the gauges, `other` included.
  metrics.rows([{ market: 'USDTNGN', side: 'buy', target_usd: 1000, current_usd: 1000 }]);
  const after = (await scrape(metrics)).text;
  expect(after).not.toContain('market="other"');
  expect(after).toContain('hedge_keeper_book_usd{market="USDTNGN",side="buy"} 1000');

  // A side the cycle could not tell (settling, the book unread) has no book series, never a 0 that reads as flat.
  metrics.rows([{ market: 'USDTNGN', side: 'sell', target_usd: 2000, current_usd: 2000 }]);
  expect((await scrape(metrics)).text).toContain('hedge_keeper_book_usd{market="USDTNGN",side="sell"} 2000');
  metrics.rows([
    { market: 'USDTNGN', side: 'sell', target_usd: 2000, current_usd: null, current_unknown: true },
    { market: 'USDTNGN', side: 'buy', target_usd: 1000, current_usd: null },
  ]);
  const untold = (await scrape(metrics)).text;
  expect(untold).toContain('hedge_keeper_target_usd{market="USDTNGN",side="sell"} 2000');
  expect(untold).not.toMatch(/^hedge_keeper_book_usd\{market="USDTNGN",side="sell"\}/m);
  expect(untold).toContain('hedge_keeper_book_usd{market="USDTNGN",side="buy"} 0');
});

/** A socket that sends a request line and one header, never the blank line that ends the headers. */
function slowHeaders(address: string) {
  const colon = address.lastIndexOf(':');
  const socket = connect(Number(address.slice(colon + 1)), address.slice(0, colon));
  sockets.push(socket);
  let received = '';
  let closed = false;
  socket.setEncoding('utf8');
  socket.on('data', (chunk) => (received += chunk));
  socket.on('error', () => undefined);
  socket.on('close', () => (closed = true));
  socket.on('connect', () => socket.write('GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n'));
  return { socket, received: () => received, closed: () => closed };
}

it(`the --metrics server: holds at most ${METRICS_SERVER_LIMITS.maxConnections} sockets (one more is closed as it comes), cuts slow headers with a 408 after the header timeout, and a scrape answers again`, async () => {
  const maxConnections = METRICS_SERVER_LIMITS.maxConnections;
  // The shipped connection bound; the header timeout shortened so the test does not wait 5 s.
  const metrics = await serve({
    limits: { headersTimeout: 2_000, requestTimeout: 4_000, connectionsCheckingInterval: 50 },
  });
  const held = Array.from({ length: maxConnections }, () => slowHeaders(metrics.address));
  await until(
    () => held.every((client) => client.socket.readyState === 'open' || client.closed()),
    'the first sockets connected',
  );
  const excess = Array.from({ length: 16 }, () => slowHeaders(metrics.address));

  // Each socket past the bound is closed by the server without a byte of answer, while the ones it
  // holds are still open: they were cut by the bound, not by the header timeout.
  await until(() => excess.every((client) => client.closed()), 'the excess sockets closed by the server');
  expect(excess.map((client) => client.received())).toEqual(excess.map(() => ''));
  expect(held.filter((client) => client.closed())).toHaveLength(0);

  // The held ones are answered 408 and closed once their headers are late.
  await until(() => held.every((client) => client.closed()), 'the held sockets cut after the header timeout');
  for (const client of held) expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);

  expect(await scrape(metrics)).toMatchObject({
    status: 200,
    text: expect.stringContaining('hedge_keeper_cycles_total'),
  });
});

it('the --metrics server: ships bounds a scrape never meets: a few seconds for headers and the request, a small number of sockets', () => {
  const { headersTimeout, requestTimeout, connectionsCheckingInterval, maxConnections } = METRICS_SERVER_LIMITS;
  expect(headersTimeout).toBeLessThanOrEqual(10_000);
  expect(requestTimeout).toBeGreaterThanOrEqual(headersTimeout);
  expect(requestTimeout).toBeLessThanOrEqual(30_000);
  expect(connectionsCheckingInterval).toBeLessThanOrEqual(headersTimeout);
  expect(maxConnections).toBeGreaterThan(0);
  expect(maxConnections).toBeLessThanOrEqual(256);
});
