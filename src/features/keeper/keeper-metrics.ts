// `hedge keep --metrics ADDR`: Prometheus metrics and /healthz (503 once the last good cycle is stale).
// Every label value is from a fixed set (anything else is `other`), so a server's code cannot reach the exposition.
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Registry } from 'prom-client';
import { isMarketName } from '../../core/input.js';
import { SIDES } from '../../core/vocabulary.js';
import { UsageError } from '../../core/errors.js';
import { boundedLabel } from '../../core/security/metric-label.js';
import { safeText } from '../../core/security/safe-text.js';
import type { KeepRowStatus } from '../../core/keep-rules.js';

/** A scrape is one short GET from a nearby collector: a slow client is cut, a socket past maxConnections closed on accept; the check interval is shorter than Node's default so the timeouts bite. */
export const METRICS_SERVER_LIMITS = {
  maxConnections: 64,
  headersTimeout: 5_000,
  requestTimeout: 10_000,
  keepAliveTimeout: 5_000,
  connectionsCheckingInterval: 1_000,
};

export type KeeperMetrics = Awaited<ReturnType<typeof serveKeeperMetrics>>;

const KNOWN_SIDES = new Set<string>(SIDES);

export async function serveKeeperMetrics(
  // Where --metrics listens (parsed by keeper-service.ts parseMetricsAddress).
  address: { host: string; port: number },
  options: {
    now: () => number;
    staleAfterMs: number;
    startedAtMs: number;
    /** The error codes counted under their own name (the error catalogue's and the keeper's own); any other is `other`. */
    knownErrorCodes: Iterable<string>;
    /** METRICS_SERVER_LIMITS unless a test needs shorter ones. */
    limits?: Partial<typeof METRICS_SERVER_LIMITS>;
  },
) {
  const knownErrorCodes = new Set(options.knownErrorCodes);
  const limits = { ...METRICS_SERVER_LIMITS, ...options.limits };
  const registry = new Registry();
  // Each is [name, help, ...label names], registered in the exposition's order.
  const [cycles, actions, errors] = [
    ['hedge_keeper_cycles_total', 'Cycles run, by result (good: the book was read and the journal answered)', 'result'],
    ['hedge_keeper_actions_total', 'Actions done: roll, reopen, converge', 'action'],
    ['hedge_keeper_errors_total', 'Error events, by code', 'code'],
  ].map(([name, help, ...labelNames]) => new Counter({ name, help, labelNames, registers: [registry] }));
  const [target, book, sinceLastGood, lastGood] = [
    ['hedge_keeper_target_usd', 'The target notional of each row, USD', 'market', 'side'],
    ['hedge_keeper_book_usd', 'The notional the book held at the last cycle, USD (0 when flat)', 'market', 'side'],
    [
      'hedge_keeper_seconds_since_last_good_cycle',
      'Seconds since the last good cycle (since the start, before the first)',
    ],
    ['hedge_keeper_last_good_cycle_timestamp_seconds', 'When the last good cycle ended, Unix time'],
  ].map(([name, help, ...labelNames]) => new Gauge({ name, help, labelNames, registers: [registry] }));
  let lastGoodMs: number | undefined;
  const since = () => (options.now() - (lastGoodMs ?? options.startedAtMs)) / 1000;
  // node:http by getBuiltinModule: its ES import costs Node >= 22 its undici (api/transport.ts).
  const server = process.getBuiltinModule('node:http').createServer(limits, (request, response) => {
    const path = request.url?.split('?')[0];
    if (!['GET', 'HEAD'].includes(request.method!)) return void response.writeHead(405, { allow: 'GET, HEAD' }).end();
    if (path === '/metrics') {
      sinceLastGood.set(Math.max(0, since()));
      return void registry.metrics().then(
        (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
        () => response.writeHead(500).end(),
      );
    }
    if (path !== '/healthz')
      return void response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: /metrics or /healthz\n');
    const healthy = since() * 1000 <= options.staleAfterMs;
    response.writeHead(healthy ? 200 : 503, { 'content-type': 'application/json' }).end(
      `${JSON.stringify({
        status: healthy ? 'ok' : 'stale',
        last_good_cycle_at: lastGoodMs === undefined ? null : new Date(lastGoodMs).toISOString(),
        seconds_since_last_good_cycle: Math.round(since()),
      })}\n`,
    );
  });
  // Past this many sockets node closes a new one as it is accepted (and emits `drop`).
  server.maxConnections = limits.maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new UsageError(
          `--metrics: cannot listen on ${address.host}:${address.port} (${error.code ?? safeText(error.message)}); choose another address.`,
        ),
      ),
    );
    server.listen(address.port, address.host, () => resolve());
  });
  // The keeper's own end is its signal handling, never a scrape connection left open.
  server.unref();
  // A TCP listen: the bound address is always an AddressInfo.
  const bound = server.address() as AddressInfo;

  return {
    /** The address actually bound ("127.0.0.1:41234"). */
    address: `${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`,
    cycle(good: boolean, atMs: number) {
      cycles.inc({ result: good ? 'good' : 'failed' });
      if (good) lastGood.set((lastGoodMs = atMs) / 1000);
    },
    action: (kind: string) => actions.inc({ action: kind }),
    error: (code: string) => errors.inc({ code: boundedLabel(code, knownErrorCodes) }),
    rows(
      rows: ReadonlyArray<Pick<KeepRowStatus, 'market' | 'side' | 'target_usd' | 'current_usd' | 'current_unknown'>>,
    ) {
      // Set afresh: a row dropped from the target (SIGHUP) leaves the gauges.
      target.reset();
      book.reset();
      for (const row of rows) {
        const labels = { market: boundedLabel(row.market, isMarketName), side: boundedLabel(row.side, KNOWN_SIDES) };
        target.set(labels, row.target_usd);
        // A side the cycle could not tell (settling, the book unread) is left out: a 0 would read as flat.
        if (!row.current_unknown) book.set(labels, row.current_usd ?? 0);
      }
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
