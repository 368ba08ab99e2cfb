// `hedge doctor` through the real binary: it passes against every wire dialect with no wire setting
// (and sends no write), and fails with the right line and exit code against a wrong key (4), a
// wrong base URL (5), a server whose clock is off (5), an answer it cannot read (14), and a config
// store or journal a write could not use (the code the write ends with; a CA file: guarded-files.test.ts).
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { SANDBOX_DIALECTS } from '../../src/sandbox/dialect-names.js';
import { wireDialect } from '../../src/sandbox/dialects.js';
import { startFieldProxy } from '../support/servers/field-proxy.js';
import { LIVE_KEY, UNKNOWN_KEY } from '../support/keys.js';
import { STACK_FRAME } from '../support/output/text.js';
import { runHedge, tempDir, type RunOptions } from '../support/hedge-cli.js';
import { envFor, useSimulators, withSimulator, type Simulator } from '../support/simulator.js';
import { ok, exits, okJson } from '../support/cli-runs.js';

const start = useSimulators({ fillDelayMs: 20 });

/**
 * `doctor --json`'s report, no stack trace; `check(id)`: one of its checks; `failed`: the ids of those that failed;
 * `failsAt(exit, id, fields)`: not ready, exit `exit`, its `id` check failed (a write being what it stands for) with `fields`.
 */
async function doctor(simulator: Simulator, env: RunOptions['env'] = {}, configDir?: string) {
  const { code, stdout, stderr } = await simulator.hedge('doctor --json', { env, configDir });
  expect(stderr).not.toMatch(STACK_FRAME);
  const report = JSON.parse(stdout);
  const failed = report.checks.flatMap((check: any) => (check.status === 'fail' ? [check.check] : []));
  const check = (id: string) => byId(report.checks, id);
  const failsAt = (exit: number, id: string, fields: object) =>
    expect([code, report, check(id)]).toMatchObject([
      exit,
      { ready: false, exit_code: exit },
      { status: 'fail', for_writes: true, ...fields },
    ]);
  return { code, report, stderr, failed, check, failsAt };
}

/** A check's detail saying to run `command`. */
const fix = (command: string) => ({ detail: expect.stringContaining(`run \`${command}\``) });
const byId = (checks: any[], id: string) => checks.find((check) => check.check === id);
/** Nothing state-changing reached the server: its only POST is the indicative quote. */
const writes = (simulator: Simulator) => simulator.writes().filter((entry) => entry.path !== '/quotes');

/** The page-size check: one hedge asked with `limit`, what came, what was learned; never "too few hedges to page". */
const PAGE_SIZE_CHECK = {
  reference: '`limit` honoured (1 asked, 1 came)',
  alpha: "`limit` is ignored (1 asked, 4 came); hedge trims lists to --limit and follows the server's pages",
  beta: 'the server refused `limit`; it takes `per_page` (learned)',
  gamma: '`page_size`: the answer states it and honoured it (`limit` is ignored) — learned',
  delta: '`limit` honoured (1 asked, 1 came)',
  epsilon: '`size`: the answer states it and honoured it (`limit` is ignored) — learned',
};

