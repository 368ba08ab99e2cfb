// The binary against an HTTPS sandbox, trusting its CA the two ways a user would, and through a
// proxy from the environment (the built binary loads undici's proxy code only then).
import { chmodSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { startConnectProxy } from '../support/servers/connect-proxy.js';
import { hedgeIn, runHedge, tempDir } from '../support/hedge-cli.js';
import { writeStore } from '../support/config-store.js';
import { parseRetryAfterMs } from '../../src/platform/api/transport.js';
import { LIVE_KEY } from '../support/keys.js';
import { startLiveKeyProxy } from '../support/servers/field-proxy.js';
import { apiData, closedAfterEach, type Simulator, startSimulator, useSimulators } from '../support/simulator.js';
import { exits, ok, okJson } from '../support/cli-runs.js';

/** CONNECT proxies, closed after each test. */
const proxies = closedAfterEach(startConnectProxy);

describe('HTTPS sandbox', () => {
  let simulator: Simulator;
  beforeAll(async () => {
    simulator = await startSimulator({ preset: 'plain', tls: true });
  });
  afterAll(() => simulator.close());

  it('works with NODE_EXTRA_CA_CERTS and with HEDGE_CA_FILE, and explains an untrusted certificate', async () => {
    const [viaNode, viaHedge, untrusted] = await Promise.all([
      runHedge('markets --json', { env: { ...simulator.env, NODE_EXTRA_CA_CERTS: simulator.sandbox.caFile } }),
      // By the name localhost, which the sandbox's certificate names too.
      runHedge('markets --json', {
        env: {
          ...simulator.env,
          HEDGE_CA_FILE: simulator.sandbox.caFile,
          HEDGE_BASE_URL: simulator.baseUrl.replace('127.0.0.1', 'localhost'),
        },
      }),
      runHedge('markets --json', { env: simulator.env }),
    ]);
    expect([okJson(viaNode)[0].market, okJson(viaHedge)[0].market]).toEqual(['USDTNGN', 'USDTNGN']);
    expect(exits(untrusted, 5, 'not trusted', 'HEDGE_CA_FILE').stdout).toBe('');
  });

  it('a NODE_EXTRA_CA_CERTS others may change is refused as a HEDGE_CA_FILE would be (exit 2, the chmod), before the key is sent', async () => {
    const dir = tempDir();
    onTestFinished(dir.remove);
    const ca = join(dir.path, 'ca.pem');
    copyFileSync(simulator.sandbox.caFile!, ca);
    chmodSync(ca, 0o666);
    const before = simulator.requests().length;
    const result = await runHedge('markets --json', { env: { ...simulator.env, NODE_EXTRA_CA_CERTS: ca } });
    expect(exits(result, 2, `NODE_EXTRA_CA_CERTS: cannot read ${ca}`, `chmod go-w ${ca}`).stdout).toBe('');
    expect(simulator.requests()).toHaveLength(before);
  });

  it('goes through HTTPS_PROXY (a CONNECT tunnel) to a remote name, and around it for a host NO_PROXY names; never sends a loopback request through the proxy, whatever HTTPS_PROXY and NO_PROXY say', async () => {
    const proxy = await proxies({ 'sandbox.hedge.test': '127.0.0.1' });
    const remote = `https://sandbox.hedge.test:${simulator.sandbox.port}${new URL(simulator.baseUrl).pathname}`;
    const env = {
      ...simulator.env,
      HEDGE_BASE_URL: remote,
      HEDGE_CA_FILE: simulator.sandbox.caFile,
      HTTPS_PROXY: proxy.url,
    };
    const proxied = okJson(await runHedge('markets --json', { env }));
    expect(proxied[0].market).toBe('USDTNGN');
    const tunnels = [`sandbox.hedge.test:${simulator.sandbox.port}`];
    expect(proxy.tunnels).toEqual(tunnels);
    // Around the proxy, the .test name does not resolve: the command fails without the tunnel.
    exits(await runHedge('markets --json', { env: { ...env, NO_PROXY: 'sandbox.hedge.test' } }), 5);
    const before = simulator.requests('GET', '/markets').length;
    ok(
      await runHedge('markets --json', {
        env: { ...env, HEDGE_BASE_URL: simulator.baseUrl, HTTP_PROXY: proxy.url, NO_PROXY: '' },
      }),
    );
    expect(proxy.tunnels).toEqual(tunnels);
    expect(simulator.requests('GET', '/markets')).toHaveLength(before + 1);
  });
});

const start = useSimulators();

it('plain http:// (the sandbox on loopback) and a proxy in the environment: the key never goes to HTTP_PROXY in clear: the request connects directly, the proxy sees nothing', async () => {
  const simulator = await start({ preset: 'plain' });
  const proxy = await proxies();
  const withCredentials = proxy.url.replace('http://', 'http://desk:proxy-password@');
  for (const name of ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'ALL_PROXY']) {
    ok(await runHedge('account --json', { env: { ...simulator.env, [name]: withCredentials } }));
  }
  expect(proxy.tunnels).toEqual([]);
  expect(simulator.requests('GET', '/account')).toHaveLength(4);
});

