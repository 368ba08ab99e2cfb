// api/wire/: the one Link-header reader (http-link-header, RFC 8288) on headers as real services
// write them, and the one pager (followPages for the client's lists, nextPagePath for
// `hedge api --paginate`) on the paging forms page-reading.ts detects. The pages are handed in by
// an injected fetch: nothing here is a network.
import { describe, expect, it } from 'vitest';
import { nextLink, followPages, nextPagePath, type PageAnswer } from '../../src/platform/api/wire/pages.js';

const BASE = 'https://api.example.com/partners/acme/v2';

describe('the Link header', () => {
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
  ])('%s', (_what, header, expected) => {
    expect(nextLink(header)).toBe(expected);
  });

  it('several Link headers are one list; a bad link beside a good one does not hide it', () => {
    expect(nextLink(['<https://x/a?p=0>; rel="prev"', '<https://x/a?p=2>; rel="next"'])).toBe('https://x/a?p=2');
    expect(nextLink('<https://x/a?p=0>; rel="prev"; broken=, <https://x/a?p=2>; rel="next"')).toBe('https://x/a?p=2');
  });

  it('no next: only prev/last, empty, or not a Link header at all', () => {
    expect(nextLink('<https://x/a?p=1>; rel="prev", <https://x/a?p=9>; rel="last"')).toBeUndefined();
    expect(nextLink('<https://x/a?p=1>; rel="nextish"')).toBeUndefined();
    expect(nextLink('')).toBeUndefined();
    expect(nextLink(undefined)).toBeUndefined();
    expect(nextLink('garbage; rel=next')).toBeUndefined();
  });
});

/** A server's answers by the query asked, and the queries in the order they were asked. */
function server(pages: Record<string, Partial<PageAnswer>>): {
  fetchPage: (query: Record<string, string>) => Promise<PageAnswer>;
  asked: string[];
} {
  const asked: string[] = [];
  return {
    asked,
    fetchPage: async (query) => {
      const key = new URLSearchParams(query).toString();
      asked.push(key);
      const page = pages[key];
      if (!page) throw new Error(`no page for ${key}`);
      return { data: [], meta: {}, headers: {}, url: `${BASE}/hedges?${key}`, ...page };
    },
  };
}

async function walk(
  pages: ReturnType<typeof server>,
  options: Parameters<typeof followPages>[1] = {},
): Promise<Array<{ rows: unknown; next: string }>> {
  const seen: Array<{ rows: unknown; next: string }> = [];
  for await (const page of followPages(pages.fetchPage, options))
    seen.push({ rows: page.reading.rows, next: page.next });
  return seen;
}

