// The binary against an HTTPS sandbox, trusting its CA the two ways a user would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHedge } from '../support/hedge-cli.js';
import { startSimulator, type Simulator } from '../support/simulator.js';

describe('HTTPS sandbox', () => {
  let simulator: Simulator;
  beforeAll(async () => {
    simulator = await startSimulator({ preset: 'plain', tls: true });
  });
  afterAll(() => simulator.close());

  it('works with NODE_EXTRA_CA_CERTS and with HEDGE_CA_FILE, and explains an untrusted certificate', async () => {
    const [viaNode, viaHedge, untrusted] = await Promise.all([
      runHedge(['markets', '--json'], { env: { ...simulator.env, NODE_EXTRA_CA_CERTS: simulator.sandbox.caFile } }),
      runHedge(['markets', '--json'], { env: { ...simulator.env, HEDGE_CA_FILE: simulator.sandbox.caFile } }),
      runHedge(['markets', '--json'], { env: simulator.env }),
    ]);
    expect(viaNode.code, viaNode.stderr).toBe(0);
    expect(JSON.parse(viaNode.stdout)[0].market).toBe('USDTNGN');
    expect(viaHedge.code, viaHedge.stderr).toBe(0);
    expect(JSON.parse(viaHedge.stdout)[0].market).toBe('USDTNGN');
    expect(untrusted.code).toBe(5);
    expect(untrusted.stdout).toBe('');
    expect(untrusted.stderr).toMatch(/not trusted/);
    expect(untrusted.stderr).toMatch(/HEDGE_CA_FILE/);
  });
});
