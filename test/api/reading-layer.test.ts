// The pieces of the tolerant reading layer, in-process: paging detection on the forms servers use,
// the prices shapes, the server's own data kept beside hedge's reading of it, the precedence of
// wire names (set > learned > guessed), where learned names are kept, and doctor's clock and
// rate-limit lines.
import * as z from 'zod/mini';
import { tmpdir } from 'node:os';
import { cursorParameterFor, findRows, readPage } from '../../src/platform/api/wire/pages.js';
import { hedgeSchema, marketSchema } from '../../src/platform/api/schemas.js';
import {
  accountForPeople,
  nameKey,
  parsePrices,
  pickField,
  pricesInOneShape,
  readHistoryRecord,
  readPosition,
  sameFact,
  showUnderKnownNames,
} from '../../src/platform/api/wire/fields.js';
import { readNumber } from '../../src/core/number-format.js';
import { forScripts } from '../../src/platform/fields/script-shape.js';
import { resolveWireSettings } from '../../src/platform/api/wire/unspecified.js';
import {
  learnedScopeOf,
  readLearned,
  resetLearned,
  saveLearned,
  wireInUse,
} from '../../src/platform/runtime/wire-memory.js';
import { ProfileStore } from '../../src/platform/config/profile-store.js';
import { asSent, rememberSent } from '../../src/core/as-sent.js';
import { clockCheck, describeShape, rateLimitCheck } from '../../src/features/setup/doctor.js';
import { ASSUMED_SKEW_MS, createServerClock } from '../../src/core/server-clock.js';
import { questionWithUnchecked } from '../../src/features/trade/pre-trade.js';
import { tempDir } from '../support/hedge-cli.js';

const LIST_URL = 'https://api.example.com/partners/acme/v2/hedges?limit=100';
const read = (data: unknown, meta: Record<string, unknown> = {}, link?: string) =>
  readPage({ data, meta, headers: { link } }, { status: 'filled' }, LIST_URL);

// A bare array with nothing said, one page and no word on more: every reference list of wire-tolerance.test.ts.
it('paging by detection: meta.next_cursor: sent back as `cursor` with the filters kept; null says it was the last page; a list inside data with a page token beside it; a configured cursor name wins', () => {
  expect(read([{ id: 'a' }], { next_cursor: 'c1.xyz', page_size: 20 })).toMatchObject({
    next: { query: { status: 'filled', cursor: 'c1.xyz' }, how: 'meta.next_cursor, sent back as cursor' },
    more: true,
    statedPageSize: { name: 'page_size', value: 20 },
  });
  expect(read([{ id: 'a' }], { next_cursor: null }).more).toBe(false);
  expect(
    readPage({ data: { items: [{ id: 'a' }, { id: 'b' }], nextPageToken: 'tok' }, meta: {} }, {}, LIST_URL, 'after'),
  ).toMatchObject({
    rows: [{ id: 'a' }, { id: 'b' }],
    rowsAt: 'data.items',
    next: { query: { after: 'tok' } },
  });
  expect(['next_page_token', 'nextPageToken', 'end_cursor'].map(cursorParameterFor)).toEqual([
    'page_token',
    'pageToken',
    'after',
  ]);
});

