// The transport sends the key to the base URL's origin and nowhere else, and plain http:// only to
// this machine — asserted on real listeners: the simulator on 127.0.0.1, a second HTTP server on
// 127.0.0.2 (another loopback address, so another origin), and a raw TCP listener on the machine's
// own network address that counts every byte it is sent.
import { Agent } from 'node:http';
import {
  createServer as createTcpServer,
  type AddressInfo,
  type LookupFunction,
  type Server as TcpServer,
  type Socket,
} from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpConnections, type TransportConfig } from '../../src/platform/api/transport.js';
import { OffOriginError, UsageError } from '../../src/core/errors.js';
import { clientFor, closeClients } from '../support/client.js';
import { startOtherOrigin, type OtherOrigin } from '../support/servers/other-origin.js';
import { until } from '../support/polling.js';
import { startSimulator, type Simulator } from '../support/simulator.js';

describe("one origin: the transport refuses a request whose URL is not at the base URL's origin", () => {
  let simulator: Simulator;
  let other: OtherOrigin;
  beforeAll(async () => {
    simulator = await startSimulator({ preset: 'plain' });
    other = await startOtherOrigin();
  });
  afterAll(async () => {
    await closeClients();
    await other.close();
    await simulator.close();
  });

  it('a path glued to a base URL without a path that names another host (@127.0.0.2:port/…) is refused: neither server sees a request', async () => {
    // The base URL of the review: scheme, host and port, no path.
    const bare = { ...simulator.sandbox, baseUrl: `http://127.0.0.1:${simulator.sandbox.port}` };
    const { client, sleeps } = clientFor(bare);
    const before = simulator.requests().length;
    const sent = client.transport.send({
      method: 'POST',
      path: `@127.0.0.2:${other.port}/steal`,
      body: { side: 'buy' },
      idempotencyKey: 'origin-test-1',
    });
    await expect(sent).rejects.toBeInstanceOf(OffOriginError);
    await expect(sent).rejects.toThrow(
      `POST @127.0.0.2:${other.port}/steal would leave the base URL's origin (http://127.0.0.1:${simulator.sandbox.port}) for http://127.0.0.2:${other.port}; refused, it was not sent.`,
    );
    expect(sleeps).toEqual([]);
    expect(other.seen).toEqual([]);
    expect(simulator.requests().length).toBe(before);

    // The same client's requests at its own origin go out as ever (the other server is reachable, and untouched).
    await expect(client.transport.send({ method: 'GET', path: '/partners/sandbox/v2/markets' })).resolves.toMatchObject(
      { status: 200 },
    );
    expect(simulator.requests().length).toBe(before + 1);
    expect(other.seen).toEqual([]);
  });
});

/** This machine's own address on a network interface (not loopback), if it has one. */
const networkAddress = Object.values(networkInterfaces())
  .flat()
  .find((entry) => entry !== undefined && entry.family === 'IPv4' && !entry.internal)?.address;

/**
 * The command's connections, except that every name resolves to `address`: what a hosts file or a
 * resolver that sends `localhost` elsewhere does. The connection is real; only the lookup is not.
 */
class ResolvingElsewhere extends HttpConnections {
  readonly agent: Agent;
  constructor(address: string) {
    super();
    const lookup: LookupFunction = (_host, options, callback) => {
      if (options.all)
        (callback as unknown as (error: null, all: Array<{ address: string; family: number }>) => void)(null, [
          { address, family: 4 },
        ]);
      else callback(null, address, 4);
    };
    this.agent = new Agent({ keepAlive: true, lookup } as ConstructorParameters<typeof Agent>[0]);
  }
  override agentFor(_url: URL, _config: TransportConfig) {
    return this.agent;
  }
  override async close() {
    this.agent.destroy();
    await super.close();
  }
}

describe('plain http:// to localhost is written only once connected to a loopback address', () => {
  let listener: TcpServer;
  const received = { connections: 0, bytes: 0, open: new Set<Socket>() };
  beforeAll(async () => {
    if (!networkAddress) return;
    listener = createTcpServer((socket) => {
      received.connections += 1;
      received.open.add(socket);
      socket.on('data', (chunk) => (received.bytes += chunk.length));
      socket.on('error', () => undefined);
      socket.once('close', () => received.open.delete(socket));
    });
    await new Promise<void>((resolve) => listener.listen(0, networkAddress, resolve));
  });
  afterAll(async () => {
    await closeClients();
    if (!listener) return;
    for (const socket of received.open) socket.destroy();
    await new Promise((resolve) => listener.close(resolve));
  });

  it.skipIf(networkAddress === undefined)(
    'localhost resolved to a network address: refused once connected, before a byte of the request (its Authorization header) is written',
    async () => {
      const port = (listener.address() as AddressInfo).port;
      const connections = new ResolvingElsewhere(networkAddress!);
      const target = {
        baseUrl: `http://localhost:${port}/v2`,
        apiKey: 'hpk_test_OriginLoopbackCheck000001',
      } as Simulator['sandbox'];
      const { client, sleeps } = clientFor(target, {
        connections,
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
      expect(received.connections).toBe(1);
      await until(() => received.open.size === 0, 'the refused connection closed');
      expect(received.bytes).toBe(0);
    },
  );
});
