// The first day on a real service, end to end against the simulator with no wire
// setting: the add/reduce amount's name learned from the first refusal (journaled as a refused
// entry and a new one, kept in the config store, shown by whoami, forgotten by reset-wire), lists
// that never lose rows across pages, optional checks that warn instead of blocking, a status the
// spec does not list, and exit 14 for an answer hedge cannot read. Every assertion that involves
// the server is made on its own state and request log.
import { keeperTest } from '../support/keeper.js';
import { existsSync } from 'node:fs';
import { readStore, storeFile, writeStore } from '../support/config-store.js';
import { ApiError } from '../../src/core/errors.js';
import { notionalFieldFrom } from '../../src/platform/api/wire/unspecified.js';
import { startAnswerProxy, startFieldProxy, type FieldProxy } from '../support/servers/field-proxy.js';
import { until } from '../support/polling.js';
import { STACK_FRAME } from '../support/output/text.js';
import { apiData, envFor, type Simulator } from '../support/simulator.js';
import { type SandboxDialect } from '../../src/sandbox/dialect-names.js';
import { exits, journalEntries, lastJson, ok, okJson } from '../support/cli-runs.js';

/** What the config store keeps as learned per server (undefined when there is no store at all). */
const learnedIn = (configDir: string) =>
  existsSync(storeFile(configDir)) ? readStore(configDir).learned_wire : undefined;

/**
 * A simulator of this dialect whose fills land in 20 ms, and the environment that sends hedge through
 * a proxy, each closed when its test ends: the tests run side by side (most of their time is hedge
 * waiting out its retries), each closing only its own.
 */
const it = (
  name: string,
  body: (
    on: (dialect?: SandboxDialect, fillDelayMs?: number) => Promise<Simulator>,
    through: (starting: Promise<FieldProxy>) => Promise<Record<string, string>>,
  ) => Promise<void>,
) =>
  keeperTest(name, ({ rig }) =>
    body(
      (dialect, fillDelayMs = 20) => rig.start({ dialect, fillDelayMs }),
      async (starting) => {
        const proxy = await starting;
        rig.later(() => proxy.close());
        return envFor(proxy);
      },
    ),
  );

/** Closed hedges written straight into the simulator's history; their ids. */
const seeded = (simulator: Simulator, count: number) =>
  simulator.sandbox.seedHedges({ apiKey: simulator.apiKey, count });
/** `list` holds exactly the hedges of `ids`, in any order. */
/** The hedge ids of hedges or history records. */
const idsOf = (rows: any[]) => rows.map((row) => row.id ?? row.hedge_id);
const sameIds = (list: any[], ids: string[]) => expect(new Set(idsOf(list))).toEqual(new Set(ids));
/** `hedges --all --json` lists every one of `ids`; its stderr. */
const listsAll = async (simulator: Simulator, ids: string[], env?: Record<string, string>) => {
  const result = ok(await simulator.hedge('hedges --all --json', { env }));
  sameIds(JSON.parse(result.stdout), ids);
  return result.stderr;
};
/** The queries of the GETs of `path` the simulator answered, and [status, query] of each. */
const queries = (simulator: Simulator, path: string) => simulator.requests('GET', path).map((entry) => entry.query);
const statusQueries = (simulator: Simulator, path: string) =>
  simulator.requests('GET', path).map((entry) => [entry.status, entry.query]);

