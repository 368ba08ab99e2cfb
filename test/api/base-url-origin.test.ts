// The one origin check (security/base-url.ts atBaseOrigin) and where it is applied — a server's
// next-page link, a resumed `hedge api` journal row; the transport's request URL is sent for real in
// test/api/transport-origin.test.ts — and the loopback rule for plain http:// (a literal
// 127.0.0.0/8 or ::1, or `localhost` itself; never a name under .localhost, which DNS resolves).
// Pure: nothing here opens a connection.
import { type RunningSandbox } from '../../src/sandbox/http/server.js';
import { followPages, nextLink, readPathPage, type PageAnswer } from '../../src/platform/api/wire/pages.js';
import { describeError } from '../../src/platform/terminal/exit-codes.js';
import { OffOriginError, UsageError } from '../../src/core/errors.js';
import { apiActionFromJournal } from '../../src/features/trade/api-call.js';
import { parseAlertUrl } from '../../src/features/keeper/keeper-service.js';
import type { JournalEntry } from '../../src/platform/journal/index.js';
import {
  atBaseOrigin,
  checkBaseUrl,
  isLoopbackAddress,
  isLoopbackHost,
  loopbackOnlyLookup,
  resolveApiPath,
} from '../../src/core/security/base-url.js';
import { clientFor } from '../support/client.js';
import { usageRefusal } from '../support/output/refusal.js';
import { buildParams, parseApiMethod, parseHeader, queryStringOf } from '../../src/core/api-params.js';

/** A base URL without a path: a path glued to it can name another host (`@host/x`). */
const BARE = 'http://127.0.0.1:4030';
const BASE = 'https://api.example.com/partners/acme/v2';

// A URL at the base URL's origin passes, whatever its path: every request of the suite, and a next-page link below.
// Another host after a bare base URL (the journal row of the review): transport-origin.test.ts sends it for real.
it.each([
  ['another port', 'http://127.0.0.1:4031/hedges', 'http://127.0.0.1:4031'],
  ['another scheme', 'https://127.0.0.1:4030/hedges', 'https://127.0.0.1:4030'],
  ['the same host with a user and password', `${BARE}@127.0.0.1:4030/x`, 'a URL carrying a user and password'],
  ['not a URL at all', 'http://[::1', 'something that is not a URL'],
])('atBaseOrigin: the one origin check: refuses %s (OffOriginError, exit 2, code off_origin)', (_, target, where) => {
  const thrown = (() => {
    try {
      atBaseOrigin(BARE, target, 'POST @127.0.0.2:4044/steal');
    } catch (error) {
      return error;
    }
  })();
  expect(thrown).toBeInstanceOf(OffOriginError);
  expect((thrown as Error).message).toBe(
    `POST @127.0.0.2:4044/steal would leave the base URL's origin (http://127.0.0.1:4030) for ${where}; refused, it was not sent.`,
  );
  expect(describeError(thrown)).toMatchObject({ exitCode: 2, code: 'off_origin', kind: 'usage' });
});

it('atBaseOrigin: the one origin check: is what a next-page link passes: another origin is OffOriginError, another path under the origin a usage error', () => {
  const next = (link: string) => () => readPathPage(BASE, '/hedges', { meta: { next: link }, headers: {} });
  for (const link of [
    'https://evil.example/partners/acme/v2/hedges?page=2',
    'http://api.example.com/partners/acme/v2/hedges?page=2',
    'https://api.example.com:8443/partners/acme/v2/hedges',
    'https://u:p@api.example.com/partners/acme/v2/hedges',
  ]) {
    expect(next(link), link).toThrow(OffOriginError);
    expect(next(link), link).toThrow(
      /^--paginate: the server's next-page link would leave the base URL's origin \(https:\/\/api\.example\.com\)/,
    );
  }
  expect(next('https://api.example.com/other/v2/hedges')).toThrow(/leads outside the base URL/);
  expect(next('https://api.example.com/partners/acme/v2/hedges?page=2')().next).toBe('/hedges?page=2');
});

const { client } = clientFor({ baseUrl: BARE, apiKey: 'hpk_test_OriginUnitTestKey00000000001' } as RunningSandbox);
const row = (method: string, path: string) =>
  ({
    id: 'j_injected1',
    command: `api ${method} ${path}`,
    request: { method, path, body: { side: 'buy' } },
  }) as JournalEntry;

