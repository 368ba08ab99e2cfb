// The one pager. The spec shows a page-size bound and no paging (§4 GET /hedges), so a real
// service may page any of the usual ways; page-reading.ts reads one answer (rows, "more", the next
// request: a next link in the Link header or the envelope, a cursor, page numbers, an offset) and
// this follows it, page after page:
//
// - `followPages`: the client's lists (`HedgeClient.list`, `historyPages`) — each next page asked
//   at the list's own path with the query the answer gives; a next request already made ends the
//   walk as `repeated` (a server that hands out the same page again would loop for ever);
// - `followPaths`: `hedge api --paginate`, the same walk over paths, which follows a next link
//   itself (`nextPagePath`) — and a next link must stay under the base URL (security/base-url.ts:
//   atBaseOrigin, the one origin check, and resolveApiPath): the key never follows a link to
//   another host.
import { UsageError } from '../../errors.js';
import { atBaseOrigin, resolveApiPath } from '../../security/base-url.js';
import { readPage, type PageReading } from './page-reading.js';

/** What the pager needs of one answer (the transport's ApiResponse has it). */
export interface PageAnswer {
  data: unknown;
  meta: Record<string, unknown>;
  /** Names in lower case; `link` may carry the next page. */
  headers: Record<string, string | string[] | undefined>;
  /** The URL asked (a relative next link is resolved against it). */
  url: string;
}

export interface FollowedPage<A extends PageAnswer, R = Record<string, string>> {
  answer: A;
  reading: PageReading;
  /** The request this page was asked with: the list's query (followPages), the path (followPaths). */
  query: R;
  /** What follows: another page; nothing (the server says so, or gives no next request); nothing because the server repeated a next request. */
  next: 'page' | 'none' | 'repeated';
  /** The next request the answer gives (the one repeated, when `next` is `repeated`). */
  following?: R;
}

export interface FollowOptions {
  /** The first page's query (filters); every next page's query comes from the answer before it. */
  query?: Record<string, string>;
  /** A configured name to send a cursor back under (else derived from the answer's key). */
  cursorParam?: string;
}

/**
 * The one walk: asks `first`, reads the answer (page-reading.ts), asks what it gives next, page
 * after page, yielding each page with what follows it; a next request already made ends the walk
 * as `repeated`. The caller stops whenever it has enough: the walk ends with it.
 */
async function* walkPages<A extends PageAnswer, R>(
  first: R,
  fetchPage: (request: R) => Promise<A>,
  nextOf: (answer: A, request: R) => { reading: PageReading; next?: R },
): AsyncGenerator<FollowedPage<A, R>> {
  const asked = new Set<string>();
  let request = first;
  for (;;) {
    asked.add(JSON.stringify(request));
    const answer = await fetchPage(request);
    const { reading, next: following } = nextOf(answer, request);
    const next = following === undefined ? 'none' : asked.has(JSON.stringify(following)) ? 'repeated' : 'page';
    yield { answer, reading, query: request, next, ...(following === undefined ? {} : { following }) };
    if (next !== 'page') return;
    request = following!;
  }
}

/**
 * The client's lists: each next page asked at the list's own path with the query the answer gives,
 * through `fetchPage` (which adds the page size, retries a refusal of it, checks the rows: the
 * caller's business).
 */
export function followPages<A extends PageAnswer>(
  fetchPage: (query: Record<string, string>) => Promise<A>,
  options: FollowOptions = {},
): AsyncGenerator<FollowedPage<A>> {
  return walkPages({ ...(options.query ?? {}) }, fetchPage, (answer, query) => {
    const reading = readPage(
      { data: answer.data, meta: answer.meta, linkHeader: answer.headers.link },
      { query, listUrl: answer.url, cursorParam: options.cursorParam },
    );
    return { reading, ...(reading.more === false || reading.next === undefined ? {} : { next: reading.next.query }) };
  });
}

/**
 * `hedge api --paginate`: the same walk over paths (relative to the base URL, query included),
 * each next path given by nextPagePath — a next link followed whole, under the base URL.
 */
export function followPaths<A extends PageAnswer>(
  baseUrl: string,
  path: string,
  fetchPath: (path: string) => Promise<A>,
  options: Pick<FollowOptions, 'cursorParam'> = {},
): AsyncGenerator<FollowedPage<A, string>> {
  return walkPages(path, fetchPath, (answer, asked) => {
    const { reading, next } = readPathPage(baseUrl, asked, answer, options.cursorParam);
    return { reading, ...(next === undefined ? {} : { next }) };
  });
}

/** `path` with `name=value` set in its query string (replacing an earlier value). */
export function withQueryParam(path: string, name: string, value: string): string {
  const question = path.indexOf('?');
  const search = new URLSearchParams(question < 0 ? '' : path.slice(question + 1));
  search.set(name, value);
  return `${question < 0 ? path : path.slice(0, question)}?${search.toString()}`;
}

/**
 * A link given by the server, as a path under the base URL; refused when it leads elsewhere: to
 * another origin by the one origin check every request passes (OffOriginError), or out of the
 * base URL's path.
 */
function underBase(baseUrl: string, link: string): string {
  const base = new URL(`${baseUrl.replace(/\/+$/, '')}/`);
  let resolved: string;
  try {
    resolved = new URL(link, base).href;
  } catch {
    throw new UsageError(`--paginate: the server's next-page link ${JSON.stringify(link)} is not a URL; stopped.`);
  }
  const target = atBaseOrigin(baseUrl, resolved, "--paginate: the server's next-page link");
  if (!target.pathname.startsWith(base.pathname)) {
    throw new UsageError(
      `--paginate: the server's next-page link leads outside the base URL (${target.origin}${target.pathname}); stopped, nothing more was sent.`,
    );
  }
  return resolveApiPath(baseUrl, `${target.pathname.slice(base.pathname.length - 1)}${target.search}`);
}

/** One answer of `path` read as a page, and the path of the page after it (none when it was the last). */
function readPathPage(
  baseUrl: string,
  path: string,
  answer: { data?: unknown; meta: Record<string, unknown>; headers: Record<string, string | string[] | undefined> },
  cursorParam?: string,
): { reading: PageReading; next?: string } {
  const listUrl = `${baseUrl.replace(/\/+$/, '')}${path.startsWith('/') ? '' : '/'}${path}`;
  const question = path.indexOf('?');
  const query = Object.fromEntries(new URLSearchParams(question < 0 ? '' : path.slice(question + 1)).entries());
  const reading = readPage(
    { data: answer.data, meta: answer.meta, linkHeader: answer.headers.link },
    { query, listUrl, cursorParam },
  );
  if (reading.nextLink !== undefined) return { reading, next: underBase(baseUrl, reading.nextLink) };
  if (reading.more === false || reading.next === undefined) return { reading };
  const search = new URLSearchParams(reading.next.query).toString();
  return { reading, next: `${question < 0 ? path : path.slice(0, question)}${search === '' ? '' : `?${search}`}` };
}

/**
 * The path of the page after this one, or undefined when this was the last. `path` is the path
 * this page was asked with (relative to the base URL). Read by the same reader as the client's
 * lists — a cursor in the body beside the rows too; a next link is followed whole (under the base
 * URL), any other next request is this path with the query the answer gives.
 */
export function nextPagePath(
  baseUrl: string,
  path: string,
  answer: { data?: unknown; meta: Record<string, unknown>; headers: Record<string, string | string[] | undefined> },
  cursorParam?: string,
): string | undefined {
  return readPathPage(baseUrl, path, answer, cursorParam).next;
}