it('paging by detection: next links: in meta (absolute or relative) and in a Link header; page numbers (at the size served), an offset, has_more and totals (under their common names, or X-Total-Count); an object with no list in it has no rows (the client names it unreadable)', () => {
  expect([
    read([], { links: { next: '/partners/acme/v2/hedges?page=2&limit=100' } }).next?.query,
    read([], { next: 'https://api.example.com/partners/acme/v2/hedges?after=hdg_9' }).next?.query,
  ]).toEqual([{ page: '2', limit: '100' }, { after: 'hdg_9' }]);
  const header =
    '<https://api.example.com/partners/acme/v2/hedges?cursor=abc>; rel="next", <https://api.example.com/x?cursor=zz>; rel="prev"';
  expect(read([], {}, header).next).toEqual({ query: { cursor: 'abc' }, how: 'the Link header (rel="next")' });
  expect([
    read([{}], { pagination: { page: 1, total_pages: 3 } }).next?.query,
    read([{}], { pagination: { page: 3, total_pages: 3 } }).more,
    read([{}, {}], { offset: 10, total: 40 }).next?.query,
  ]).toEqual([{ status: 'filled', page: '2' }, false, { status: 'filled', offset: '12' }]);
  // has_more: more exist, no next request (a marker hedge cannot send back, an object: wire-tolerance.test.ts, delta).
  const page = read([{ id: 'a' }], { has_more: true });
  expect([page.more, page.next]).toEqual([true, undefined]);
  expect(read([{}], { total_count: 47 }).total).toBe(47);
  // A total under any of its common names, or in the X-Total-Count header.
  expect(
    [{ total_elements: 36 }, { totalElements: 36 }, { page: { total_records: 36 } }, { total_entries: 36 }].map(
      (meta) => read([{}], meta).total,
    ),
  ).toEqual([36, 36, 36, 36]);
  expect(readPage({ data: [{}], meta: {}, headers: { 'x-total-count': '36' } }, {}, LIST_URL).total).toBe(36);
  // Pages by number keep the size the page was served at, under the name it states: never a size that moves the rows.
  expect(read([{}], { page: 0, size: 20, total_pages: 2, total_elements: 36 }).next).toEqual({
    query: { status: 'filled', size: '20', page: '1' },
    how: 'page numbers (page=1)',
    sameSize: true,
  });
  expect([findRows({ balance: 1 }).rows, findRows({ data: [1], other: [2] }).rows]).toEqual([undefined, [1]]);
});

it("the server's own data beside hedge's reading: a numeric string is a number for the rules; asSent gives back the text, in lists and inside our own objects", () => {
  const sent = {
    id: 'hdg_1',
    market: 'USDTKES',
    side: 'BUY',
    notional_usd: '10000.00',
    tenor_days: '3',
    status: 'settling',
  };
  const parsed = rememberSent(hedgeSchema.parse(sent), sent);
  expect(parsed).toMatchObject({ side: 'buy', notional_usd: 10_000, tenor_days: 3, status: 'settling' });
  expect(asSent(parsed)).toBe(sent);
  expect(asSent([parsed])).toEqual([sent]);
  expect(asSent({ closed: true, realized: parsed })).toEqual({ closed: true, realized: sent });
  const plain = { a: 1 };
  expect(asSent(plain)).toBe(plain);
  for (const wrong of [{ side: 'long' }, { notional_usd: 'ten' }])
    expect(() => hedgeSchema.parse({ ...sent, ...wrong })).toThrow();
});