it.each([
  // '@127.0.0.2:port/steal' (the review's row): transport-origin.test.ts resumes it for real.
  ['//127.0.0.2:4044/steal', /is not a path under the base URL \(a fresh `hedge api` refuses it\)/],
  ['http://127.0.0.2:4044/steal', /is not a path under the base URL/],
  ['/hedges/../../x', /is not one `hedge api` journals/],
])(
  'a resumed `hedge api` row is resolved again as a fresh `hedge api PATH` is: a row whose path is %s is refused, naming the row: nothing to send',
  (path, why) => {
    const resume = () => apiActionFromJournal(client, row('POST', path));
    expect(resume).toThrow(OffOriginError);
    expect(resume).toThrow(/^Journal j_injected1 \(api POST .*\) is not resumed: its path /);
    expect(resume).toThrow(why);
  },
);

it('a resumed `hedge api` row is resolved again as a fresh `hedge api PATH` is: a row whose method is not one hedge api writes with is refused', () => {
  expect(() => apiActionFromJournal(client, row('CONNECT', '/hedges'))).toThrow(
    /^Journal j_injected1 \(api CONNECT \/hedges\) is not resumed: its method "CONNECT"/,
  );
  expect(() => apiActionFromJournal(client, row('GET', '/hedges'))).toThrow(UsageError);
});

it('plain http:// only to loopback: loopback hosts: a literal 127.0.0.0/8 or ::1, or localhost itself — not a name under .localhost; loopback addresses a socket can be connected to', () => {
  for (const host of ['127.0.0.1', '127.1.2.3', '[::1]', '::1', 'localhost', 'LOCALHOST'])
    expect(isLoopbackHost(host), host).toBe(true);
  for (const host of [
    'evil-api.localhost',
    'a.b.localhost',
    'localhost.',
    'localhost.example',
    '10.0.0.5',
    '0.0.0.0',
    '[::]',
  ])
    expect(isLoopbackHost(host), host).toBe(false);
  for (const address of ['127.0.0.1', '127.0.0.2', '::1', '::ffff:127.0.0.1'])
    expect(isLoopbackAddress(address), address).toBe(true);
  for (const address of ['192.0.2.2', '::ffff:10.0.0.1', 'fd00::2', '0.0.0.0', undefined])
    expect(isLoopbackAddress(address), String(address)).toBe(false);
});

it('plain http:// only to loopback: base URL rules: http:// to a non-loopback host, one carrying credentials, or under .localhost is refused in one line saying why (a UsageError, exit 2); http:// to loopback (localhost itself too) and https:// anywhere are allowed', () => {
  const underLocalhost =
    /\(from HEDGE_BASE_URL\): a name under \.localhost .* is resolved through DNS like any other name, so it may not be this machine; http:\/\/ is allowed only to 127\.0\.0\.0\/8, ::1 and localhost itself\.$/;
  for (const [raw, why] of [
    ['http://10.0.0.5/v2', /HTTPS only/],
    ['https://user:pw@example.com/v2', /credentials/],
    ['http://evil-api.localhost:4030/v2', underLocalhost],
    ['http://localhost.:4030/v2', underLocalhost],
  ] as const)
    expect(
      usageRefusal(() => checkBaseUrl(raw, 'HEDGE_BASE_URL')),
      raw,
    ).toMatch(why);
  for (const [raw, kept = raw] of [
    ['http://127.0.0.1:4010/partners/sandbox/v2/', 'http://127.0.0.1:4010/partners/sandbox/v2'],
    ['http://[::1]:4010/v2'],
    ['https://api.example.com/partners/acme/v2'],
    ['http://localhost:4030/v2'],
    ['https://evil-api.localhost/v2'],
  ])
    expect(checkBaseUrl(raw, 'HEDGE_BASE_URL')).toBe(kept);
});

