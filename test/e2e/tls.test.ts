// The binary against an HTTPS sandbox, trusting its CA the two ways a user would, and through a
// proxy from the environment (the built binary loads undici's proxy code only then).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConnectProxy } from '../support/connect-proxy.js';
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

  it('goes through HTTPS_PROXY (a CONNECT tunnel), and around it for a host NO_PROXY names', async () => {
    const proxy = await startConnectProxy();
    try {
      const env = { ...simulator.env, HEDGE_CA_FILE: simulator.sandbox.caFile, HTTPS_PROXY: proxy.url };
      const proxied = await runHedge(['markets', '--json'], { env });
      expect(proxied.code, proxied.stderr).toBe(0);
      expect(JSON.parse(proxied.stdout)[0].market).toBe('USDTNGN');
      expect(proxy.tunnels).toEqual([`127.0.0.1:${simulator.sandbox.port}`]);
      const around = await runHedge(['markets', '--json'], { env: { ...env, NO_PROXY: '127.0.0.1' } });
      expect(around.code, around.stderr).toBe(0);
      expect(proxy.tunnels).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });
});