describe.concurrent(
  'hedge doctor passes against every dialect, with no wire setting, its page-size check naming what the server does with `limit`',
  () => {
    it.each(SANDBOX_DIALECTS)('%s', (dialect) =>
      withSimulator({ dialect, fillDelayMs: 20 }, async (simulator) => {
        const market = wireDialect(dialect).markets.find((listed) => listed.status === 'open')!.market;
        simulator.seedOpen('buy', 10_000, market);
        simulator.sandbox.seedHedges({ apiKey: simulator.apiKey, count: 3 });
        const { code, report, check, failed } = await doctor(simulator);
        expect([code, report.ready]).toEqual([0, true]);
        expect(failed).toEqual([]);
        for (const id of 'key base_url journal auth clock markets prices quote account positions hedges hedge history'.split(
          ' ',
        )) {
          expect(check(id), `${dialect}: ${id}`).toMatchObject({ status: 'ok' });
        }
        expect(check('markets').detail).toContain(market);
        expect(check('quote').detail).toContain(market);
        expect(check('hedges').detail).toContain('(4 read)');
        expect(check('wire.page_size')).toMatchObject({
          status: dialect === 'alpha' ? 'warn' : 'ok',
          detail: PAGE_SIZE_CHECK[dialect],
        });
        expect(simulator.requests('GET', '/hedges').some((entry) => entry.query.limit === '1')).toBe(true);
        expect(check('wire.prices').status).toBe('info');
        expect(check('wire.positions').detail).toMatch(/net margin from `net_margin_usd`/);
        expect(writes(simulator)).toEqual([]);
        expect(simulator.requests('POST', '/quotes')).toHaveLength(1);
      }),
    );

    it('the human report: a ✓ line per check and the verdict', () =>
      withSimulator({ dialect: 'gamma', fillDelayMs: 20, rateLimit: 1000 }, async (simulator) => {
        const result = ok(await simulator.hedge('doctor --format table', { env: { COLUMNS: '120' } }));
        expect(result.stdout).toMatch(/^✓ Key +hpk_test…\w{4} — test key/m);
        expect(result.stdout).toMatch(/^✓ Markets +3 listed; open: USDTKES, USDTGHS; also USDTNGN \(disabled\)/m);
        expect(result.stdout).toMatch(/^· Rate limits +x-ratelimit-limit: 1000/m);
        // gamma's decimal strings are shown without float noise (1506.9279999999999).
        expect(result.stdout).toMatch(/^✓ Prices +USDTNGN \d[\d.]*\b/m);
        expect(`${result.stdout}\n${result.stderr}`).not.toMatch(/\d\.\d{9,}/);
        expect(result.stderr).toContain('Ready: everything a write needs works.');
      }));
  },
);