it('plain http:// only to loopback: --alert-url: the same rule; over plain http the lookup its connection uses answers only loopback addresses (a localhost a resolver sends elsewhere fails before any connection)', async () => {
  expect(() => parseAlertUrl('http://hooks.localhost:8080/x')).toThrow(
    /^--alert-url: plain http:\/\/ to hooks\.localhost is not allowed \(a name under \.localhost/,
  );
  expect(parseAlertUrl('http://localhost:8080/x')).toBe('http://localhost:8080/x');
  /** The lookup over a resolver that answers `address` to every name (its callback is the third argument). */
  const lookupWith = (address: string) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((resolve) =>
      loopbackOnlyLookup(((...args: any[]) => args[2](null, address, 4)) as never)('localhost', {}, (error, found) =>
        resolve({ error, address: found }),
      ),
    );
  expect(await lookupWith('127.0.0.1')).toEqual({ error: null, address: '127.0.0.1' });
  const away = await lookupWith('192.0.2.2');
  expect(away.error?.message).toBe(
    'localhost resolves to 192.0.2.2, not a loopback address (plain http:// goes to this machine only)',
  );
  expect(away.error?.code).toBe('ENOTLOOPBACK');
  // The machine's own resolver: localhost is loopback here.
  const real = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
    loopbackOnlyLookup()('localhost', { all: true }, (error) => resolve(error)),
  );
  expect(real).toBeNull();
});

// The pure parts of `hedge api`: the path rule (security/base-url.ts), -f/-F parameters and -H
// headers (domain/api-params.ts); where the next page is: below.
/** -f (string) and -F (typed) parameters as written on the command line. */
const flags = (...args: string[]) => args.map((arg) => ({ raw: arg.slice(3), typed: arg.startsWith('-F') }));

it.each([
  ['/hedges', '/hedges'],
  ['/hedges?status=filled&limit=5', '/hedges?status=filled&limit=5'],
  ['/hedges/../markets', '/markets'],
  ['/', ''],
  ['/@evil.example/x', '/@evil.example/x'],
])('resolveApiPath: relative to the base URL, never another host: %s → %s', (raw, path) => {
  expect(resolveApiPath(BASE, raw)).toBe(path);
});

// Another host, an absolute URL, a climb out, an encoded slash, a backslash: also through the binary
// (test/scripting/scripting-api.test.ts), nothing sent.
it.each([
  ['HTTP://api.example.com/partners/acme/v2/hedges', 'is an absolute URL'],
  ['mailto:x@example.com', 'is an absolute URL'],
  ['..', 'climbs out of the base path'],
  ['/a/%2E%2e/%2e%2e/x', 'climbs out of the base path'],
  ['/hedges%2F..%2F..%2Fv1', 'has an encoded slash'],
  ['/hedges#x', 'has a fragment'],
  ['/hedges x', 'has spaces or control characters'],
  ['/hedges\u001b[2J', 'has spaces or control characters'],
  ['/hedges/%zz', 'is not an escape'],
  ['', 'is empty'],
])('resolveApiPath: relative to the base URL, never another host: %j is refused: %s', (raw, why) => {
  expect(usageRefusal(() => resolveApiPath(BASE, raw))).toContain(why);
});

it('-f / -F parameters: -f is a string; -F types literals and numbers, reads @file; keys nest and append', () => {
  const files: Record<string, string> = { 'ref.txt': 'DEAL-9' };
  const params = buildParams(
    flags(
      '-f market=USDTNGN',
      '-f notional_usd=10000',
      '-F tenor_days=3',
      '-F rate=-1.5e2',
      '-F ok=true',
      '-F none=null',
      '-F ref=@ref.txt',
      '-F plain=a=b',
      '-f leg[side]=buy',
      '-F leg[size]=5',
      '-f tags[]=a',
      '-f tags[]=b',
    ),
    (file) => files[file],
  );
  expect(params).toEqual({
    market: 'USDTNGN',
    notional_usd: '10000',
    tenor_days: 3,
    rate: -150,
    ok: true,
    none: null,
    ref: 'DEAL-9',
    plain: 'a=b',
    leg: { side: 'buy', size: 5 },
    tags: ['a', 'b'],
  });
});

