// The binary against an HTTPS sandbox, trusting its CA the two ways a user would, and through a
// proxy from the environment (the built binary loads undici's proxy code only then).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConnectProxy } from '../support/servers/connect-proxy.js';
import { runHedge } from '../support/hedge-cli.js';
import { startSimulator, type Simulator } from '../support/simulator.js';
import { ok, okJson } from '../support/cli-runs.js';

describe('HTTPS sandbox', () => {
  let simulator: Simulator;
  beforeAll(async () => {
    simulator = await startSimulator({ preset: 'plain', tls: true });
  });
  afterAll(() => simulator.close());

  it('works with NODE_EXTRA_CA_CERTS and with HEDGE_CA_FILE, and explains an untrusted certificate', async () => {
    const [viaNode, viaHedge, untrusted] = await Promise.all([
      runHedge('markets --json', { env: { ...simulator.env, NODE_EXTRA_CA_CERTS: simulator.sandbox.caFile } }),
      runHedge('markets --json', { env: { ...simulator.env, HEDGE_CA_FILE: simulator.sandbox.caFile } }),
      runHedge('markets --json', { env: simulator.env }),
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

  it('goes through HTTPS_PROXY (a CONNECT tunnel) to a remote name, and around it for a host NO_PROXY names', async () => {
    const proxy = await startConnectProxy({ 'sandbox.hedge.test': '127.0.0.1' });
    try {
      const remote = `https://sandbox.hedge.test:${simulator.sandbox.port}${new URL(simulator.baseUrl).pathname}`;
      const env = {
        ...simulator.env,
        HEDGE_BASE_URL: remote,
        HEDGE_CA_FILE: simulator.sandbox.caFile,
        HTTPS_PROXY: proxy.url,
      };
      const proxied = okJson(await runHedge('markets --json', { env }));
      expect(proxied[0].market).toBe('USDTNGN');
      expect(proxy.tunnels).toEqual([`sandbox.hedge.test:${simulator.sandbox.port}`]);
      // Around the proxy, the .test name does not resolve: the command fails without the tunnel.
      const around = await runHedge('markets --json', { env: { ...env, NO_PROXY: 'sandbox.hedge.test' } });
      expect(around.code).toBe(5);
      expect(proxy.tunnels).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it('never sends a loopback request through the proxy, whatever HTTPS_PROXY and NO_PROXY say', async () => {
    const proxy = await startConnectProxy();
    try {
      const env = {
        ...simulator.env,
        HEDGE_CA_FILE: simulator.sandbox.caFile,
        HTTPS_PROXY: proxy.url,
        HTTP_PROXY: proxy.url,
        NO_PROXY: '',
      };
      ok(await runHedge('markets --json', { env }));
      expect(proxy.tunnels).toEqual([]);
      expect(simulator.requests('GET', '/markets').length).toBeGreaterThan(0);
    } finally {
      await proxy.close();
    }
  });
});

describe('plain http:// (the sandbox on loopback) and a proxy in the environment', () => {
  let simulator: Simulator;
  beforeAll(async () => {
    simulator = await startSimulator({ preset: 'plain' });
  });
  afterAll(() => simulator.close());

  it('the key never goes to HTTP_PROXY in clear: the request connects directly, the proxy sees nothing', async () => {
    const proxy = await startConnectProxy();
    try {
      const withCredentials = proxy.url.replace('http://', 'http://desk:proxy-password@');
      for (const name of ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'ALL_PROXY']) {
        const result = await runHedge('account --json', { env: { ...simulator.env, [name]: withCredentials } });
        expect(result.code, `${name}: ${result.stderr}`).toBe(0);
      }
      expect(proxy.tunnels).toEqual([]);
      expect(simulator.requests('GET', '/account')).toHaveLength(4);
    } finally {
      await proxy.close();
    }
  });
});
