// The transport sends the key to the base URL's origin and nowhere else, and plain http:// only to
// this machine — asserted on real listeners: the simulator on 127.0.0.1, a second HTTP server on
// 127.0.0.2 (another loopback address, so another origin), and a raw TCP listener on the machine's
// own network address that counts every byte it is sent.
import { Agent } from 'node:http';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { keyFingerprint } from '../../src/platform/journal/index.js';
import { rowSealer, type SealedFields } from '../../src/platform/journal/row-integrity.js';
import {
  ConnectionsClosedError,
  createTransport,
  DEFAULT_RETRY_POLICY,
  HttpConnections,
} from '../../src/platform/api/transport.js';
import { NetworkError, OffOriginError, UsageError } from '../../src/core/errors.js';
import { clientFor, closeClients, realClock } from '../support/client.js';
import { startFieldProxy } from '../support/servers/field-proxy.js';
import { startOtherOrigin } from '../support/servers/other-origin.js';
import { appendRow } from '../support/journal-rows.js';
import { until } from '../support/polling.js';
import { closedAfterEach, startSimulator, useSimulators, type Simulator } from '../support/simulator.js';
import { exits, lastJson, okJson } from '../support/cli-runs.js';

const start = useSimulators();
/** Second origins, TCP relays (startRelay) and field proxies, each closed after its test. */
const otherOrigin = closedAfterEach(startOtherOrigin);
const relays = closedAfterEach(startRelay);
const fieldProxies = closedAfterEach(startFieldProxy);

/** This machine's own address on a network interface (not loopback), if it has one. */
const networkAddress = Object.values(networkInterfaces())
  .flat()
  .find((entry) => entry !== undefined && entry.family === 'IPv4' && !entry.internal)?.address;

/**
 * The command's connections, except that every name resolves to `address`: what a hosts file or a
 * resolver that sends `localhost` elsewhere does. The connection is real; only the lookup is not.
 */
function resolvingElsewhere(address: string) {
  const agent = new Agent({
    keepAlive: true,
    lookup: (_host, options, callback: any) =>
      options.all ? callback(null, [{ address, family: 4 }]) : callback(null, address, 4),
  });
  return new (class extends HttpConnections {
    override agentFor() {
      return agent;
    }
    override async close() {
      agent.destroy();
      await super.close();
    }
  })();
}

it.skipIf(networkAddress === undefined)(
  'plain http:// to localhost resolved to a network address: refused once connected, before a byte of the request (its Authorization header) is written',
  async () => {
    const listener = await relays(undefined, networkAddress);
    const target = {
      baseUrl: `http://localhost:${listener.port}/v2`,
      apiKey: 'hpk_test_OriginLoopbackCheck000001',
    } as Simulator['sandbox'];
    const { client, sleeps } = clientFor(target, {
      connections: resolvingElsewhere(networkAddress!),
      requestTimeoutSeconds: 2,
      retry: { maxAttempts: 1 },
    });
    const sent = client.transport.send({ method: 'GET', path: '/account' });
    await expect(sent).rejects.toBeInstanceOf(UsageError);
    await expect(sent).rejects.toThrow(
      `Refusing plain http:// to localhost: it connected to ${networkAddress}, which is not a loopback address (plain http:// goes to this machine only); nothing was sent.`,
    );
    expect(sleeps).toEqual([]);
    // It did connect there (the lookup really led there), and the connection was dropped unwritten.
    expect(listener.accepted).toBe(1);
    await until(() => listener.open.size === 0, 'the refused connection closed');
    expect(listener.bytes).toBe(0);
  },
);

// The transport's connections (src/platform/api/transport.ts, HttpConnections) against a real sandbox on
// loopback: one kept-alive connection for a command's requests, all of them closed when the
// command's connections close, and a connection that never completes cut by the connect timeout.
// A TCP relay in front of the simulator counts the connections; no mocked network.
/**
 * A TCP relay to `port` on loopback (or, without a port, a listener on `host` that accepts and never
 * answers): the connections it accepted so far, those still open, and the bytes it was sent.
 */