describe('the one pager', () => {
  it('follows cursors with the filters kept, to a page that gives none', async () => {
    const pages = server({
      'status=filled': { data: [{ id: 1 }], meta: { next_cursor: 'c2' } },
      'status=filled&cursor=c2': { data: [{ id: 2 }], meta: { next_cursor: 'c3' } },
      'status=filled&cursor=c3': { data: [{ id: 3 }], meta: { next_cursor: null } },
    });
    expect(await walk(pages, { query: { status: 'filled' } })).toEqual([
      { rows: [{ id: 1 }], next: 'page' },
      { rows: [{ id: 2 }], next: 'page' },
      { rows: [{ id: 3 }], next: 'none' },
    ]);
    expect(pages.asked).toEqual(['status=filled', 'status=filled&cursor=c2', 'status=filled&cursor=c3']);
  });

  it('a server that hands out a next request already made ends the walk as repeated, not a loop', async () => {
    const pages = server({
      '': { data: [{ id: 1 }], meta: { next_cursor: 'c2' } },
      'cursor=c2': { data: [{ id: 2 }], meta: { next_cursor: 'c2' } },
    });
    expect((await walk(pages)).map((page) => page.next)).toEqual(['page', 'repeated']);
    expect(pages.asked).toHaveLength(2);
  });

  it('has_more false ends it whatever cursor is beside it; a Link header and page numbers are followed too', async () => {
    const stopped = server({ '': { data: [{ id: 1 }], meta: { next_cursor: 'c2', has_more: false } } });
    expect((await walk(stopped)).map((page) => page.next)).toEqual(['none']);
    const linked = server({
      '': { data: [{ id: 1 }], headers: { link: `<${BASE}/hedges?ids=a,b&after=h1>; rel="next"` } },
      'ids=a%2Cb&after=h1': { data: [{ id: 2 }], meta: { pagination: { page: 1, total_pages: 2 } } },
      'ids=a%2Cb&after=h1&page=2': { data: [{ id: 3 }], meta: { pagination: { page: 2, total_pages: 2 } } },
    });
    expect((await walk(linked)).map((page) => page.rows)).toEqual([[{ id: 1 }], [{ id: 2 }], [{ id: 3 }]]);
  });

  it('a caller that has enough stops the walk: no further page is asked', async () => {
    const pages = server({
      '': { data: [{ id: 1 }], meta: { next_cursor: 'c2' } },
      'cursor=c2': { data: [{ id: 2 }], meta: { next_cursor: 'c3' } },
    });
    for await (const page of followPages(pages.fetchPage)) if (page.reading.rows?.length) break;
    expect(pages.asked).toEqual(['']);
  });

  it('any other next_<name> goes back as <name> (next_before → before, a number as its digits), a configured cursor name notwithstanding', async () => {
    const pages = server({
      'status=closed': { data: [{ id: 1 }], meta: { next_before: '2026-03-01T00:00:00.000Z' } },
      'status=closed&before=2026-03-01T00%3A00%3A00.000Z': { data: [{ id: 2 }], meta: { nextSeq: 17 } },
      'status=closed&before=2026-03-01T00%3A00%3A00.000Z&seq=17': { data: [{ id: 3 }], meta: { next_before: null } },
    });
    expect(await walk(pages, { query: { status: 'closed' }, cursorParam: 'cursor' })).toEqual([
      { rows: [{ id: 1 }], next: 'page' },
      { rows: [{ id: 2 }], next: 'page' },
      { rows: [{ id: 3 }], next: 'none' },
    ]);
    // A marker hedge cannot send back (an object) still says more exist.
    const odd = server({ '': { data: [{ id: 1 }], meta: { next_before: { at: 'x' } } } });
    const [page] = await (async () => {
      const seen = [];
      for await (const one of followPages(odd.fetchPage)) seen.push(one);
      return seen;
    })();
    expect([page.next, page.reading.more]).toEqual(['none', true]);
  });

  it('a configured cursor name wins over the one derived from the answer', async () => {
    const pages = server({
      '': { data: { items: [{ id: 1 }], nextPageToken: 't2' } },
      'after=t2': { data: { items: [{ id: 2 }] } },
    });
    expect((await walk(pages, { cursorParam: 'after' })).map((page) => page.rows)).toEqual([[{ id: 1 }], [{ id: 2 }]]);
  });
});

describe('hedge api --paginate: the next page read as the lists read it', () => {
  const link = (href: string) => ({ link: `<${href}>; rel="next"` });
  const body = (next_cursor: string | null) => ({ items: [{ id: 1 }], next_cursor });
  type Row = [
    string,
    Record<string, unknown>,
    string | undefined,
    { data?: unknown; headers?: Record<string, string> }?,
    string?,
  ];
  it.each<Row>([
    // A cursor in meta goes back as cursor=, replacing the last one, encoded; has_more false or none ends it.
    ['/hedges?limit=2', { next_cursor: 'c2', has_more: true }, '/hedges?limit=2&cursor=c2'],
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
    ['/hedges?limit=2', {}, '/hedges?limit=2&cursor=c2', { data: body('c2') }],
    ['/hedges', {}, '/hedges?after=c2', { data: body('c2') }, 'after'],
    ['/hedges', {}, undefined, { data: body(null) }],
  ])('%s with meta %j: %s', (path, meta, expected, answer = {}, cursorParam) => {
    expect(nextPagePath(BASE, path, { meta, headers: {}, ...answer }, cursorParam)).toBe(expected);
  });
});