describe('hedge doctor fails with the right line', () => {
  it('a key the server does not know: "Key accepted" fails, exit 4, the reads not asked; a base URL that does not serve the API, or where nothing listens: "Base URL" fails naming the 404 or the refused connection, exit 5; an account hedge cannot read: "Account" fails naming the field and what came, exit 14', async () => {
    const simulator = await start();
    const { stderr, check, failsAt } = await doctor(simulator, { HEDGE_API_KEY: UNKNOWN_KEY });
    expect(check('key').status).toBe('ok');
    failsAt(4, 'auth', {
      detail: expect.stringMatching(/the server refused the key: GET \/markets answered 401 unauthorized/),
      // The key is HEDGE_API_KEY here: a login alone would not replace it.
      next: expect.stringMatching(
        /it is HEDGE_API_KEY, which comes before any saved profile; set the right key there.*hedge login/,
      ),
    });
    expect(check('reads').status).toBe('skip');
    expect(stderr).toMatch(/Not ready: a write would fail \(✗ Key accepted\)/);
    expect(simulator.requests().map((entry) => `${entry.method} ${entry.path} ${entry.status}`)).toEqual([
      'GET /markets 401',
    ]);

    // A base URL that does not serve the API, or where nothing listens: "Base URL" fails naming the 404 or the refused connection, exit 5.
    const wrong = simulator.baseUrl.replace(/\/v2$/, '/v9');
    (await doctor(simulator, { HEDGE_BASE_URL: wrong })).failsAt(5, 'base_url', {
      detail: `${wrong} — GET /markets answered 404 not_found: this address does not serve the API`,
      next: expect.stringMatching(/ending with the version segment/),
    });
    expect(simulator.writes()).toEqual([]);

    // A port of this machine nothing listens on (discard, 9).
    (await doctor(simulator, { HEDGE_BASE_URL: 'http://127.0.0.1:9/v2' })).failsAt(5, 'base_url', {
      detail: expect.stringMatching(/ECONNREFUSED/),
    });

    // An account hedge cannot read: "Account" fails naming the field and what came, exit 14.
    const proxy = await startFieldProxy(simulator.sandbox, 'balance_usdc', 'n/a');
    try {
      const account = await doctor(simulator, envFor(proxy));
      account.failsAt(14, 'account', {
        detail: expect.stringMatching(
          /data\.balance_usdc is "n\/a" \(text\), where a number \(or a numeric string\) is expected/,
        ),
        next: expect.stringMatching(/hedge account --verbose/),
      });
      expect(account.check('positions').status).toBe('ok');
    } finally {
      await proxy.close();
    }
  });

  it('a server whose clock runs 10 minutes ahead: "Clock" fails, exit 5; everything else passes', async () => {
    const simulator = await start({ dateSkewMs: 600_000 });
    const { failsAt, failed } = await doctor(simulator);
    // The Date header has whole seconds: 10 min, give or take one.
    failsAt(5, 'clock', {
      detail: expect.stringMatching(
        /^the server's clock is (9 min 59 s|10 min|10 min 1 s) ahead of this machine's, give or take [\d.]+ m?s \(from its Date header\): more than 30 s apart$/,
      ),
      next: expect.stringMatching(/NTP/),
    });
    expect(failed).toEqual(['clock']);
  });

  it("a Date header 5 min behind the times in the server's records: the records' clock is used, the header named; ready, exit 0", async () => {
    const simulator = await start({ dateSkewMs: -300_000 });
    // Opened on the server's own clock, which is ours: its opened_at proves the server is not 5 minutes behind.
    simulator.seedOpen('buy', 1_000);
    const { code, report, check } = await doctor(simulator);
    const clock = check('clock');
    expect(clock.status, clock.detail).toBe('warn');
    expect(clock.detail).toMatch(
      /^the server's clock is at (least|most) [\d.]+ m?s (ahead of|behind) this machine's \(from the stamps on its answers; nothing bounds it from above: its Date header is (4 min 5\d s|5 min( 1 s)?) behind the times in its records, so not used\)$/,
    );
    expect([code, report.ready]).toEqual([0, true]);
    expect(writes(simulator)).toEqual([]);
  });

  it('a server that sends no Date header, its clock 45 s ahead: the Clock line bounds it from the stamps on its answers', async () => {
    const simulator = await start({ noDateHeader: true });
    simulator.advance(45_000);
    ok(await simulator.hedge('open USDTNGN buy 1000 --tenor 1 --yes --json'));
    const { check } = await doctor(simulator);
    const clock = check('clock');
    expect(clock.status).toBe('fail');
    // The newest stamp (the fill just made) lies before doctor's answer came back: a bound from below.
    const [, seconds] =
      /^the server's clock is at least (\d+) s ahead of this machine's \(from the stamps on its answers; nothing bounds it from above: no Date header\): more than 30 s apart$/.exec(
        clock.detail,
      ) ?? [];
    expect(Number(seconds), clock.detail).toBeGreaterThan(30);
    expect(Number(seconds)).toBeLessThanOrEqual(45);
  });

  it('a journal others may change: "Journal" fails naming the chmod, exit 13, as the write it stands for is refused; a config store others may read, a state folder others may change: doctor exits as the write would (1, 2), naming the fix', async () => {
    const simulator = await start();
    const journal = join(simulator.configDir, 'journal.jsonl');
    writeFileSync(journal, '', { mode: 0o600 });
    chmodSync(journal, 0o620);
    const { stderr, failsAt } = await doctor(simulator);
    failsAt(13, 'journal', {
      detail: expect.stringContaining(
        `${journal}: other users can change it (mode 0620); run \`chmod go-w ${journal}\``,
      ),
    });
    expect(stderr).toMatch(/Not ready: a write would fail \(✗ Journal\)/);
    // What doctor said is what a write meets: refused before anything is sent.
    const open = 'open USDTNGN buy 1000 --tenor 1 --yes';
    exits(await simulator.hedge(open), 13);
    expect(simulator.trades()).toEqual([]);

    // The key in a profile whose store others may read: "Key and base URL" fails as a write does, exit 1.
    const configDir = join(simulator.configDir, 'config');
    ok(await simulator.hedge(['login', '--base-url', simulator.baseUrl], { configDir, input: simulator.apiKey }));
    chmodSync(join(configDir, 'config.json'), 0o640);
    const store = { configDir, env: { HEDGE_API_KEY: undefined, HEDGE_BASE_URL: undefined } };
    (await doctor(simulator, store.env, configDir)).failsAt(
      1,
      'key',
      fix(`chmod 600 ${join(configDir, 'config.json')}`),
    );
    exits(await simulator.hedge(open, store), 1);
    // The journal's folder (no HEDGE_CONFIG_DIR: the state folder) others may change: "Journal" fails, exit 2.
    const state = join(simulator.configDir, 'state');
    mkdirSync(join(state, 'hedge'), { recursive: true, mode: 0o700 });
    chmodSync(join(state, 'hedge'), 0o777);
    const stateEnv = { env: { HEDGE_CONFIG_DIR: undefined, XDG_STATE_HOME: state } };
    (await doctor(simulator, stateEnv.env)).failsAt(2, 'journal', fix(`chmod 700 ${join(state, 'hedge')}`));
    exits(await simulator.hedge(open, stateEnv), 2);
    expect(simulator.trades()).toEqual([]);
  });
});

