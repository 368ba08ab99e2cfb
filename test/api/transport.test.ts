// The transport's connections (src/platform/api/transport.ts, HttpConnections) against a real sandbox on
// loopback: one kept-alive connection for a command's requests, all of them closed when the
// command's connections close, and a connection that never completes cut by the connect timeout.
// A TCP relay in front of the simulator counts the connections; no mocked network.
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY } from '../../src/platform/api/retry-policy.js';
import { ConnectionsClosedError, HttpConnections, Transport } from '../../src/platform/api/transport.js';
import { NetworkError } from '../../src/core/errors.js';
import { clientFor, closeClients, realClock } from '../support/client.js';
import { until } from '../support/polling.js';
import { startSimulator, type Simulator } from '../support/simulator.js';

interface Relay {
  port: number;
  /** Connections accepted so far. */
  accepted: number;
  /** Connections still open. */
  open: Set<Socket>;
  close(): Promise<void>;
}

/** A TCP relay to `port` on loopback (or, without a port, a listener that accepts and never answers). */
async function startRelay(port?: number) {
  const open = new Set<Socket>();
  const relay: Relay = {
    port: 0,
    accepted: 0,
    open,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((client) => {
    relay.accepted += 1;
    open.add(client);
    client.once('close', () => open.delete(client));
    client.on('error', () => undefined);
    // Silent: what comes is read and dropped (a stream left unread never sees the other side close).
    if (port === undefined) return void client.resume();
    const upstream = connect(port, '127.0.0.1');
    upstream.on('error', () => client.destroy());
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  relay.port = (server.address() as AddressInfo).port;
  const close = relay.close;
  relay.close = async () => {
    for (const socket of open) socket.destroy();
    await close();
  };
  return relay;
}

describe('HTTP connections', () => {
  let simulator: Simulator;
  let relay: Relay;
  beforeAll(async () => {
    simulator = await startSimulator({ preset: 'plain' });
    relay = await startRelay(simulator.sandbox.port);
  });
  afterAll(async () => {
    await closeClients();
    await relay.close();
    await simulator.close();
  });

  it("sends a command's requests over one kept-alive connection, and closes it with the connections", async () => {
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
    expect(simulator.requests('GET', '/markets').length - before).toBe(2);
    expect(simulator.requests('GET', '/account').at(-1)?.status).toBe(200);
    expect(relay.accepted).toBe(1);
    expect(relay.open.size).toBe(1);

    await connections.close();
    await until(() => relay.open.size === 0, 'the kept-alive connection closed');
    // Closed connections take no more requests (nothing would close what they opened): refused at
    // once, not retried, nothing sent.
    await expect(client.listMarkets()).rejects.toBeInstanceOf(ConnectionsClosedError);
    expect(sleeps).toEqual([]);
    expect(relay.accepted).toBe(1);
    expect(simulator.requests('GET', '/markets').length - before).toBe(2);

    // Another command's connections are its own: a new connection.
    const next = clientFor(throughRelay);
    await next.client.listMarkets();
    expect(relay.accepted).toBe(2);
    expect(simulator.requests('GET', '/markets').length - before).toBe(3);
  });
});

describe('the connect timeout', () => {
  it('cuts a connection whose TLS handshake never completes, as a connect timeout (not the request timeout)', async () => {
    const silent = await startRelay();
    const connections = new HttpConnections();
    try {
      const transport = new Transport({
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
      expect((error as NetworkError).code).toBe('UND_ERR_CONNECT_TIMEOUT');
      expect((error as NetworkError).attempts).toBe(1);
      expect(silent.accepted).toBe(1);
      // The connection that never completed is dropped, not left open.
      await until(() => silent.open.size === 0, 'the stalled connection dropped');
    } finally {
      await connections.close();
      await silent.close();
    }
  });
});