it('a live key goes only over https://: plain http:// to loopback (HEDGE_BASE_URL or a profile) is refused in one line before any request, exit 2; a test key keeps plain http:// to loopback, and the live key goes over https://', async () => {
  const simulator = await start({ preset: 'plain' });
  const live = { ...simulator.env, HEDGE_API_KEY: LIVE_KEY };
  const refused = exits(await runHedge('markets', { env: live }), 2);
  expect(refused.stderr).toBe(
    'hedge: Refusing plain http:// to 127.0.0.1 (from HEDGE_BASE_URL) with a live key: a live key goes only over https:// (plain http:// to this machine is for test keys and the simulator); nothing was sent.\n',
  );
  const dir = tempDir();
  onTestFinished(dir.remove);
  writeStore(dir.path, { current: 'prod', profiles: { prod: { base_url: simulator.baseUrl, api_key: LIVE_KEY } } });
  exits(await hedgeIn(dir.path, 'account'), 2, '(from profile "prod") with a live key');
  expect(simulator.requests()).toEqual([]);
  ok(await runHedge('markets --json', { env: simulator.env }));
  const https = await startLiveKeyProxy(simulator.sandbox, { served: false });
  onTestFinished(https.close);
  exits(await runHedge('markets --json', { env: https.env }), 4, 'live_key_refused');
  expect(simulator.requests().map((entry) => [entry.path, entry.status])).toEqual([
    ['/markets', 200],
    ['/markets', 401],
  ]);
});

it('a Retry-After that is neither seconds nor an HTTP-date (-5, -0.5, soon, 1e3) is taken as absent: the retries keep the usual backoff (300 ms doubling, half of it jitter), never at once', async () => {
  expect(['-5', '-0.5', 'soon', '1e3', '+5'].map((value) => parseRetryAfterMs(value, Date.UTC(2026, 2, 2)))).toEqual([
    undefined,
    undefined,
    undefined,
    undefined,
    undefined,
  ]);
  expect(parseRetryAfterMs('Mon, 02 Mar 2026 00:00:02 GMT', Date.UTC(2026, 2, 2))).toBe(2_000);
  const simulator = await start({ skipping: true });
  simulator.sandbox.setFaults({ next503RetryAfter: { count: 3, retryAfter: '-5' } });
  ok(await simulator.hedge('account --json'));
  const times = simulator.requests('GET', '/account').map((entry) => entry.realTimeMs);
  expect(simulator.requests('GET', '/account').map((entry) => entry.status)).toEqual([503, 503, 503, 200]);
  const gaps = times.slice(1).map((time, at) => time - times[at]);
  // Equal jitter: at least half of 300, 600 and 1,200 ms.
  gaps.forEach((gap, at) => expect(gap, `gap ${at + 1}`).toBeGreaterThanOrEqual(150 * 2 ** at));
});

// Server faults through the real binary: a 503 with Retry-After as an HTTP-date is waited out before
// the one retry (in seconds: reliability/faults-retry.test.ts, on a 429), a Retry-After past the budget is reported instead of waited, and an
// answer over the size cap (HEDGE_MAX_ANSWER_MB) is a clear error that is not retried. The
// simulator's request log (its own receive times) is the evidence.

/** Markets without the price, which moves with the clock between the CLI's read and the test's. */
const withoutPrice = (markets: Array<Record<string, unknown>>) => markets.map(({ price: _price, ...rest }) => rest);

it('an answer over the size cap is a clear error naming the cap, exit 5, not retried, a JSON document with its code under --json; one under the cap, padded, is read whole; a cap that is not a size in MiB is refused in one line naming HEDGE_MAX_ANSWER_MB, exit 2, nothing sent; Retry-After on a 503: an HTTP-date: the retry comes no sooner than that date; longer than the retry budget allows: reported at once (exit 5), not waited out', async () => {
  const simulator = await start();
  for (const value of ['lots', '0', '0x10']) {
    const result = await simulator.hedge('markets', { env: { HEDGE_MAX_ANSWER_MB: value } });
    expect([result.code, result.stdout], value).toEqual([2, '']);
    expect(result.stderr.trim().split('\n')[0]).toMatch(
      /^hedge: HEDGE_MAX_ANSWER_MB: .* is not allowed; expected MiB above 0/,
    );
  }
  expect(simulator.requests('GET', '/markets')).toEqual([]);

  const capped = { env: { HEDGE_MAX_ANSWER_MB: '1' } };
  const oversize = (bytes: number) => simulator.sandbox.setFaults({ nextOversized: { count: 1, bytes } });
  oversize(4 * 1024 * 1024);
  const result = exits(
    await simulator.hedge('markets', capped),
    5,
    'GET /markets answered with more than 1 MiB; reading stopped there.',
    'HEDGE_MAX_ANSWER_MB',
  );
  expect(result.stdout).toBe('');
  expect(simulator.requests('GET', '/markets').map((entry) => entry.fault)).toEqual(['oversized']);

  oversize(4 * 1024 * 1024);
  const json = exits(await simulator.hedge('hedges --json', capped), 5);
  expect(simulator.requests('GET', '/hedges')).toHaveLength(1);
  expect(`${json.stdout}${json.stderr}`).toContain('answer_too_large');

  oversize(512 * 1024);
  const read = okJson(await simulator.hedge('markets --json', capped));
  expect(withoutPrice(read)).toEqual(withoutPrice(await apiData(simulator, 'GET', '/markets')));
  expect(simulator.requests('GET', '/markets')[1].fault).toBe('oversized');

  // HTTP-dates have whole seconds: the next whole second at least 1.5 s away.
  const retryAt = Math.ceil((Date.now() + 1500) / 1000) * 1000;
  simulator.sandbox.setFaults({ next503RetryAfter: { count: 1, retryAfter: new Date(retryAt).toUTCString() } });
  ok(await simulator.hedge('account --json'));
  const [refused, retried] = simulator.requests('GET', '/account');
  expect([refused.status, retried.status]).toEqual([503, 200]);
  expect(retried.realTimeMs).toBeGreaterThanOrEqual(retryAt);

  simulator.sandbox.setFaults({ next503RetryAfter: { count: 1, retryAfter: '120' } });
  expect(exits(await simulator.hedge('markets'), 5, '503').stdout).toBe('');
  // One request more: the CLI did not wait two minutes (runHedge would have timed out) nor retry.
  expect(simulator.requests('GET', '/markets')).toHaveLength(4);
});

