// `hedge api --paginate` across pages: the simulator's hedges served a few at a time by a real
// paging proxy (test/support/servers/paging-proxy.ts) — by a cursor in meta or in the body, or by a Link
// header — and gathered into one envelope with every row, in order, once. A next link to another host is not
// followed: the key stays with the base URL.
import { startPagingProxy, type PagingProxy, type PagingStyle } from '../support/servers/paging-proxy.js';
import { apiData, closedAfterEach, envFor, useSimulators } from '../support/simulator.js';
import { ok, okJson, exits, lastJson } from '../support/cli-runs.js';

const start = useSimulators();
/** Paging proxies in front of a simulator, closed after each test. */
const pagingProxy = closedAfterEach(startPagingProxy);

/** The cursor each page was asked for (none for the first). */
const cursors = (proxy: PagingProxy) => proxy.pages.map((query) => query.cursor ?? null);

async function pagedSimulator(style: PagingStyle) {
  const simulator = await start();
  simulator.sandbox.seedHedges({ apiKey: simulator.apiKey, count: 5 });
  const proxy = await pagingProxy(simulator.sandbox, style);
  const ids = (await apiData(simulator, 'GET', '/hedges')).map((hedge: any) => hedge.id);
  return { simulator, proxy, ids, env: envFor(proxy) };
}

it.each(['cursor', 'link'] as const)(
  'hedge api --paginate: follows the %s from page to page: one envelope, every row once, in order',
  async (style) => {
    const { simulator, proxy, ids, env } = await pagedSimulator(style);
    expect(ids).toHaveLength(5);
    const envelope = okJson(await simulator.hedge('api /hedges -F limit=2 --paginate', { env }));
    expect([
      envelope.error,
      [envelope.data.map((hedge: any) => hedge.id), cursors(proxy), proxy.pages.every((query) => query.limit === '2')],
    ]).toEqual([null, [ids, [null, '2', '4'], true]]);
    if (style === 'cursor') expect(envelope.meta).toMatchObject({ next_cursor: null, has_more: false });
  },
);

it('hedge api --paginate: follows a cursor in the body beside the rows, as the list commands do: one envelope per page, every row once, in order', async () => {
  const { simulator, proxy, ids, env } = await pagedSimulator('body-cursor');
  const pages = ok(await simulator.hedge('api /hedges -F limit=2 --paginate --format ndjson', { env }))
    .stdout.trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect([
    pages.map((page) => page.data.next_cursor),
    pages.flatMap((page) => page.data.items.map((hedge: any) => hedge.id)),
    cursors(proxy),
  ]).toEqual([['2', '4', null], ids, [null, '2', '4']]);
  // The list command reads the same pages the same way.
  proxy.pages.length = 0;
  const listed = okJson(
    await simulator.hedge('hedges --json', { env: { ...env, HEDGE_WIRE_PAGE_SIZE_PARAM: 'none' } }),
  );
  expect([listed.map((hedge: any) => hedge.id), cursors(proxy)]).toEqual([ids, [null, '2', '4']]);
});

it('hedge api --paginate: is for GET (with -X POST it is refused, nothing sent); without --paginate, one page; --query counts every row with it; ndjson gives one envelope per page', async () => {
  const { simulator, proxy, env } = await pagedSimulator('cursor');
  exits(await simulator.hedge('api -X POST /hedges --paginate', { env }), 2);
  expect([proxy.pages, simulator.writes()]).toEqual([[], []]);
  expect(okJson(await simulator.hedge('api /hedges?limit=2', { env })).data).toHaveLength(2);
  expect(proxy.pages).toHaveLength(1);
  expect(okJson(await simulator.hedge('api /hedges?limit=2 --paginate --query length(data)', { env }))).toBe(5);
  const lines = await simulator.hedge('api /hedges?limit=2 --paginate --format ndjson', { env });
  expect(
    lines.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).data.length),
  ).toEqual([2, 2, 1]);
});

it('hedge api --paginate: a next link to another host is not followed (exit 2, off_origin: the one origin check): only the first page was asked for', async () => {
  const { simulator, proxy, env } = await pagedSimulator('link-elsewhere');
  const result = exits(await simulator.hedge('api /hedges -F limit=2 --paginate', { env }), 2);
  expect(result.stderr).toMatch(
    /--paginate: the server's next-page link would leave the base URL's origin \(http:\/\/127\.0\.0\.1:\d+\) for https:\/\/elsewhere\.example; refused, it was not sent\./,
  );
  expect(proxy.pages).toHaveLength(1);
  expect(lastJson((await simulator.hedge('api /hedges -F limit=2 --paginate --json', { env })).stderr)).toMatchObject({
    error: { code: 'off_origin', class: 'usage' },
  });
  expect(proxy.pages).toHaveLength(2);
});