it('-f / -F parameters: refuses what is not key=value, a key set twice, and a group in a query string', () => {
  const built =
    (...args: string[]) =>
    () =>
      buildParams(flags(...args), () => '');
  expect(built('-f market')).toThrow('-f: "market" is not key=value.');
  expect(built('-F =x')).toThrow('-F: "=x" is not key=value.');
  expect(built('-f a=1', '-f a=2')).toThrow(/sets a a second time/);
  expect(built('-f a[]x=1')).toThrow(/no usable key/);
  expect(queryStringOf({ status: 'filled', limit: 5, tags: ['a', 'b'] })).toBe('status=filled&limit=5&tags=a&tags=b');
  expect(() => queryStringOf({ leg: { side: 'buy' } })).toThrow(/a GET carries its parameters in the query string/);
});

it('-f / -F parameters: keeps __proto__ and constructor as keys of the body, never reaching the process objects', () => {
  const params = buildParams(
    flags('-F __proto__[polluted]=1', '-f constructor[x]=y', '-f __proto__[list][]=a'),
    () => '',
  );
  expect(JSON.stringify(params)).toBe('{"__proto__":{"polluted":1,"list":["a"]},"constructor":{"x":"y"}}');
  expect([
    ({} as Record<string, unknown>).polluted,
    Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'),
  ]).toEqual([undefined, false]);
});

it('-f / -F parameters: -H: "Name: value"; Authorization and the headers hedge sets are refused', () => {
  expect(parseHeader('X-Desk:  fx-1 ')).toEqual(['X-Desk', 'fx-1']);
  for (const name of ['Authorization', 'authorization', 'Idempotency-Key', 'Host', 'Cookie', 'Content-Length']) {
    expect(() => parseHeader(`${name}: x`)).toThrow(new RegExp(`^-H: ${name} cannot be set`));
  }
  expect(() => parseHeader('no colon')).toThrow(/is not "Name: value"/);
  expect(() => parseHeader('X-A: b\r\nX-B: c')).toThrow(/line break/);
  expect([parseApiMethod(undefined), parseApiMethod('post')]).toEqual(['GET', 'POST']);
  expect(() => parseApiMethod('TRACE')).toThrow('-X: "TRACE" is not allowed; expected GET, POST, PUT, PATCH, DELETE.');
});

// api/wire/: the one Link-header reader (http-link-header, RFC 8288) on headers as real services
// write them, and the one pager (followPages for the client's lists, readPathPage for
// `hedge api --paginate`) on the paging forms page-reading.ts detects. The pages are handed in by
// an injected fetch: nothing here is a network.

it.each([
  [
    'GitHub style, next among several',
    '<https://api.github.com/repositories/1/issues?page=2>; rel="next", <https://api.github.com/repositories/1/issues?page=5>; rel="last"',
    'https://api.github.com/repositories/1/issues?page=2',
  ],
  [
    'next after prev and first',
    '<https://x/a?p=1>; rel="first", <https://x/a?p=1>; rel="prev", <https://x/a?p=3>; rel="next"',
    'https://x/a?p=3',
  ],
  [
    'a comma inside the URL (splitting on every comma broke it)',
    '<https://x/hedges?ids=a,b,c&cursor=9>; rel="next"',
    'https://x/hedges?ids=a,b,c&cursor=9',
  ],
  [
    'a comma inside a quoted parameter',
    '<https://x/a?p=0>; rel="prev"; title="back, please", <https://x/a?p=2>; rel="next"; title="on, please"',
    'https://x/a?p=2',
  ],
  ['several relation types in one rel', '<https://x/a?p=2>; rel="next last"', 'https://x/a?p=2'],
  ['rel unquoted and in capitals', '<https://x/a?p=2>; REL=Next', 'https://x/a?p=2'],
  ['a relative link', '</partners/acme/v2/hedges?cursor=abc>; rel="next"', '/partners/acme/v2/hedges?cursor=abc'],
  [
    'extra parameters and odd spacing',
    '  <https://x/a?p=2> ;type="application/json" ;  rel = "next"  ',
    'https://x/a?p=2',
  ],
  ['a trailing comma', '<https://x/a?p=2>; rel="next",', 'https://x/a?p=2'],
  [
    'several Link headers are one list',
    ['<https://x/a?p=0>; rel="prev"', '<https://x/a?p=2>; rel="next"'],
    'https://x/a?p=2',
  ],
  [
    'a bad link beside a good one does not hide it',
    '<https://x/a?p=0>; rel="prev"; broken=, <https://x/a?p=2>; rel="next"',
    'https://x/a?p=2',
  ],
  ['no next: only prev and last', '<https://x/a?p=1>; rel="prev", <https://x/a?p=9>; rel="last"', undefined],
  ['no next: a relation that only starts with next', '<https://x/a?p=1>; rel="nextish"', undefined],
  ['no next: empty', '', undefined],
  ['no next: no header', undefined, undefined],
  ['no next: not a Link header at all', 'garbage; rel=next', undefined],
])('the Link header: %s', (_what, header, expected) => {
  expect(nextLink(header)).toBe(expected);
});