it("NODE_TLS_REJECT_UNAUTHORIZED=0 with a live key against another's https listener on loopback: refused in one line naming the variable, exit 2, no request reaches it; with a test key hedge verifies the certificate anyway (not trusted, exit 5, nothing sent)", async () => {
  const { generateCertificates } = await import('../../src/sandbox/http/tls.js');
  const { createServer } = await import('node:https');
  const certificates = await generateCertificates();
  let requests = 0;
  const server = createServer({ key: certificates.key, cert: certificates.cert }, (_req, res) => {
    requests += 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[],"error":null,"meta":{}}');
  });
  const { listening } = await import('../support/servers/loopback.js');
  const { port, close } = await listening(server as never);
  onTestFinished(() => close().finally(() => certificates.cleanup()));
  const env = {
    HEDGE_BASE_URL: `https://127.0.0.1:${port}/partners/sandbox/v2`,
    NODE_TLS_REJECT_UNAUTHORIZED: '0',
  };
  const live = exits(await runHedge('markets', { env: { ...env, HEDGE_API_KEY: LIVE_KEY } }), 2);
  expect(live.stderr).toBe(
    "hedge: Refusing to send a live key with NODE_TLS_REJECT_UNAUTHORIZED=0 in the environment (it turns TLS certificate checks off for Node programs): unset NODE_TLS_REJECT_UNAUTHORIZED, and point HEDGE_CA_FILE at a proxy's CA if you need one; nothing was sent.\n",
  );
  exits(
    await runHedge('markets', { env: { ...env, HEDGE_API_KEY: 'hpk_test_AbCdEfGhIjKlMnOpQrStUvWx' } }),
    5,
    'not trusted',
  );
  expect(requests).toBe(0);
});

/** A Node that reads NODE_EXTRA_CA_CERTS only once TLS is first used (Node 26; HEDGE_TEST_LAZY_CA_NODE names one), on a
 * thread the process waits for at exit; this machine's Node when it is one. */
const LAZY_CA_NODE =
  process.env.HEDGE_TEST_LAZY_CA_NODE || (Number(process.versions.node.split('.')[0]) >= 26 ? process.execPath : '');

it.skipIf(!LAZY_CA_NODE)(
  'NODE_EXTRA_CA_CERTS naming a FIFO, on a Node that reads it lazily: the refusal ends the process at once, exit 2, nothing sent (needs Node 26 or HEDGE_TEST_LAZY_CA_NODE)',
  async () => {
    const { spawn, execFileSync } = await import('node:child_process');
    const { HEDGE_BIN, ROOT, baseEnv } = await import('../support/hedge-cli.js');
    const simulator = await start({ preset: 'plain', tls: true });
    const dir = tempDir();
    onTestFinished(dir.remove);
    const fifo = join(dir.path, 'ca.pem');
    execFileSync('mkfifo', [fifo]);
    const child = spawn(LAZY_CA_NODE, [HEDGE_BIN, 'markets'], {
      cwd: ROOT,
      env: { ...baseEnv(dir.path), ...simulator.env, NODE_EXTRA_CA_CERTS: fifo },
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    // A bound on the hang this guards against, far beyond a start on a loaded machine.
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const [code] = await new Promise<[number | null]>((resolve) => child.on('close', (exit) => resolve([exit])));
    clearTimeout(killer);
    expect([code, stderr]).toEqual([
      2,
      `hedge: NODE_EXTRA_CA_CERTS: cannot read ${fifo}: it is a FIFO (named pipe), not a regular file; nothing was sent.\n`,
    ]);
    expect(simulator.requests()).toEqual([]);
  },
);