describe.concurrent('learning the add/reduce amount from the server', () => {
  it('gamma: the first add is refused for its field name and sent again once under a new key; the second add sends one request', async (on) => {
    const simulator = await on('gamma');
    const hedge = simulator.seedOpen('buy', 10_000, 'USDTKES');

    const first = ok(await simulator.hedge('add USDTKES buy 5000 --json'));
    const adds = simulator.requests('POST', '/hedges/add');
    expect(adds.map((entry) => [entry.status, entry.errorCode, Object.keys(entry.body as object).sort()])).toEqual([
      [400, 'validation_error', ['market', 'notional_usd', 'side']],
      [200, null, ['market', 'notional_change_usd', 'side']],
    ]);
    // A new key for the second send: the refused one stands for a request that did nothing.
    expect(adds[0].idempotencyKey).not.toBe(adds[1].idempotencyKey);
    expect(simulator.hedges()).toMatchObject([{ id: hedge.id, notionalUsd: 15_000 }]);
    expect(first.stderr).toMatch(
      /Learned from the server: the add\/reduce amount goes as `notional_change_usd` \(.*\); kept for /,
    );

    // Journaled as such: the refused entry rejected (naming the retry), a new entry done.
    const [retry, refused] = (await journalEntries(simulator)).filter((entry) => entry.command === 'add');
    expect(refused).toMatchObject({
      outcome: 'rejected',
      error_code: 'validation_error',
      idempotency_key: adds[0].idempotencyKey,
    });
    expect(refused.message).toContain(`sent again as ${retry.id}`);
    expect(retry).toMatchObject({
      outcome: 'done',
      idempotency_key: adds[1].idempotencyKey,
      context: { retry_of: refused.id, learned: { notional_field: 'notional_change_usd' } },
    });
    expect(retry.request.body).toEqual({ market: 'USDTKES', side: 'buy', notional_change_usd: 5000 });

    // Kept for this server (credentials from the environment: keyed by base URL).
    expect(learnedIn(simulator.configDir)).toEqual({ [simulator.baseUrl]: { notional_field: 'notional_change_usd' } });
    const whoami = okJson(await simulator.hedge('whoami --json'));
    expect(whoami.wire.changeNotionalField).toEqual({
      value: 'notional_change_usd',
      source: 'learned',
      env: 'HEDGE_WIRE_NOTIONAL_FIELD',
      learned_for: simulator.baseUrl,
    });
    expect(whoami.wire.pageSizeParam).toMatchObject({ value: 'limit', source: 'default' });
    // The card says what was learned; the guesses only with --verbose, in words, a cursor name taken from the answer too.
    const screen = { env: { HEDGE_FORCE_TTY: '1', COLUMNS: '120' } };
    const plain = (await simulator.hedge('whoami', screen)).stdout;
    expect(plain).toMatch(/Wire changeNotionalField +│ notional_change_usd \(learned from the server, kept for /);
    expect(plain).not.toMatch(/guessed|HEDGE_WIRE_PAGE_SIZE_PARAM|Wire pageSizeParam/);
    const card = (await simulator.hedge('whoami --verbose', screen)).stdout;
    expect(card).toMatch(/Wire changeNotionalField +│ notional_change_usd \(learned from the server, kept for /);
    expect(card).toMatch(
      /Wire pageSizeParam +│ limit \(guessed: the spec does not show it; HEDGE_WIRE_PAGE_SIZE_PARAM\)/,
    );
    expect(card).toMatch(/Wire cursorParam +│ from the answer \(next_cursor → cursor\) \(guessed: /);

    // The second add: one request, the server's own name at once, nothing said about learning.
    const second = ok(await simulator.hedge('add USDTKES buy 1000 --json'));
    expect(
      simulator
        .requests('POST', '/hedges/add')
        .slice(2)
        .map((entry) => [entry.status, entry.body]),
    ).toEqual([[200, { market: 'USDTKES', side: 'buy', notional_change_usd: 1000 }]]);
    expect(second.stderr).not.toMatch(/Learned/);

    // reset-wire forgets it; a setting you give yourself always wins over what was learned.
    expect(okJson(await simulator.hedge('profile reset-wire --json'))).toEqual({
      scope: simulator.baseUrl,
      forgotten: [`${simulator.baseUrl}: notional_field=notional_change_usd`],
    });
    expect(learnedIn(simulator.configDir)).toBeUndefined();
    ok(
      await simulator.hedge('reduce USDTKES buy 1000 --json', {
        env: { HEDGE_WIRE_NOTIONAL_FIELD: 'notional_change_usd' },
      }),
    );
    expect(simulator.requests('POST', '/hedges/reduce').map((entry) => entry.status)).toEqual([200]);
  });

  it('beta: an add left unknown is resumed with the body it was journaled with, under its key, once the learned name is forgotten', async (on) => {
    const simulator = await on('beta');
    const hedge = simulator.seedOpen('buy', 10_000);
    ok(await simulator.hedge('add USDTNGN buy 1000 --json'));
    // The next add goes out under the learned name and its answer never comes: outcome unknown (exit 5).
    simulator.sandbox.setFaults({ stall: 'headers', match: { method: 'POST', path: '/hedges/add' } });
    const running = simulator.hedge('add USDTNGN buy 700 --again --request-timeout 0.5 --json');
    await until(() => simulator.requests('POST', '/hedges/add').length === 3, 'the add held', { process: running });
    simulator.sandbox.setFaults({ stall: null, next503RetryAfter: { count: 9, retryAfter: '0' } });
    expect((await running).code).toBe(5);
    simulator.sandbox.setFaults({ next503RetryAfter: null, match: null });
    // What was learned is gone (forgotten, or never kept by a run killed after it sent): the journal still knows the body.
    ok(await simulator.hedge('profile reset-wire --json'));
    const [entry] = await journalEntries(simulator, '--pending');
    expect(entry.request.body).toEqual({ market: 'USDTNGN', side: 'buy', delta_usd: 700 });

    ok(await simulator.hedge(['resume', entry.id, '--json']));
    const sent = simulator
      .requests('POST', '/hedges/add')
      .filter((one) => one.idempotencyKey === entry.idempotency_key);
    expect(sent.at(-1)).toMatchObject({ status: 200, body: { market: 'USDTNGN', side: 'buy', delta_usd: 700 } });
    expect(sent.filter((one) => one.status === 200)).toHaveLength(1);
    expect(simulator.hedges()).toMatchObject([{ id: hedge.id, notionalUsd: 11_700 }]);
  });

  it('a server naming its amount in another unit or scale (notional_kusd, amount_ngn, notional_cents, amountEur): the add is not sent again under it, the refusal names the field (exit 3), nothing is kept; a learned name in another unit found in the store is not used', async (on, through) => {
    const simulator = await on('beta');
    const hedge = simulator.seedOpen('buy', 10_000);
    for (const asked of ['notional_kusd', 'amount_ngn', 'notional_cents', 'amountEur']) {
      // Beta's refusal names `delta_usd`; this server names its own field in another unit.
      const env = await through(
        startAnswerProxy(simulator.sandbox, (_request, envelope) => {
          const error = envelope.error as { message: string; details: Record<string, unknown> } | undefined;
          if (error?.details?.field !== 'delta_usd') return;
          error.details.field = asked;
          error.message = error.message.replace('delta_usd', asked);
        }),
      );
      const before = simulator.requests('POST', '/hedges/add').length;
      const run = exits(await simulator.hedge('add USDTNGN buy 100 --json', { env }), 3);
      expect(
        simulator
          .requests('POST', '/hedges/add')
          .slice(before)
          .map((entry) => [entry.status, entry.body]),
      ).toEqual([[400, { market: 'USDTNGN', side: 'buy', notional_usd: 100 }]]);
      expect(lastJson(run.stderr).error).toMatchObject({
        code: 'validation_error',
        details: { field: asked },
        hint: expect.stringContaining(`as \`${asked}\`, a name that counts it in another unit or scale than USD`),
      });
      expect(run.stderr).not.toMatch(/Learned from the server: the add\/reduce amount|Sending the add again/);
      expect(
        Object.values(learnedIn(simulator.configDir) ?? {}).filter((names) => 'notional_field' in (names as object)),
      ).toEqual([]);
    }
    expect(simulator.hedges()).toMatchObject([{ id: hedge.id, notionalUsd: 10_000 }]);
    // A name in another unit kept by an earlier hedge: not sent; the default goes, refused and learned anew in USD.
    writeStore(simulator.configDir, { learned_wire: { [simulator.baseUrl]: { notional_field: 'notional_kusd' } } });
    ok(await simulator.hedge('add USDTNGN buy 100 --json'));
    expect(
      simulator
        .requests('POST', '/hedges/add')
        .slice(-2)
        .map((entry) => [entry.status, entry.body]),
    ).toEqual([
      [400, { market: 'USDTNGN', side: 'buy', notional_usd: 100 }],
      [200, { market: 'USDTNGN', side: 'buy', delta_usd: 100 }],
    ]);
    expect(simulator.hedges()).toMatchObject([{ id: hedge.id, notionalUsd: 10_100 }]);
  });

  test('which amount names keep the number in USD: USD, USDC and USDT, or no unit named; any other word is another unit or scale', () => {
    const refusal = (field: string, code = 'validation_error') =>
      new ApiError({
        status: 400,
        code,
        message: `${field} is required`,
        endpoint: 'POST /hedges/add',
        details: { field },
      });
    const sent = { market: 'USDTNGN', side: 'buy', notional_usd: 100 };
    const unitOf = (field: string) => notionalFieldFrom(refusal(field), sent)?.unit;
    for (const field of [
      'amount_usd',
      'usd_notional',
      'notional',
      'amount',
      'delta_usd',
      'notional_change_usd',
      'sizeUsd',
      'amount_usdc',
      'notional_usdt',
      'quantity',
    ])
      expect([field, unitOf(field)]).toEqual([field, 'usd']);
    for (const field of [
      'notional_kusd',
      'amount_ngn',
      'notional_cents',
      'notionalKUSD',
      'amount_usd_k',
      'usd_minor',
      'amount_eur',
      'notional_musd',
      'value_bps',
      'notional_usd_e6',
      'amount_in_thousands',
    ])
      expect([field, unitOf(field)]).toEqual([field, 'other']);
    // Not an amount's name at all, or the name hedge sent: nothing learned.
    for (const field of ['market', 'side', 'tenor_days', 'notional_usd'])
      expect([field, unitOf(field)]).toEqual([field, undefined]);
    // A key still in flight is no clear refusal, whatever its status: the body was not looked at, its names say nothing.
    expect(notionalFieldFrom(refusal('amount_usd', 'idempotency_in_flight'), sent)).toBeUndefined();
  });

  it('a run resuming a given key is never changed behind the user: the refusal stands, its hint names the setting and hedge doctor', async (on) => {
    const simulator = await on('alpha');
    simulator.seedOpen('buy', 10_000);
    const key = '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b';
    const result = exits(await simulator.hedge(`add USDTNGN buy 1000 --idempotency-key ${key} --json`), 3);
    expect(result.stderr).not.toMatch(STACK_FRAME);
    expect(simulator.requests('POST', '/hedges/add').map((entry) => [entry.status, entry.idempotencyKey])).toEqual([
      [400, key],
    ]);
    const error = lastJson(result.stderr).error;
    expect(error).toMatchObject({
      code: 'validation_error',
      class: 'rejected',
      details: { field: 'amount_usd' },
      hint: expect.stringMatching(/HEDGE_WIRE_NOTIONAL_FIELD.*hedge doctor|hedge doctor.*HEDGE_WIRE_NOTIONAL_FIELD/s),
    });
    expect(learnedIn(simulator.configDir)).toBeUndefined();
  });
});

describe.concurrent('lists never lose rows', () => {
  it('gamma (cursor pages of 20, its own page-size name): 47 hedges with --limit 100 are all read, and the history too', async (on) => {
    const simulator = await on('gamma');
    const ids = seeded(simulator, 47);
    const hedges = ok(await simulator.hedge('hedges --limit 100 --json'));
    const listed = JSON.parse(hedges.stdout);
    expect(listed).toHaveLength(47);
    sameIds(listed, ids);
    const pages = queries(simulator, '/hedges');
    // Newest first, as the server orders them, page after page.
    const server = idsOf(await apiData(simulator, 'GET', '/hedges?page_size=100'));
    expect(idsOf(listed)).toEqual(server);
    // hedge's guess `limit` is ignored; the answer states `page_size`, tried on the next page, honoured: learned.
    expect(pages).toEqual([{ limit: '100' }, { cursor: expect.any(String), page_size: '80' }]);
    expect(hedges.stderr).toMatch(/Learned from the server: the page size goes as `page_size`/);
    expect(hedges.stderr).not.toMatch(/more/);

    const history = ok(await simulator.hedge('history --limit 100 --format tsv'));
    expect(history.stdout.trim().split('\n')).toHaveLength(1 + 47);
    // Learned: the next run sends the server's name at once, one request.
    expect(queries(simulator, '/hedges/history')).toEqual([{ page_size: '100' }]);
  });

  it('past the default length: 50 shown and the rest named on stderr; --all reads every one; --limit with --all is exit 2; a filtered list past it: the --all it names keeps the filters, and run as printed lists the rest of that list only', async (on) => {
    const simulator = await on('gamma');
    const ids = seeded(simulator, 60);
    const open = simulator.seedOpen('buy', 1_000, 'USDTKES');
    const result = ok(await simulator.hedge('hedges --json'));
    expect(JSON.parse(result.stdout)).toHaveLength(50);
    expect(result.stderr).toMatch(
      /50 hedges shown \(the default\); there are more: `hedge hedges --all` lists every one/,
    );
    await listsAll(simulator, [...ids, open.id]);
    const sent = simulator.requests().length;
    exits(await simulator.hedge('hedges --all --limit 5'), 2, '--limit and --all disagree');
    expect(simulator.requests().length).toBe(sent);

    const shown = await simulator.hedge('hedges --status closed --json');
    expect(okJson(shown)).toHaveLength(50);
    const suggested = /there are more: `hedge (.*?)` lists every one/.exec(shown.stderr)?.[1];
    expect(suggested).toBe('hedges --status closed --all');
    sameIds(okJson(await simulator.hedge([...suggested!.split(' '), '--json'])), ids);
  });

  // One page that honours the size asked and says nothing of paging: the default length asks one row more.
  for (const [dialect, command, path, what, sizeName] of [
    ['reference', 'hedges', '/hedges', 'hedges', 'limit'],
    ['delta', 'hedges', '/hedges', 'hedges', 'limit'],
    ['beta', 'history', '/hedges/history', 'closed hedges', 'per_page'],
  ] as const)
    it(`${dialect}: ${command} on 51 ${what} (one page, no paging facts) shows the default 50 and says there are more, never silently fewer`, async (on) => {
      const simulator = await on(dialect);
      const ids = seeded(simulator, 51);
      const result = ok(await simulator.hedge(`${command} --json`));
      const shown = JSON.parse(result.stdout);
      expect([shown.length, ids.length, simulator.historyCount()]).toEqual([50, 51, 51]);
      expect(result.stderr).toMatch(
        new RegExp(`50 ${what} shown \\(the default\\); there are more: \`hedge ${command} --all\` lists every one`),
      );
      expect(statusQueries(simulator, path).filter(([status]) => status === 200)).toEqual([
        [200, { [sizeName]: '51' }],
      ]);
      // The 50 shown are the server's newest 50.
      const server = await apiData(simulator, 'GET', `${path}?${sizeName}=50`);
      expect(idsOf(shown)).toEqual(idsOf(server));
    });

  // alpha: one page of its own size (50), ignores `limit`, no paging facts.
  for (const [command, path, what, asked] of [
    ['hedges', '/hedges', 'hedges', '51'],
    ['hedges --all', '/hedges', 'hedges', '500'],
    ['hedges --limit 100', '/hedges', 'hedges', '100'],
    ['history --all', '/hedges/history', 'closed hedges', '500'],
  ])
    it(`alpha: ${command} on 51 ${what} gives the 50 it could read and says the list may be cut at 50, never silently fewer`, async (on) => {
      const simulator = await on('alpha');
      const ids = seeded(simulator, 51);
      const result = exits(
        await simulator.hedge(`${command} --json`),
        0,
        `may be cut at 50 ${what}: the server gave no next page`,
      );
      expect([JSON.parse(result.stdout).length, ids.length, simulator.historyCount()]).toEqual([50, 51, 51]);
      sameIds(simulator.hedges(), ids);
      // The list as asked, then a page of one to see whether the size is read (alpha reads no `limit`), nothing else.
      expect(statusQueries(simulator, path)).toEqual([
        [200, { limit: asked }],
        [200, { limit: '1' }],
      ]);
    });

  // Frozen on a seed whose ids have such a part: the same ids, and the same parts typed, every run.
  keeperTest(
    'alpha: a part of the id of a hedge past the one page read, its end or one that fits one hedge read too, is neither answered "no hedge matches" nor taken as the one read: hedge cannot tell, and asks for the whole id',
    async ({ rig }) => {
      const simulator = await rig.start({ preset: 'frozen', dialect: 'alpha', seed: 1 });
      seeded(simulator, 51);
      const all = idsOf(await apiData(simulator, 'GET', '/hedges?page_size=500'));
      const read = idsOf(await apiData(simulator, 'GET', '/hedges'));
      expect(read).toHaveLength(50);
      const [unread] = all.filter((id) => !read.includes(id));
      const end = unread.slice(-8);
      expect(read.filter((id) => id.endsWith(end))).toEqual([]);
      // An end (or else a start) of the unread id that exactly one hedge read shares (as hedge compares: case aside).
      const fits = (part: string) => (id: string) =>
        id.toLowerCase().startsWith(part.toLowerCase()) || id.toLowerCase().endsWith(part.toLowerCase());
      const ends = Array.from({ length: unread.length - 1 }, (_, cut) => unread.slice(cut + 1));
      const starts = Array.from({ length: unread.length - 5 }, (_, cut) => unread.slice(0, unread.length - 1 - cut));
      const shared = [...ends, ...starts].find((part) => read.filter(fits(part)).length === 1);
      expect(shared).toBeDefined();
      for (const typed of [end, shared!]) {
        const asked = simulator.requests().length;
        const result = exits(await simulator.hedge(['hedges', typed]), 2, 'whole id');
        expect(result.stderr).not.toMatch(/no hedge of this account matches/);
        expect(result.stderr).toMatch(/cannot tell which hedge .* names: .* the server may hold more/);
        // The list, then a page of one, and nothing else: neither hedge was fetched as the one named.
        expect(
          simulator
            .requests()
            .slice(asked)
            .map((entry) => [entry.path, entry.query]),
          typed,
        ).toEqual([
          ['/hedges', { limit: '500' }],
          ['/hedges', { limit: '1' }],
        ]);
      }
    },
  );

  // A list's cut check that fails on the network: as for a refused check.
  it('--all whose page-size check fails on the network (every attempt) or is refused: the list read is still given, with the warning it may be cut; from a server that honours the page size and gives no paging facts, --all on 51 hedges is whole, no warning, and hedges on 50 shows them all with no word of more or of a cut (a page of one is honoured)', async (on, through) => {
    const simulator = await on();
    const fifty = seeded(simulator, 50);
    const result = ok(await simulator.hedge('hedges --json'));
    expect([JSON.parse(result.stdout).length, simulator.hedges().length]).toEqual([50, 50]);
    expect(result.stderr).not.toMatch(/more|cut/);
    const ids = [...fifty, ...seeded(simulator, 1)];
    expect(await listsAll(simulator, ids)).not.toMatch(/cut|more/);
    expect(queries(simulator, '/hedges')).toEqual([{ limit: '51' }, { limit: '1' }, { limit: '500' }, { limit: '1' }]);
    let lists = 0;
    simulator.sandbox.setFaults({
      nextError: { count: 1, status: 403, code: 'forbidden', message: 'one page a minute' },
      match: (target) => target.method === 'GET' && target.path === '/hedges' && ++lists === 2,
    });
    expect(await listsAll(simulator, ids)).toMatch(/may be cut at 51 hedges: the server gave no next page/);
    expect(statusQueries(simulator, '/hedges').slice(4)).toEqual([
      [200, { limit: '500' }],
      [403, { limit: '1' }],
    ]);
    // The list passes; every later GET /hedges (the page of one) has its connection dropped after the server answered.
    simulator.sandbox.setFaults({ match: null });
    let passed = 0;
    const env = await through(
      startAnswerProxy(simulator.sandbox, (request) => {
        if (request.method === 'GET' && request.path === '/hedges' && ++passed > 1)
          throw new Error('connection dropped');
      }),
    );
    expect(await listsAll(simulator, ids, env)).toMatch(/may be cut at 51 hedges: the server gave no next page/);
    const [first, ...checks] = queries(simulator, '/hedges').slice(6);
    expect(first).toEqual({ limit: '500' });
    expect(checks.length).toBeGreaterThan(0);
    expect(checks.every((query) => query.limit === '1')).toBe(true);
  });

  it('beta (refuses any page-size name but its own, and names it): 47 hedges with --limit 100, no setting given', async (on) => {
    const simulator = await on('beta');
    const ids = seeded(simulator, 47);
    sameIds(okJson(await simulator.hedge('hedges --limit 100 --json')), ids);
    expect(statusQueries(simulator, '/hedges')).toEqual([
      [400, { limit: '100' }],
      [200, { per_page: '100' }],
    ]);
    expect(learnedIn(simulator.configDir)).toEqual({ [simulator.baseUrl]: { page_size_param: 'per_page' } });
  });
});

it('references compared the way the server keeps them: delta (keeps client_reference in upper case, filters it without regard to case): every --ref finds DEAL-11 from deal-11', async (on) => {
  const simulator = await on('delta');
  ok(await simulator.hedge('open USDTNGN buy 1000 --tenor 7 --ref deal-11 --json'));
  const [buy] = simulator.active('buy');
  expect(buy.clientReference).toBe('DEAL-11');

  // The duplicate guard: the server's match is a match, whatever its case. Nothing sent.
  const sent = simulator.writes().length;
  exits(
    await simulator.hedge(['open', 'USDTNGN', 'sell', '300', '--tenor', '7', '--ref', ' deal-11 ']),
    3,
    `An active hedge already carries client reference " deal-11 ": ${buy.id}`,
  );
  expect(simulator.writes()).toHaveLength(sent);
  expect(simulator.active('sell')).toEqual([]);

  expect(okJson(await simulator.hedge('positions --ref Deal-11 --json'))).toMatchObject([
    { side: 'buy', hedge_id: buy.id },
  ]);
  expect(okJson(await simulator.hedge('maturities --ref deal-11 --json'))).toMatchObject([{ hedge_id: buy.id }]);

  ok(await simulator.hedge('close USDTNGN buy --json'));
  expect(okJson(await simulator.hedge('history --ref deal-11 --json'))).toMatchObject([
    { hedge_id: buy.id, client_reference: 'DEAL-11' },
  ]);
  expect(
    okJson(await simulator.hedge('report --by hedge --ref deal-11 --json')).groups.map((group: any) => group.key),
  ).toEqual([buy.id]);

  // An open whose answer was lost is found by its reference: landed, not sent again.
  simulator.sandbox.setFaults({ dropAfterCommit: 1, match: { method: 'POST', path: '/hedges' } });
  exits(await simulator.hedge('open USDTNGN sell 300 --tenor 7 --ref deal-12'), 5);
  simulator.sandbox.setFaults({ dropAfterCommit: 0, match: null });
  const opens = simulator.requests('POST', '/hedges').length;
  expect(ok(await simulator.hedge('resume --json')).stderr).toMatch(/carries reference deal-12/);
  expect(simulator.requests('POST', '/hedges')).toHaveLength(opens);
  expect(simulator.active('sell').map((hedge) => hedge.clientReference)).toEqual(['DEAL-12']);
});

it('lists paged by time: delta (history pages of at most 40, meta.next_before sent back as before): --limit 100 reads 100, a period every one; a server that says more exist and gives no next request hedge can send: said on stderr, with where to look', async (on, through) => {
  const simulator = await on('delta');
  seeded(simulator, 120);
  const newestFirst = [...Object.values(simulator.sandbox.engine.state.accounts)[0].history]
    .reverse()
    .map((record) => record.hedge_id);
  const limited = ok(await simulator.hedge('history --limit 100 --json'));
  expect([idsOf(JSON.parse(limited.stdout)), limited.stderr]).toEqual([newestFirst.slice(0, 100), '']);
  // Each next page asked 1 ms past the edge, with room for the one record at it (read already, left out by id).
  expect(queries(simulator, '/hedges/history')).toEqual([
    { limit: '100' },
    { limit: '61', before: expect.any(String) },
    { limit: '22', before: expect.any(String) },
  ]);

  // A period reads page after page to the last (next_before null), whatever its length.
  const period = ok(await simulator.hedge('history --since 2000-01-01 --format ndjson'));
  expect(period.stdout.trim().split('\n')).toHaveLength(120);
  expect(period.stderr).toBe('');

  const pages = simulator.requests('GET', '/hedges/history').length;
  // The marker in a shape no rule reads: an object.
  const env = await through(
    startAnswerProxy(simulator.sandbox, (request, envelope) => {
      const meta = envelope.meta as Record<string, unknown>;
      if (request.path === '/hedges/history' && typeof meta.next_before === 'string')
        meta.next_before = { at: meta.next_before };
    }),
  );
  const listed = exits(
    await simulator.hedge('history --limit 100 --json', { env }),
    0,
    'Only 40 of the 100 closed hedges asked could be read: the server says more exist',
  );
  expect(JSON.parse(listed.stdout)).toHaveLength(40);
  const cut = ok(await simulator.hedge('history --since 2000-01-01 --json', { env }));
  expect(JSON.parse(cut.stdout)).toHaveLength(40);
  expect(cut.stderr).toMatch(/returned 40 closed hedges and says more exist, but gave no way hedge can ask for them/);
  expect(simulator.requests('GET', '/hedges/history')).toHaveLength(pages + 2);
});

it('optional checks never block a write: a warning names what was not checked, and the write goes on: open --ref with the hedge list failing; add with the account unreadable', async (on) => {
  const simulator = await on();
  simulator.sandbox.setFaults({ fault5xx: 1, match: { method: 'GET', path: '/hedges' } });
  const result = ok(await simulator.hedge('open USDTNGN sell 10000 --tenor 1 --ref deal-77 --json'));
  expect(result.stderr).toMatch(/Could not check whether an active hedge already carries client reference "deal-77"/);
  expect(simulator.requests('GET', '/hedges').every((entry) => entry.fault === '5xx')).toBe(true);
  expect(simulator.hedges().map((hedge) => [hedge.clientReference, hedge.status])).toEqual([['deal-77', 'filled']]);

  simulator.sandbox.setFaults({ match: { method: 'GET', path: '/account' } });
  exits(
    await simulator.hedge('add USDTNGN sell 2000 --json'),
    0,
    'exposure headroom could not be checked (GET /account: ',
  );
  expect(simulator.hedges()[0].notionalUsd).toBe(12_000);
});

it('what the spec does not list is shown, not refused: gamma: a hedge `settling` while its close lands is shown as sent, and waited on as not final', async (on) => {
  const simulator = await on('gamma', 60_000);
  const hedge = simulator.seedOpen('sell', 10_000, 'USDTKES');
  ok(await simulator.hedge('close USDTKES sell --no-wait --json'));
  const shown = ok(await simulator.hedge(`hedges ${hedge.id} --format tsv`));
  expect(shown.stdout).toMatch(/\tsettling\t/);
  expect(okJson(await simulator.hedge('hedges --limit 1 --json'))[0]).toMatchObject({
    id: hedge.id,
    status: 'settling',
  });
  // --wait does not stop at an unknown status: it ends when the close lands.
  const waiting = simulator.hedge(`hedges ${hedge.id} --wait --json`);
  await until(
    () => simulator.requests('GET', `/hedges/${hedge.id}`).length >= 3,
    'the wait to poll the settling hedge',
  );
  simulator.advance(60_000);
  expect(okJson(await waiting)).toMatchObject({ id: hedge.id, status: 'closed' });
});

// --raw with a text format is refused before anything is sent, as every global: checked-before-sending.test.ts.
describe.concurrent('an answer hedge cannot read is its own exit class (14), naming the field and what came', () => {
  it('a hedge whose side is neither buy nor sell: exit 14, the field and the value named, never "network"; an account hedge cannot read: whoami says the key could not be checked and exits 14, not 3', async (on, through) => {
    const simulator = await on();
    const hedge = simulator.seedOpen('buy', 10_000);
    const env = await through(startFieldProxy(simulator.sandbox, 'side', 'long'));
    const { code, stdout, stderr } = await simulator.hedge(`hedges ${hedge.id}`, { env });
    expect([code, stdout]).toEqual([14, '']);
    expect(stderr).toMatch(
      /GET \/hedges\/hdg_\w+ answered HTTP 200 with data hedge cannot read: data\.side is "long" \(text\), where one of "buy", "sell" is expected/,
    );
    expect(stderr).toMatch(/hedge doctor/);
    expect(stderr).not.toMatch(/network/i);
    expect(stderr).not.toMatch(STACK_FRAME);
    expect(lastJson(exits(await simulator.hedge(`hedges ${hedge.id} --json`, { env }), 14).stderr).error).toMatchObject(
      {
        code: 'unreadable',
        class: 'unreadable',
        details: { field: 'data.side', received: '"long" (text)' },
      },
    );

    const account = await through(startFieldProxy(simulator.sandbox, 'balance_usdc', 'lots'));
    const whoami = await simulator.hedge('whoami', { env: account });
    expect([whoami.code, whoami.stderr]).toEqual([
      14,
      expect.stringMatching(/The key could not be checked: GET \/account/),
    ]);
  });

  it('prices in a shape hedge cannot read: the data is shown as it came, then exit 14 naming GET /prices', async (on, through) => {
    // beta's prices are [{symbol, rate}]: a rate that is no number leaves no price to read.
    const simulator = await on('beta');
    const env = await through(startFieldProxy(simulator.sandbox, 'rate', 'n/a'));
    const result = exits(
      await simulator.hedge('price USDTNGN --format tsv', { env }),
      14,
      'GET /prices answered HTTP 200 with no price hedge could read',
    );
    expect(result.stdout).toContain('n/a');
    // --raw never needs to read it: the server's data as sent.
    expect(okJson(await simulator.hedge('price USDTNGN --raw', { env }))[0]).toEqual({
      symbol: 'USDTNGN',
      rate: 'n/a',
    });
    // --json is hedge's one shape: with no price to read, the same exit 14, the hint naming --raw.
    const json = await simulator.hedge('price USDTNGN --json', { env });
    expect([json.code, lastJson(json.stderr).error.hint]).toEqual([14, expect.stringContaining('hedge price --raw')]);
  });
});
