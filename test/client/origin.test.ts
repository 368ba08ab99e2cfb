// The transport sends the key to the base URL's origin and nowhere else — asserted on real
// listeners: the simulator on 127.0.0.1 and a second HTTP server on 127.0.0.2 (another loopback
// address, so another origin).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OffOriginError } from '../../src/errors.js';
import { clientFor, closeClients } from '../support/client.js';
import { startOtherOrigin, type OtherOrigin } from '../support/other-origin.js';
import { startSimulator, type Simulator } from '../support/simulator.js';

describe('one origin: the transport refuses a request whose URL is not at the base URL\'s origin', () => {
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
    const sent = client.transport.send({ method: 'POST', path: `@127.0.0.2:${other.port}/steal`, body: { side: 'buy' }, idempotencyKey: 'origin-test-1' });
    await expect(sent).rejects.toBeInstanceOf(OffOriginError);
    await expect(sent).rejects.toThrow(`POST @127.0.0.2:${other.port}/steal would leave the base URL's origin (http://127.0.0.1:${simulator.sandbox.port}) for http://127.0.0.2:${other.port}; refused, it was not sent.`);
    expect(sleeps).toEqual([]);
    expect(other.seen).toEqual([]);
    expect(simulator.requests().length).toBe(before);

    // The same client's requests at its own origin go out as ever (the other server is reachable, and untouched).
    await expect(client.transport.send({ method: 'GET', path: '/partners/sandbox/v2/markets' })).resolves.toMatchObject({ status: 200 });
    expect(simulator.requests().length).toBe(before + 1);
    expect(other.seen).toEqual([]);
  });
});