it('wire names: set > learned > guessed: environment over the profile over what was learned over the default; where learned names are kept: in the profile that gives the base URL; per server for environment credentials; `demo` for the demo; reset forgets', async () => {
  const learned = { notional_field: 'amount_usd', page_size_param: 'per_page' };
  expect(resolveWireSettings({}, {}, learned)).toMatchObject({
    settings: {
      changeNotionalField: 'amount_usd',
      pageSizeParam: 'per_page',
      pricesParam: 'symbols',
      cursorParam: '',
    },
    sources: {
      changeNotionalField: 'learned',
      pageSizeParam: 'learned',
      pricesParam: 'default',
      cursorParam: 'default',
    },
  });
  expect(
    resolveWireSettings({ HEDGE_WIRE_NOTIONAL_FIELD: 'delta_usd' }, { page_size_param: 'size' }, learned).sources,
  ).toMatchObject({ changeNotionalField: 'environment', pageSizeParam: 'profile' });
  // A learned name gone bad is dropped, never an error: nobody typed it.
  const bad = resolveWireSettings({}, {}, { notional_field: 'bad name!' });
  expect([bad.settings.changeNotionalField, bad.sources.changeNotionalField, bad.problem]).toEqual([
    'notional_usd',
    'default',
    undefined,
  ]);

  const dir = tempDir('hedge-learned-');
  onTestFinished(dir.remove);
  const store = new ProfileStore(dir.path);
  await store.update((data) => {
    data.profiles.desk = {
      base_url: 'https://api.example.com/partners/acme/v2',
      api_key: 'hpk_test_AAAAAAAAAAAAAAAAAAAAAAAA',
    };
  });
  /** The scope of credentials whose key and base URL both come from `source`. */
  const scope = (source: 'profile' | 'environment' | 'demo', baseUrl: string, profileName?: string) =>
    learnedScopeOf({ sources: { apiKey: source, baseUrl: source }, profileName, baseUrl });
  const profile = scope('profile', 'https://api.example.com/partners/acme/v2', 'desk');
  const server = scope('environment', 'http://127.0.0.1:4010/partners/sandbox/v2/');
  const demo = scope('demo', 'http://127.0.0.1:5555/partners/sandbox/v2');
  expect([profile, server, demo]).toEqual([
    { kind: 'profile', name: 'desk' },
    { kind: 'server', key: 'http://127.0.0.1:4010/partners/sandbox/v2' },
    { kind: 'server', key: 'demo' },
  ]);
  await saveLearned(store, profile, 'notional_field', 'amount_usd');
  await saveLearned(store, server, 'page_size_param', 'per_page');
  await saveLearned(store, demo, 'notional_field', 'delta_usd');
  const data = store.read();
  // In this order: each reset changes the store the next read sees.
  expect([
    data.profiles.desk.wire_learned,
    readLearned(data, server),
    await resetLearned(store, profile),
    readLearned(store.read(), demo),
    await resetLearned(store, 'all'),
  ]).toEqual([
    { notional_field: 'amount_usd' },
    { page_size_param: 'per_page' },
    ['profile "desk": notional_field=amount_usd'],
    { notional_field: 'delta_usd' },
    ['http://127.0.0.1:4010/partners/sandbox/v2: page_size_param=per_page', 'the demo: notional_field=delta_usd'],
  ]);
  expect(store.read().learned_wire).toBeUndefined();
});