it('hedge --demo doctor: says the demo is reached over its own local socket, not a network address, and passes', async () => {
  const result = await runHedge('--demo doctor --json');
  expect(result.stderr).not.toMatch(STACK_FRAME);
  const report = okJson(result);
  expect([report.ready, byId(report.checks, 'base_url'), byId(report.checks, 'auth').status]).toMatchObject([
    true,
    {
      status: 'ok',
      detail: expect.stringMatching(
        /^http:\/\/localhost\/partners\/sandbox\/v2 — plain HTTP over the demo simulator's own local socket, in this process/,
      ),
    },
    'ok',
  ]);
});

it('NODE_EXTRA_CA_CERTS naming a FIFO (Node waits on it as it starts, before hedge runs: here a writer lets it go on): the node_ca check fails naming the FIFO and the fix, without opening it to block, exit 2; a regular CA file there passes', async () => {
  const simulator = await start();
  const dir = tempDir();
  onTestFinished(dir.remove);
  const fifo = join(dir.path, 'ca.pem');
  execFileSync('mkfifo', [fifo]);
  // Node opens the FIFO for reading as it starts: a writer that opens and closes it gives Node an end of file.
  const letNodeStart = () => void open(fifo, 'w').then((handle) => handle.close());
  const { code, stdout, stderr } = await simulator.hedge('doctor --json', {
    env: { NODE_EXTRA_CA_CERTS: fifo },
    onSpawn: letNodeStart,
  });
  expect(stderr).not.toMatch(STACK_FRAME);
  const report = JSON.parse(stdout);
  expect([code, report.ready]).toEqual([2, false]);
  expect(byId(report.checks, 'node_ca')).toMatchObject({
    status: 'fail',
    for_writes: true,
    detail: `NODE_EXTRA_CA_CERTS: cannot read ${fifo}: it is a FIFO (named pipe), not a regular file.`,
    next: expect.stringContaining('`unset NODE_EXTRA_CA_CERTS`'),
  });
  const ca = join(dir.path, 'real-ca.pem');
  writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n', { mode: 0o600 });
  const passing = await simulator.hedge('doctor --json', { env: { NODE_EXTRA_CA_CERTS: ca } });
  expect(byId(JSON.parse(passing.stdout).checks, 'node_ca')).toMatchObject({ status: 'ok' });
});

it('NODE_TLS_REJECT_UNAUTHORIZED=0 in the environment: with a live key the node_tls check fails naming it and nothing is asked (exit 2); with a test key it is a warning, as hedge verifies certificates anyway', async () => {
  const simulator = await start();
  const off = { NODE_TLS_REJECT_UNAUTHORIZED: '0' };
  const live = await runHedge('doctor --json', {
    env: { ...off, HEDGE_API_KEY: LIVE_KEY, HEDGE_BASE_URL: 'https://127.0.0.1:9/partners/sandbox/v2' },
  });
  const report = JSON.parse(live.stdout);
  expect([live.code, report.ready]).toEqual([2, false]);
  expect(byId(report.checks, 'node_tls')).toMatchObject({ status: 'fail', for_writes: true });
  expect(report.checks.map((check: { check: string }) => check.check)).toEqual(['key', 'node_tls']);
  const test = okJson(await simulator.hedge('doctor --json', { env: off }));
  expect(byId(test.checks, 'node_tls')).toMatchObject({ status: 'warn' });
});
