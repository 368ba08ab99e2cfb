// The binary against an HTTPS sandbox, trusting its CA the two ways a user would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { runHedge } from '../support/hedge-cli.js';

describe('HTTPS sandbox', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ tls: true });
  });
  afterAll(() => sandbox.close());

  const env = () => ({ HEDGE_BASE_URL: sandbox.baseUrl, HEDGE_API_KEY: sandbox.apiKey });

  it('works with NODE_EXTRA_CA_CERTS and with HEDGE_CA_FILE, and explains an untrusted certificate', async () => {
    const [viaNode, viaHedge, untrusted] = await Promise.all([
      runHedge(['markets', '--json'], { env: { ...env(), NODE_EXTRA_CA_CERTS: sandbox.caFile } }),
      runHedge(['markets', '--json'], { env: { ...env(), HEDGE_CA_FILE: sandbox.caFile } }),
      runHedge(['markets', '--json'], { env: env() }),
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