// The server's clock as its answers tell it (src/core/server-clock.ts): a range, never a point,
// from the Date header and the stamps in the data, and an assumption said where nothing bounds it.
const T = Date.parse('2026-11-22T08:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
/** `clock` (a new one unless given) taught a Date header at `serverMs`, on an answer sent at `sentAt` and received at `receivedAt`. */
const dated = (serverMs: number, sentAt = T, receivedAt = T + 200, clock = createServerClock()) => {
  clock.learnDate(new Date(serverMs).toUTCString(), sentAt, receivedAt);
  return clock;
};

it("the server clock: knows nothing at first: the server is taken as up to the assumed skew either way; an open's own stamp lies between its send and its answer; a past stamp only bounds it from below; the best reading (maturities' clock) is ours wherever the answers allow it, else their nearest edge: never an assumed skew", () => {
  expect(createServerClock().at(T)).toEqual({
    localMs: T,
    earliestMs: T - ASSUMED_SKEW_MS,
    latestMs: T + ASSUMED_SKEW_MS,
    bestMs: T,
    assumed: true,
  });
  const clock = createServerClock();
  // Ahead by 45 s: sent at T, answered at T + 40 ms, stamped at T + 45.02 s on the server's clock.
  clock.learnStamps({ opened_at: iso(T + 45_020) }, T + 40, { field: 'opened_at', sentAt: T });
  expect(clock.at(T + 1000)).toMatchObject({ earliestMs: T + 1000 + 44_980, latestMs: T + 1000 + 45_021 });
  expect(clock.at(T).assumed).toBe(false);
  // The same stamp, not our own send's: before the answer only.
  const past = createServerClock();
  past.learnStamps([{ filled_at: iso(T + 45_020) }, { opened_at: iso(T) }], T + 40);
  expect(past.at(T + 40)).toMatchObject({
    earliestMs: T + 45_020,
    latestMs: T + 45_020 + ASSUMED_SKEW_MS,
    assumed: true,
  });
  // A Date header to the second that agrees with ours: the offset is within [−200 ms, 1 s], so ours to the ms.
  expect(dated(T).at(T + 500).bestMs).toBe(T + 500);
  // 45 s ahead by its Date header: the least of what it allows, never past it.
  expect(dated(T + 45_000).at(T + 500).bestMs).toBe(T + 500 + 44_800);
  // 45 s ahead without a Date header, known from below only: the stamps' 45 s, not the assumed 5 min on top.
  const stamped = createServerClock();
  stamped.learnStamps({ closed_at: iso(T + 45_000) }, T + 40);
  expect(stamped.at(T + 1000)).toMatchObject({
    bestMs: T + 1000 + 44_960,
    latestMs: T + 1000 + 44_960 + ASSUMED_SKEW_MS,
  });
});

it("the server clock: a Date header behind a time the server's records have reached is not believed, on any later answer either; answers that agree narrow the range; one that cannot agree is believed, and the gap kept", () => {
  const clock = createServerClock();
  // A record stamped at T (our clock agrees), then answers whose Date header is 5 minutes behind it.
  clock.learnStamps({ opened_at: iso(T) }, T + 100);
  for (const at of [T + 200, T + 400]) dated(at - 300_000, at, at + 50, clock);
  expect(clock.reading()).toMatchObject({ lowMs: -100, from: ['stamps'] });
  expect(clock.reading().highMs).toBeUndefined();
  expect(clock.reading().dateBehindMs).toBeGreaterThan(298_000);
  // Maturities stay on ours: the stamps do not move it, and the header moves it neither back nor forth.
  expect(clock.at(T + 500).bestMs).toBe(T + 500);

  const narrowing = dated(T + 45_000);
  expect(narrowing.reading()).toEqual({ lowMs: 44_800, highMs: 46_000, from: ['date'] });
  narrowing.learnStamps({ opened_at: iso(T + 45_500) }, T + 100, { field: 'opened_at', sentAt: T + 50 });
  expect(narrowing.reading()).toEqual({ lowMs: 45_400, highMs: 45_451, from: ['stamps'] });
  // The server's clock was set 10 minutes on.
  dated(T + 645_000, T, T + 200, narrowing);
  expect(narrowing.reading()).toMatchObject({ lowMs: 644_800, highMs: 646_000, from: ['date'] });
  expect(narrowing.reading().disagreedMs).toBeGreaterThan(599_000);
});

// Keeping a learned wire name: the save is awaited, so a store that cannot be written is said in
// the notice ("not kept", saved: false) and never left behind as an unhandled rejection after the
// command has ended (an in-process run of the whole command found it: the config folder was gone
// by the time the unawaited save reached it).
it('wireInUse.learn: a store that cannot be written: the notice says "not kept" and how to keep it; the save does not reject', async () => {
  const notices: string[] = [];
  let saved;
  const wire = await wireInUse(
    { baseUrl: 'http://127.0.0.1:9/partners/p/v2', sources: { baseUrl: 'environment' } } as never,
    {
      env: { HEDGE_CONFIG_DIR: tmpdir() },
      store: async () =>
        ({
          update: () => Promise.reject(new Error('Cannot write the config store: EROFS.')),
        }) as unknown as ProfileStore,
      log: () => {},
      notify: (notice) => notices.push(notice.text),
      hedgeCommand: String,
      onDispose: (save) => void (saved = save()),
    },
  );
  wire.learn({ setting: 'pageSizeParam', value: 'per_page', evidence: 'the server named per_page' });
  await expect(saved).resolves.toBeUndefined();
  expect(notices).toEqual([
    expect.stringMatching(/not kept \(Cannot write the config store: EROFS\.\); set HEDGE_\w+=per_page to keep it/),
  ]);
});

it("doctor: clock, rate limits, shapes: the clock line is the interval the server's answers allow, and what taught it; rate-limit headers are named when seen; shapes are described in a few words", () => {
  // Sent at −450 ms, answered at −350 ms: the Date's second is [T, T + 1 s), the offset within [0.35 s, 1.45 s].
  expect(clockCheck(dated(T, T - 450, T - 350).reading())).toMatchObject({
    status: 'ok',
    detail: "the server's clock is within a second of this machine's, give or take 0.6 s (from its Date header)",
  });
  expect(clockCheck(dated(T - 10_000, T + 450, T + 550).reading())).toMatchObject({
    status: 'warn',
    detail: "the server's clock is 10 s behind this machine's, give or take 0.6 s (from its Date header)",
  });
  // Far ahead (Date header or stamps only) fails: doctor.test.ts asks a simulator whose clock is.
  expect(clockCheck(createServerClock().reading())).toMatchObject({ status: 'warn', forWrites: false });

  // An answer to GET /markets sent at T, with these headers.
  const answer = (headers = {}) => [{ endpoint: 'GET /markets', status: 200, headers, sentAt: T, receivedAt: T + 100 }];
  expect(rateLimitCheck(answer({ 'x-ratelimit-limit': '20', 'x-ratelimit-remaining': '19' })).detail).toBe(
    'x-ratelimit-limit: 20, x-ratelimit-remaining: 19',
  );
  expect(rateLimitCheck(answer()).detail).toMatch(/^no rate-limit headers seen on 1 answers/);
  expect([
    describeShape([{ market: 'X', price: 1 }]),
    describeShape({ USDTNGN: { mid: 1, ts: 'x' } }),
    describeShape({ rates: [{ pair: 'X', bid: '1', ask: '2' }] }),
  ]).toEqual([
    'a list of {market, price}',
    'an object keyed by market of {mid, ts}',
    '{rates: a list of {pair, bid, ask}}',
  ]);
});

it('optional checks in a live confirmation: the question names what could not be checked', () => {
  const unchecked = (...items: string[]) => items;
  expect(
    questionWithUnchecked(
      'Open buy 10,000.00 USD on USDTKES for 3 days?',
      unchecked('the exposure headroom', 'the duplicate reference'),
    ),
  ).toBe('Open buy 10,000.00 USD on USDTKES for 3 days — not checked: the exposure headroom, the duplicate reference?');
  expect(questionWithUnchecked('Close the sell position on USDTKES?', unchecked())).toBe(
    'Close the sell position on USDTKES?',
  );
});

it('reading records: a list as the spec shows it or with decimal strings and upper-case sides; a record neither way is named with its place; one record the same', () => {
  const rows = Array.from({ length: 6 }, (_, index) => ({
    id: `hdg_${index}`,
    market: 'USDTNGN',
    side: index >= 2 ? 'BUY' : 'buy',
    notional_usd: index >= 2 ? String(1000 + index) : 1000 + index,
    tenor_days: index >= 2 ? '3' : 3,
    status: 'filled',
    venue_note: 'kept',
  }));
  const read = z.array(hedgeSchema).parse(rows);
  expect(read[1]).toMatchObject({ notional_usd: 1001, side: 'buy', tenor_days: 3 });
  expect(read[5]).toMatchObject({ notional_usd: 1005, side: 'buy', tenor_days: 3, venue_note: 'kept' });
  const wrong = [...rows.slice(0, 2), { ...rows[2], side: 'long' }, { ...rows[3], notional_usd: 'lots' }];
  expect(z.array(hedgeSchema).safeParse(wrong).error?.issues[0].path).toEqual([2, 'side']);

  const market = {
    market: 'USDTNGN',
    status: 'open',
    price: '1509.50',
    available_capacity_usd: { buy: 1, sell: '2' },
    net_rate_daily_pct: { buy: 0.1, sell: 0.2 },
  };
  expect(marketSchema.parse(market)).toMatchObject({ price: 1509.5, available_capacity_usd: { sell: 2 } });
  expect(marketSchema.safeParse({ ...market, price: 'n/a' }).error?.issues[0].path).toEqual(['price']);
});

// hedge's one shape of records whose fields the server names its own way (the human table's view
// and --json's): what the tolerant readers found under a synonym (or from the hedge) is shown under
// our name, once; the rest as sent; what the server sent under one of our names meaning something
// else is kept under `_wire` (nothing the server sent is lost).
/** A fact read under `known` (or one of its synonyms). */
const fact = (known: string, value: unknown, ...synonyms: string[]) => ({
  known,
  value,
  synonyms: [known, ...synonyms],
});

const at = '2026-03-02T09:00:00.000Z';
it.each([
  [
    'a value read under a synonym moves to the known name; the rest kept in order',
    { a: 1, direction: 'Buy', z: 2 },
    [fact('side', 'buy', 'direction')],
    { a: 1, z: 2, side: 'buy' },
  ],
  [
    'a record already under the known name is untouched',
    { side: 'sell', direction: 'buy' },
    [fact('side', 'sell', 'direction')],
    { side: 'sell', direction: 'buy' },
  ],
  ['a fact with no value leaves the record untouched', { x: 1 }, [fact('side', undefined)], { x: 1 }],
  [
    'a synonym field whose value is not the one read is kept',
    { direction: 'long-ish' },
    [fact('side', 'buy', 'direction')],
    { direction: 'long-ish', side: 'buy' },
  ],
  [
    'the field read from is dropped when it is the same value as decimal text',
    { used_margin_usdc: '99889.00' },
    [fact('margin_in_use_usdc', 99889, 'used_margin_usdc')],
    { margin_in_use_usdc: 99889 },
  ],
  ['… in another case', { direction: 'BUY' }, [fact('side', 'buy', 'direction')], { side: 'buy' }],
  ['… as the same instant', { opened: '2026-03-02T09:00:00Z' }, [fact('opened_at', at, 'opened')], { opened_at: at }],
  [
    'a zone-less time is not compared as an instant: kept beside ours',
    { opened: '2026-03-02 09:00' },
    [fact('opened_at', at, 'opened')],
    { opened: '2026-03-02 09:00', opened_at: at },
  ],
  [
    "the synonym read from (the readers' order) is dropped, not another field holding the same value",
    { exposure_usd: 5000, size_usd: 5000 },
    [fact('notional_usd', 5000, 'size_usd', 'exposure_usd')],
    { exposure_usd: 5000, notional_usd: 5000 },
  ],
  [
    'a value read under our own name, as the fact, stays exactly as sent (its text too)',
    { closed_at: '2026-03-02T09:00:00Z', net_pnl_usd: '-3.10' },
    [fact('closed_at', at), fact('net_pnl_usd', -3.1)],
    { closed_at: '2026-03-02T09:00:00Z', net_pnl_usd: '-3.10' },
  ],
  [
    "a server field named `_wire` is the server's: kept inside the holder, never mistaken for it",
    { _wire: 'v2', x: 1 },
    [fact('side', undefined)],
    { x: 1, _wire: { _wire: 'v2' } },
  ],
])(
  'showUnderKnownNames: our names for what was read, nothing the server sent lost: %s',
  // Entries: the same fields with the same values, in the same order.
  (_what, raw, facts, expected) =>
    expect(Object.entries(showUnderKnownNames(raw, facts))).toEqual(Object.entries(expected)),
);

it('showUnderKnownNames: our names for what was read, nothing the server sent lost: sameFact: a different word, a tenor in words, an object are different values', () => {
  expect([
    sameFact('long', 'buy'),
    sameFact('7 days', 7),
    sameFact({ id: 'hdg_1' }, 'hdg_1'),
    sameFact(42, '42'),
    sameFact('2026-03-02T10:00:00+01:00', '2026-03-02T09:00:00.000Z'),
  ]).toEqual([false, false, false, true, true]);
});

it("pricesInOneShape: market, price and timestamp first, every other field of the price as sent: gamma's {rates: [{pair, bid, ask, as_of}]}: the bid and ask the mid is made of are kept, as numbers in --json; a beta price without a time has a null timestamp; what the server sent under one of our three names meaning something else is under _wire", () => {
  const quotes = parsePrices(
    {
      rates: [{ pair: 'USDTKES', bid: '130.0', ask: '130.4', as_of: '2026-11-22T08:00:00.000Z', venue: { name: 'x' } }],
    },
    ['USDTKES'],
  )!;
  const [price] = pricesInOneShape(quotes);
  expect(price).toEqual({
    market: 'USDTKES',
    price: 130.2,
    timestamp: '2026-11-22T08:00:00.000Z',
    bid: '130.0',
    ask: '130.4',
    venue: { name: 'x' },
  });
  expect(Object.keys(price).slice(0, 3)).toEqual(['market', 'price', 'timestamp']);
  expect(forScripts(price)).toMatchObject({ bid: 130, ask: 130.4 });

  // alpha's {MARKET: {mid, ts}}, the names read not repeated: json-keeps-everything.test.ts ("kept under _wire: alpha").
  expect(pricesInOneShape(parsePrices([{ symbol: 'USDTNGN', rate: '1512.5' }], ['USDTNGN'])!)).toEqual([
    { market: 'USDTNGN', price: 1512.5, timestamp: null },
  ]);
  const clashing = parsePrices(
    [{ symbol: 'USDTNGN', mid: 1512.5, price: { source: 'twap' }, timestamp: 1763798400 }],
    ['USDTNGN'],
  )!;
  expect(pricesInOneShape(clashing)).toEqual([
    {
      market: 'USDTNGN',
      price: 1512.5,
      timestamp: null,
      _wire: { price: { source: 'twap' }, timestamp: 1763798400 },
    },
  ]);
});

// The one reading kit (api/wire/fields.ts): one number reader and one field picker
// behind every tolerant reader, so that two readers of one payload read one value.

it('readNumber: reads numbers and decimal text; hex, binary, octal, infinities, NaN, separators, units, overflow and non-numbers are no number; every reader refuses hex the same way: position, history, account, prices; an object with no price in it has no readable price', () => {
  expect([12.5, '12.5', ' -3.10 ', '99889.00', '.5', '1e3', '+7'].map(readNumber)).toEqual([
    12.5, 12.5, -3.1, 99889, 0.5, 1000, 7,
  ]);
  const none = ['0x10', '0b11', '0o7', 'Infinity', '-Infinity', 'NaN', '', '  ', '1,000', '1_000', '12.5 USD', '1e400'];
  for (const value of [...none, Number.NaN, Number.POSITIVE_INFINITY, null, true, {}, [5]])
    expect(readNumber(value), JSON.stringify(value)).toBeUndefined();
  // Prices in lists, keyed objects and decimal strings: pricesInOneShape above and every dialect's price in
  // json-keeps-everything.test.ts.
  expect([
    readPosition({ side: 'buy', notional_usd: '0x10', size_usd: '16' }).notionalUsd,
    readHistoryRecord({ net_pnl_usd: '5', notional_usd: '0x10' }).notionalUsd,
    accountForPeople({ balance_usdc: '0x10' }).balance_usdc,
    parsePrices([{ market: 'USDTNGN', price: '0x10' }], ['USDTNGN']),
    parsePrices({ note: 'closed' }, ['USDTNGN']),
  ]).toEqual([16, undefined, '0x10', undefined, undefined]);
});

it("the field picker: one name whatever its spelling style; the first usable of the list wins; a position read under camelCase names, as history records always were; an open position's unrealized net P&L under its plausible names, never its net margin: {pnl_usd: 5, unrealized_pnl_usd: 7} has one, 5, in either order", () => {
  expect([
    nameKey('Closed-At'),
    pickField({ SizeUsd: 'n/a', notional: '12' }, ['notional_usd', 'size_usd', 'notional'], readNumber),
    pickField({ pnlUsd: 5 }, ['net_pnl_usd', 'pnl_usd'], readNumber)?.value,
  ]).toEqual([nameKey('closedAt'), { value: 12, name: 'notional' }, 5]);
  const facts = readPosition({ Side: 'sell', notionalUsd: 2500, netPnlUsd: '-1.25' });
  expect(facts).toMatchObject({ side: 'sell', notionalUsd: 2500, netPnlUsd: -1.25 });
  expect(facts.synonymsUsed).toEqual([]);
  expect(
    [
      { pnl_usd: 5, unrealized_pnl_usd: 7 },
      { unrealized_pnl_usd: 7, pnl_usd: 5 },
      { unrealized_pnl_usd: 7 },
      { unrealized_pnl_usd: '-12.5' },
      { unrealizedNetPnlUsd: 3 },
      { net_pnl_usd: 3, pnl_usd: 5, unrealized_pnl_usd: 7 },
      { side: 'buy', gross_pnl_usd: 10, accrued_carry_usdc: 2, net_pnl_usd: 8 },
      { net_margin_usd: 500 },
    ].map((raw) => readPosition(raw).netPnlUsd),
  ).toEqual([5, 5, 7, -12.5, 3, 3, 8, undefined]);
});