async function startRelay(port?: number, host = '127.0.0.1') {
  const open = new Set<Socket>();
  const relay = {
    port: 0,
    accepted: 0,
    bytes: 0,
    open,
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = createServer((client) => {
    relay.accepted += 1;
    open.add(client);
    client.once('close', () => open.delete(client));
    client.on('error', () => undefined);
    // Silent: what comes is counted and dropped (a stream left unread never sees the other side close).
    if (port === undefined) return void client.on('data', (chunk) => (relay.bytes += chunk.length));
    const upstream = connect(port, '127.0.0.1');
    upstream.on('error', () => client.destroy());
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  relay.port = (server.address() as AddressInfo).port;
  return relay;
}

it("HTTP connections: a command's requests go over one kept-alive connection, closed with the connections", async () => {
  const simulator = await start({ preset: 'plain' });
  const relay = await relays(simulator.sandbox.port);
  const throughRelay = {
    ...simulator.sandbox,
    baseUrl: simulator.baseUrl.replace(`:${simulator.sandbox.port}`, `:${relay.port}`),
  };
  const connections = new HttpConnections();
  const { client, sleeps } = clientFor(throughRelay, { connections });
  const before = simulator.requests('GET', '/markets').length;
  await client.listMarkets();
  await client.listMarkets();
  await client.getAccount();
  // The server answered all three, and they came over the one connection.
  expect([
    simulator.requests('GET', '/markets').length - before,
    simulator.requests('GET', '/account').at(-1)?.status,
    relay.accepted,
    relay.open.size,
  ]).toEqual([2, 200, 1, 1]);

  await connections.close();
  await until(() => relay.open.size === 0, 'the kept-alive connection closed');
  // Closed connections take no more requests (nothing would close what they opened): refused at
  // once, not retried, nothing sent.
  await expect(client.listMarkets()).rejects.toBeInstanceOf(ConnectionsClosedError);
  expect(sleeps).toEqual([]);
  expect([relay.accepted, simulator.requests('GET', '/markets').length - before]).toEqual([1, 2]);

  // Another command's connections are its own: a new connection.
  const next = clientFor(throughRelay);
  await next.client.listMarkets();
  expect([relay.accepted, simulator.requests('GET', '/markets').length - before]).toEqual([2, 3]);
});

it('the connect timeout: cuts a connection whose TLS handshake never completes, as a connect timeout (not the request timeout)', async () => {
  const silent = await relays();
  const connections = new HttpConnections();
  onTestFinished(() => connections.close());
  const transport = createTransport({
    connections,
    baseUrl: `https://127.0.0.1:${silent.port}/v2`,
    apiKey: 'hpk_test_TransportConnectTimeout01',
    userAgent: 'hedge-test',
    connectTimeoutMs: 200,
    // Far longer than the connect timeout: the code below says which of the two ended the attempt.
    requestTimeoutMs: 60_000,
    proxy: { httpsProxy: '', httpProxy: '', noProxy: '' },
    retry: { ...DEFAULT_RETRY_POLICY, maxAttempts: 1 },
    clock: realClock,
  });
  const error = await transport.send({ method: 'GET', path: '/markets' }).catch((failure) => failure);
  expect(error).toBeInstanceOf(NetworkError);
  expect([error.code, error.attempts, silent.accepted]).toEqual(['UND_ERR_CONNECT_TIMEOUT', 1, 1]);
  // The connection that never completed is dropped, not left open.
  await until(() => silent.open.size === 0, 'the stalled connection dropped');
});

// The key goes to the base URL's origin and nowhere else, and plain http:// only to this machine,
// end to end: the real binary against the simulator on 127.0.0.1, with a second HTTP server on
// 127.0.0.2 (another origin) that records anything it receives. What is asserted is what the two
// servers saw.
it("one origin: an injected journal row `api POST @127.0.0.2:port/steal` is not sent by hedge resume (base URL without a path): exit 2 naming the row, neither server sees a request; a fresh `hedge api` of the same path goes to the base URL's own host, never the other one; the transport refuses a request whose URL is not at the base URL's origin, and the same client's requests at its own origin go out as ever; plain http:// only to loopback: a localhost base URL still reaches the simulator", async () => {
  const t = await start();
  const other = await otherOrigin();
  // The base URL of the review: no path, so a path glued to it can name another host.
  const bare = `http://127.0.0.1:${t.sandbox.port}`;
  const path = `@127.0.0.2:${other.port}/steal`;
  const id = 'j_injected01';
  // Written straight into the journal file, as anyone able to write there (or a team store row) could.
  const sealed: SealedFields = {
    id,
    created_at: new Date().toISOString(),
    environment: 'test',
    base_url_host: `127.0.0.1:${t.sandbox.port}`,
    key_id: keyFingerprint(t.apiKey),
    host: hostname(),
    command: `api POST ${path}`,
    request: { method: 'POST', path, body: { side: 'buy', notional_usd: 66666 } },
    idempotency_key: 'injected-idempotency-key-0001',
  };
  // Unsealed, such a row is refused by its seal first (forged-rows.test.ts). Sealed under the key
  // here, so that what refuses it is the origin check: a row of this key cannot leave the origin either.
  const seal = rowSealer(t.apiKey).seal(sealed);
  appendRow(t.configDir, { ...sealed, seal, argv: ['api', '-X', 'POST', path], outcome: 'pending' });

  const result = exits(await t.hedge(`resume ${id} --json`, { env: { HEDGE_BASE_URL: bare } }), 2);
  expect(lastJson(result.stderr).error).toMatchObject({
    code: 'off_origin',
    class: 'usage',
    message: `Journal ${id} (api POST ${path}) is not resumed: its path "${path}" is not one \`hedge api\` journals (resolved under the base URL it is "/${path}"); nothing was sent.`,
  });
  expect([other.seen, t.requests()]).toEqual([[], []]);
  expect(result.stderr).not.toContain(t.apiKey);

  // A fresh `hedge api` of the same path goes to the base URL's own host, never the other one.
  // The simulator has nothing at that path (404, exit 3): the point is where it was asked.
  exits(await t.hedge(['api', path], { env: { HEDGE_BASE_URL: bare } }), 3);
  expect(t.requests().map((entry) => [entry.method, entry.path])).toEqual([['GET', `/${path}`]]);
  expect(other.seen).toEqual([]);

  // The transport itself refuses a request whose URL is not at the base URL's origin.
  const { client, sleeps } = clientFor({ ...t.sandbox, baseUrl: bare });
  const before = t.requests().length;
  const sent = client.transport.send({
    method: 'POST',
    path,
    body: { side: 'buy' },
    idempotencyKey: 'origin-test-1',
  });
  await expect(sent).rejects.toBeInstanceOf(OffOriginError);
  await expect(sent).rejects.toThrow(
    `POST ${path} would leave the base URL's origin (${bare}) for http://127.0.0.2:${other.port}; refused, it was not sent.`,
  );
  expect([sleeps, other.seen, t.requests().length]).toEqual([[], [], before]);

  // The same client's requests at its own origin go out as ever (the other server is reachable, and untouched).
  await expect(client.transport.send({ method: 'GET', path: '/partners/sandbox/v2/markets' })).resolves.toMatchObject({
    status: 200,
  });
  expect([t.requests().length, other.seen]).toEqual([before + 1, []]);

  // Plain http:// only to loopback: a localhost base URL still reaches the simulator. (A name under .localhost is
  // refused: base-url-origin.test.ts, the rule, its one line, and reliability/bad-input.test.ts, nothing sent.)
  const local = okJson(
    await t.hedge('account --json', {
      env: { HEDGE_BASE_URL: t.baseUrl.replace('//127.0.0.1:', '//localhost:') },
    }),
  );
  expect(local).toHaveProperty('balance_usdc');
  expect(
    t
      .requests()
      .slice(before + 1)
      .map((entry) => [entry.method, entry.path, entry.status]),
  ).toEqual([['GET', '/account', 200]]);
});

// Every client made here has its own keep-alive connections; they are closed when the file ends.
afterAll(closeClients);

describe('errors and retries', () => {
  let simulator: Simulator;
  let sandbox: Simulator['sandbox'];
  beforeAll(async () => {
    simulator = await startSimulator({ seed: 11 });
    sandbox = simulator.sandbox;
  });
  afterAll(() => simulator.close());

  it('retries a burst of 5xx within the attempt bound, with growing backoff', async () => {
    const { client, sleeps } = clientFor(sandbox);
    const before = simulator.requests('GET', '/account').length;
    sandbox.setFaults({ next5xx: 3 });
    await expect(client.getAccount()).resolves.toMatchObject({ balance_usdc: expect.any(Number) });
    expect(simulator.requests('GET', '/account').length - before).toBe(4);
    expect(sleeps).toHaveLength(3);
    // Equal jitter: each wait is between half and all of 50·2^(n-1) ms.
    sleeps.forEach((ms, index) => {
      const full = Math.min(400, 50 * 2 ** index);
      expect(ms).toBeGreaterThanOrEqual(full / 2);
      expect(ms).toBeLessThanOrEqual(full);
    });
  });

  it('the verbose log of a whole run never holds the full key', async () => {
    const { client, log } = clientFor(sandbox);
    await client.listMarkets();
    await client.getAccount();
    await client.getHedge('hdg_nope').catch(() => undefined);
    // Durations and request ids vary; everything else is exact.
    expect(
      log.map((line) => line.replace(/ (\d+ ms|\d+\.\d s|\d+ s) /, ' TIME ').replace(/req_[0-9a-f]{16}/, 'req_ID')),
    ).toEqual([
      '→ GET /markets attempt 1',
      '← 200 GET /markets TIME attempt 1 request-id=req_ID',
      '→ GET /account attempt 1',
      '← 200 GET /account TIME attempt 1 request-id=req_ID',
      '→ GET /hedges/hdg_nope attempt 1',
      '← 404 GET /hedges/hdg_nope TIME attempt 1 request-id=req_ID',
    ]);
    expect(log.join('\n')).not.toContain(sandbox.apiKey);
  });

  // Every read keeps them, through the binary: json-keeps-everything.test.ts.
  it("passes fields the spec does not name through to the caller: an open's answer", async () => {
    const proxy = await fieldProxies(sandbox, 'venue', 'gmx-v2');
    const { client } = clientFor({ ...sandbox, baseUrl: proxy.baseUrl });
    const opened = await client.send(
      'open',
      { market: 'USDTNGN', side: 'sell', notional_usd: 1_000, tenor_days: 1 },
      crypto.randomUUID(),
    );
    expect(opened.venue).toBe('gmx-v2');
  });
});