// Cursors followed with the filters kept to a page that gives none, and a caller with enough asking no further page:
// test/scripting/scripting-paginate.test.ts and the history pages of wire-tolerance.test.ts.
it('the one pager: a server that hands out a next request already made ends the walk as repeated, not a loop', async () => {
  const answers: Record<string, Partial<PageAnswer>> = {
    '': { data: [{ id: 1 }], meta: { next_cursor: 'c2' } },
    'cursor=c2': { data: [{ id: 2 }], meta: { next_cursor: 'c2' } },
  };
  const asked: string[] = [];
  const seen = [];
  const fetchPage = async (query: Record<string, string>) => {
    const key = new URLSearchParams(query).toString();
    asked.push(key);
    return { data: [], meta: {}, headers: {}, url: `${BASE}/hedges?${key}`, ...answers[key] };
  };
  for await (const page of followPages(fetchPage, {})) seen.push(page.next);
  expect([seen, asked]).toEqual([
    ['page', 'repeated'],
    ['', 'cursor=c2'],
  ]);
});

const link = (href: string) => ({ link: `<${href}>; rel="next"` });
const body = (next_cursor: string | null) => ({ items: [{ id: 1 }], next_cursor });
it.each<[string, Record<string, unknown>, string?, object?, string?]>([
  // A cursor in meta goes back as cursor=, replacing the last one, encoded; has_more false or none ends it.
  // Page after page by a cursor in meta, in the body, or a Link header: test/scripting/scripting-paginate.test.ts.
  ['/hedges?limit=2&cursor=c2', { next_cursor: 'c4' }, '/hedges?limit=2&cursor=c4'],
  ['/hedges', { cursor: { next: 'n1' } }, '/hedges?cursor=n1'],
  ['/hedges?a=1', { next_cursor: 'x y' }, '/hedges?a=1&cursor=x+y'],
  ['/hedges', { next_cursor: 'c', has_more: false }, undefined],
  ['/hedges', { next_cursor: null }, undefined],
  ['/hedges', {}, undefined],
  // A next link in meta, relative or absolute, or a cursor token there; a Link header with a comma in its query.
  ['/hedges', { next: '/partners/acme/v2/hedges?page=3' }, '/hedges?page=3'],
  ['/hedges', { links: { next: `${BASE}/hedges?page=4` } }, '/hedges?page=4'],
  ['/hedges', { links: { next: 'tok-9' } }, '/hedges?cursor=tok-9'],
  ['/hedges', {}, '/hedges?ids=a,b&page=2', { headers: link(`${BASE}/hedges?ids=a,b&page=2`) }],
  // Page numbers.
  ['/hedges?status=open', { pagination: { page: 1, total_pages: 3 } }, '/hedges?status=open&page=2'],
  ['/hedges?status=open', { pagination: { page: 3, total_pages: 3 } }, undefined],
  // A cursor in the body beside the rows, and the profile's cursor parameter.
  ['/hedges', {}, '/hedges?after=c2', { data: body('c2') }, 'after'],
  ['/hedges', {}, undefined, { data: body(null) }],
  // Any other next_<name> goes back as <name> (a number as its digits), a configured cursor name notwithstanding.
  [
    '/hedges?status=closed',
    { next_before: '2026-03-01T00:00:00.000Z' },
    '/hedges?status=closed&before=2026-03-01T00%3A00%3A00.000Z',
    {},
    'cursor',
  ],
  ['/hedges?before=x', { nextSeq: 17 }, '/hedges?before=x&seq=17'],
])(
  'hedge api --paginate: the next page read as the lists read it: %s with meta %j: %s',
  (path, meta, expected, answer = {}, cursorParam) => {
    expect(readPathPage(BASE, path, { meta, headers: {}, ...answer }, cursorParam).next).toBe(expected);
  },
);
