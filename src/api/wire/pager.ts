// The one pager. The spec shows a page-size bound and no paging (§4 GET /hedges), so a real
// service may page any of the usual ways; page-reading.ts reads one answer (rows, "more", the next
// request: a next link in the Link header or the envelope, a cursor, page numbers, an offset) and
// this follows it, page after page:
//
// - `followPages`: the client's lists (`HedgeClient.list`, `historyPages`) — each next page asked
//   at the list's own path with the query the answer gives; a next request already made ends the
//   walk as `repeated` (a server that hands out the same page again would loop for ever);
// - `nextPagePath`: `hedge api --paginate`, which follows the link itself — and a next link must
//   stay under the base URL (security/base-url.ts: atBaseOrigin, the one origin check, and
//   resolveApiPath): the key never follows a link to another host.
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

export interface FollowedPage<A extends PageAnswer> {
  answer: A;
  reading: PageReading;
  /** The query this page was asked with. */
  query: Record<string, string>;
  /** What follows: another page; nothing (the server says so, or gives no next request); nothing because the server repeated a next request. */
  next: 'page' | 'none' | 'repeated';
}

export interface FollowOptions {
  /** The first page's query (filters); every next page's query comes from the answer before it. */
  query?: Record<string, string>;
  /** A configured name to send a cursor back under (else derived from the answer's key). */
  cursorParam?: string;
}

/**
 * Asks page after page through `fetchPage` (which adds the page size, retries a refusal of it,
 * checks the rows: the caller's business), yielding each page with what follows it. The caller
 * stops whenever it has enough (a limit reached): the walk ends with it.
 */
export async function* followPages<A extends PageAnswer>(fetchPage: (query: Record<string, string>) => Promise<A>, options: FollowOptions = {}): AsyncGenerator<FollowedPage<A>> {
  const asked = new Set<string>();
  let query: Record<string, string> = { ...(options.query ?? {}) };
  for (;;) {
    asked.add(JSON.stringify(query));
    const answer = await fetchPage(query);
    const reading = readPage({ data: answer.data, meta: answer.meta, linkHeader: answer.headers.link }, { query, listUrl: answer.url, cursorParam: options.cursorParam });
    const following = reading.more === false ? undefined : reading.next;
    const next = following === undefined ? 'none' : asked.has(JSON.stringify(following.query)) ? 'repeated' : 'page';
    yield { answer, reading, query, next };
    if (next !== 'page') return;
    query = following!.query;
  }
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
    throw new UsageError(`--paginate: the server's next-page link leads outside the base URL (${target.origin}${target.pathname}); stopped, nothing more was sent.`);
  }
  return resolveApiPath(baseUrl, `${target.pathname.slice(base.pathname.length - 1)}${target.search}`);
}

/**
 * The path of the page after this one, or undefined when this was the last (`hedge api
 * --paginate`). `path` is the path this page was asked with (relative to the base URL). Read by
 * the same reader as the client's lists; a next link is followed whole (under the base URL), any
 * other next request is this path with the query the answer gives.
 */
export function nextPagePath(
  baseUrl: string,
  path: string,
  answer: { data?: unknown; meta: Record<string, unknown>; headers: Record<string, string | string[] | undefined> },
): string | undefined {
  const listUrl = `${baseUrl.replace(/\/+$/, '')}${path.startsWith('/') ? '' : '/'}${path}`;
  const question = path.indexOf('?');
  const query = Object.fromEntries(new URLSearchParams(question < 0 ? '' : path.slice(question + 1)).entries());
  const reading = readPage({ data: answer.data, meta: answer.meta, linkHeader: answer.headers.link }, { query, listUrl });
  if (reading.nextLink !== undefined) return underBase(baseUrl, reading.nextLink);
  if (reading.more === false || reading.next === undefined) return undefined;
  const search = new URLSearchParams(reading.next.query).toString();
  return `${question < 0 ? path : path.slice(0, question)}${search === '' ? '' : `?${search}`}`;
}
