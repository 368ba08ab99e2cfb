// Failures before a request can leave this machine, on the built CLI: an https:// base URL meeting a
// plain-HTTP server (no TLS: the simulator logs no request), and a port where nothing listens (every
// connection refused). Each says that nothing was sent and what to do; a write so refused is journaled
// as not sent (abandoned), never "outcome unknown"; and a server that refused a whole request's retries
// is tried once by the command's next request, not retried again. Pauses run on a skipping clock.
import { createServer } from 'node:net';
import { skippingClock, startSimulator, type Simulator } from '../support/simulator.js';
import { runHedge, tempFolders } from '../support/hedge-cli.js';
import { exits } from '../support/cli-runs.js';
import { KEY_A } from '../support/engine.js';

const configDir = tempFolders('hedge-refused-');

/** A loopback port nothing listens on: one the system just gave out and took back. */
async function closedPort() {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('https:// to a plain-HTTP server', () => {
  let simulator: Simulator;
  beforeAll(async () => {
    simulator = await startSimulator({ preset: 'plain' });
  });
  afterAll(() => simulator.close());

  it('says the server did not answer in TLS and gives the http:// base URL to use (loopback); exit 5, nothing sent', async () => {
    const tls = simulator.baseUrl.replace(/^http:/, 'https:');
    const result = exits(await runHedge('markets --json', { env: { ...simulator.env, HEDGE_BASE_URL: tls } }), 5);
    const { error } = JSON.parse(result.stderr);
    const host = new URL(simulator.baseUrl).host;
    expect(error).toMatchObject({
      class: 'network',
      details: { endpoint: 'GET /markets', attempts: 1, not_sent: true },
      hint: `If the server speaks plain HTTP (as \`hedge sandbox serve\` does without --tls), use ${simulator.baseUrl} as the base URL: plain http:// is allowed to loopback addresses.`,
    });
    // OpenSSL's reason, where it gives one (`wrong version number`), is quoted beside the code.
    expect(error.message).toMatch(
      new RegExp(
        `^${host.replace(/\./g, '\\.')} did not answer in TLS on GET /markets \\(EPROTO(: [a-z ]+)?\\): it may speak plain HTTP on that port; nothing was sent\\.$`,
      ),
    );
    expect(result.stdout).toBe('');
    expect(simulator.requests()).toEqual([]);
    // The hint runs as printed: the base URL it gives serves the same command.
    const baseUrl = /use (\S+) as the base URL/.exec(error.hint)![1];
    exits(await runHedge('markets --json', { env: { ...simulator.env, HEDGE_BASE_URL: baseUrl } }), 0);
    expect(simulator.requests().map((entry) => [entry.path, entry.status])).toEqual([['/markets', 200]]);
  });

  it('a live key is never told to use plain http:// (refused for it): it is told to check the port, or to use a test key there; exit 5, nothing sent', async () => {
    const tls = simulator.baseUrl.replace(/^http:/, 'https:');
    const live = 'hpk_live_AAAAAAAAAAAAAAAAAAAAAAAA';
    const env = { HEDGE_BASE_URL: tls, HEDGE_API_KEY: live };
    const before = simulator.requests().length;
    const { error } = JSON.parse(exits(await runHedge('markets --json', { env }), 5).stderr);
    expect(error.hint).toBe(
      "A live key goes over https:// only (plain http:// to this machine is for test keys and the simulator): check the base URL's port, or use a test key against a plain-HTTP server.",
    );
    // What it was not told: the plain-http:// base URL, refused for a live key before anything is sent.
    const plain = exits(
      await runHedge('markets', { env: { ...env, HEDGE_BASE_URL: simulator.baseUrl } }),
      2,
      'with a live key: a live key goes only over https://',
    );
    expect(plain.stdout).toBe('');
    expect(simulator.requests().slice(before)).toEqual([]);
  });
});

describe('a port where nothing listens', () => {
  it('open: the pre-trade reads retried, then the quote tried once; one line saying the connection was refused and nothing was sent; exit 5, nothing journaled', async () => {
    const dir = configDir();
    const env = { HEDGE_BASE_URL: `http://127.0.0.1:${await closedPort()}/v2`, HEDGE_API_KEY: KEY_A };
    const result = exits(
      await runHedge('open USDTNGN buy 10000 --tenor 3 --yes --verbose', {
        env,
        configDir: dir,
        clock: skippingClock(),
      }),
      5,
    );
    const attempts = (endpoint: string) => result.stderr.split(`→ ${endpoint} attempt`).length - 1;
    // Each read its documented 5 attempts; the quote after them once: the server refused everything before it.
    expect([attempts('GET /markets'), attempts('GET /account'), attempts('POST /quotes')]).toEqual([5, 5, 1]);
    expect(result.stderr).toContain(
      `hedge: Could not connect to 127.0.0.1:${new URL(env.HEDGE_BASE_URL).port} on POST /quotes: the connection was refused (ECONNREFUSED: nothing listens there); nothing was sent.\n`,
    );
    expect(result.stderr).not.toMatch(/outcome is unknown|idempotency key/);
    const journal = await runHedge('journal --json', { env, configDir: dir });
    expect(JSON.parse(journal.stdout)).toEqual([]);
  });

  it('a write whose every attempt was refused is journaled as not sent (abandoned), and says so: never "outcome unknown"', async () => {
    const dir = configDir();
    const env = { HEDGE_BASE_URL: `http://127.0.0.1:${await closedPort()}/v2`, HEDGE_API_KEY: KEY_A };
    const result = exits(
      await runHedge('api -X POST /hedges/close -f market=USDTNGN -f side=buy --json', {
        env,
        configDir: dir,
        clock: skippingClock(),
      }),
      5,
    );
    const { error } = JSON.parse(result.stderr.trim().split('\n').at(-1)!);
    expect(error.message).toMatch(
      /the connection was refused \(ECONNREFUSED: nothing listens there\) \(after 5 attempts\); nothing was sent\.$/,
    );
    expect(error.details).toMatchObject({ attempts: 5, not_sent: true });
    expect(error.hint).not.toMatch(/outcome is unknown/);
    const [entry] = JSON.parse((await runHedge('journal --json', { env, configDir: dir })).stdout);
    expect(entry).toMatchObject({ command: 'api POST /hedges/close', outcome: 'abandoned' });
    expect(entry.message).toMatch(/^not sent: Could not connect to /);
  });
});
