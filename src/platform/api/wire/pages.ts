import LinkHeader from 'http-link-header';
import { UsageError } from '../../../core/errors.js';
import { atBaseOrigin, resolveApiPath } from '../../../core/security/base-url.js';
import { readString, readText } from './fields.js';
import { isObject, type JsonObject } from '../../../core/objects.js';

/** The `rel="next"` link of a header value: its target (undefined: none; empty: one without a target). */
function nextOf(value: string) {
  try {
    return LinkHeader.parse(value).rel('next')[0]?.uri;
  } catch {
    // Not a Link header value: no next link in it.
  }
}

/** The target of a `Link` header's `rel="next"`, as written; read link by link when the whole does not parse. */
export function nextLink(header: string | readonly string[] | undefined) {
  // The library reads leniently: a malformed parameter may swallow the links after it; each `<…>` part on its own.
  return [header ?? []]
    .flat()
    .map(
      (value) =>
        value.trim() &&
        (nextOf(value) ??
          value
            .split(/,(?=\s*<)/)
            .map(nextOf)
            .find(Boolean)),
    )
    .find(Boolean);
}

/** Names a page-size query parameter goes by, most common first (the first is our default guess). */
export const PAGE_SIZE_NAMES =
  'limit page_size per_page pageSize perPage size page_limit max_results maxResults count'.split(' ');

const [
  LIST_KEYS,
  CONTAINERS,
  NEXT_LINK_KEYS,
  CURSOR_KEYS,
  MORE_KEYS,
  PAGE_KEYS,
  PAGES_KEYS,
  TOTAL_KEYS,
  NEXT_PAGE_KEYS,
  OFFSET_KEYS,
] = [
  // Where a list hides inside an object `data`, most likely first.
  'items data results records rows entries list hedges history positions markets',
  // Objects that may hold paging facts, inside meta or beside the list.
  'pagination paging page_info pageInfo page cursor links _links',
  'next next_url nextUrl next_page_url nextPageUrl next_link nextLink href',
  'next_cursor nextCursor next_page_token nextPageToken next_token nextToken end_cursor endCursor after',
  'has_more hasMore has_next hasNext has_next_page hasNextPage more',
  'page current_page currentPage page_number pageNumber',
  'total_pages totalPages page_count pageCount last_page lastPage pages',
  'total total_count totalCount total_items totalItems total_elements totalElements total_records totalRecords total_entries totalEntries total_results count',
  'next_page nextPage',
  'offset skip start',
].map((keys) => keys.split(' '));

export interface PageReading {
  /** The rows of this page; undefined when the answer holds no list hedge can find. */
  rows?: unknown[];
  rowsAt: string;
  /** true: the server says more exist; false: it says this is the last; undefined: it says nothing. */
  more?: boolean;
  next?: {
    /** The query of the next request (replaces the list's query; the page size is added when absent). */
    query: Query;
    /** How it was found, for --verbose and `hedge doctor`: "meta.next_cursor as cursor", "Link header", … */
    how: string;
    /** Pages by number: the next is asked at the size this one was (another would move every row past it). */
    sameSize?: true;
  };
  /** A page-size name and value the answer states (`meta.page_size: 20`): the parameter the server reads, likely. */
  statedPageSize?: { name: string; value: number };
  total?: number;
  /** A next link the answer gives as a URL or path: `--paginate` follows it whole, the client only its query. */
  nextLink?: string;
  /** Rows an earlier page already gave, left out of `rows`. */
  repeats?: number;
}

/** A page's query parameters, as sent. */
export type Query = Record<string, string>;

/** The rows of a list answer: the array itself, or the one array an object `data` carries. */
export function findRows(data: unknown) {
  if (Array.isArray(data)) return { rows: data, rowsAt: 'data', rest: {} };
  const object = isObject(data) ? data : {};
  const arrays = Object.keys(object).filter((name) => Array.isArray(object[name]));
  const key = LIST_KEYS.find((name) => arrays.includes(name)) ?? (arrays.length === 1 ? arrays[0] : undefined);
  if (key === undefined) return { rowsAt: 'data', rest: object };
  const { [key]: rows, ...rest } = object;
  return { rows: rows as unknown[], rowsAt: `data.${key}`, rest };
}

/** The places paging facts may be: meta, what `data` carries beside the rows, and objects inside either. */
function places(meta: JsonObject, rest: JsonObject) {
  const found = [
    { at: 'meta', value: meta },
    { at: 'data', value: rest },
  ];
  for (const { at, value } of [...found])
    for (const key of CONTAINERS) if (isObject(value[key])) found.push({ at: `${at}.${key}`, value: value[key] });
  return found;
}

const whole = (value: unknown) => {
  const number =
    typeof value === 'number' || (typeof value === 'string' && /^\s*\d+\s*$/.test(value)) ? Number(value) : NaN;
  return Number.isInteger(number) && number >= 0 ? number : undefined;
};
const flag = (value: unknown) =>
  typeof value === 'boolean' ? value : value === 'true' ? true : value === 'false' ? false : undefined;
/** A next "link" that is a URL or a path; bare text (`"n1"`) is a cursor token under a link's name. */
const looksLikeLink = (value: string) => value.includes('/') || value.includes('?');

/** `next_cursor` → `cursor`, `nextPageToken` → `pageToken`, `end_cursor` / `after` → `after`. */
export function cursorParameterFor(key: string) {
  return /^(end_cursor|endCursor|after)$/.test(key)
    ? 'after'
    : key.replace(/^next_?/i, '').replace(/^./, (first) => first.toLowerCase());
}

/** One answer of a list: `query` as asked (filters kept), `listUrl` to resolve a relative link, `cursorParam` as set. */
export function readPage(answer: Omit<PageAnswer, 'url'>, query: Query, listUrl: string, cursorParam?: string) {
  const { rest, ...reading }: PageReading & { rest: JsonObject } = findRows(answer.data);
  const { rows } = reading;
  const sources = places(answer.meta, rest);
  /** The first of `keys` whose value `read` accepts, where it was and under which key. */
  const firstOf = <T>(keys: readonly string[], read: (value: unknown) => T | undefined) => {
    for (const source of sources)
      for (const key of keys) {
        const value = read(source.value[key]);
        if (value !== undefined) return { at: source.at, key, value };
      }
  };

  const stated = firstOf(
    PAGE_SIZE_NAMES.filter((name) => name !== 'count'),
    whole,
  );
  if (stated?.value) reading.statedPageSize = { name: stated.key, value: stated.value };
  reading.total = firstOf(TOTAL_KEYS, whole)?.value ?? whole([answer.headers?.['x-total-count']].flat()[0]);
  reading.more = firstOf(MORE_KEYS, flag)?.value;
  const follow = (query: Query, how: string) => {
    reading.next = { query, how };
    reading.more ??= true;
    return reading;
  };
  const sendBack = (parameter: string, value: string, how: string) => follow({ ...query, [parameter]: value }, how);

  // 1. A next link: the server's own word for the next request.
  const link = firstOf(NEXT_LINK_KEYS, readString);
  const header = nextLink(answer.headers?.link);
  const given =
    link && looksLikeLink(link.value)
      ? { value: link.value, how: `${link.at}.${link.key} (a next link)` }
      : header
        ? { value: header, how: 'the Link header (rel="next")' }
        : undefined;
  if (given) {
    reading.nextLink = given.value;
    // Its query, the link absolute or relative to the list's URL.
    const linkQuery = URL.canParse(given.value, listUrl) && new URL(given.value, listUrl).searchParams;
    if (linkQuery && linkQuery.size) return follow(Object.fromEntries(linkQuery), given.how);
  }
  // A next "link" that is bare text is a cursor token (`meta.cursor.next: "n1"`), sent back as a cursor;
  // 2. a cursor, or any other `next_<name>` marker, is sent back as `<name>` (`next_before` → `before`).
  const markers = [...CURSOR_KEYS, ...markersIn(sources)];
  const cursor = link && !looksLikeLink(link.value) ? link : firstOf(markers, readText);
  if (cursor && reading.more !== false) {
    const parameter =
      cursor === link
        ? (cursorParam ?? 'cursor')
        : ((CURSOR_KEYS.includes(cursor.key) ? cursorParam : undefined) ?? cursorParameterFor(cursor.key));
    return sendBack(parameter, cursor.value, `${cursor.at}.${cursor.key}, sent back as ${parameter}`);
  }
  // 3. Page numbers.
  const page = firstOf(PAGE_KEYS, whole);
  const pages = firstOf(PAGES_KEYS, whole);
  const nextPage = firstOf(NEXT_PAGE_KEYS, whole);
  if (nextPage || (page && pages && page.value < pages.value)) {
    const number = nextPage?.value ?? page!.value + 1;
    const parameter = page && !page.key.startsWith('current') ? page.key : 'page';
    // At the size this page was served at, under the name the answer states it by (if it does).
    const size = reading.statedPageSize;
    follow(
      { ...query, ...(size && { [size.name]: String(size.value) }), [parameter]: String(number) },
      `page numbers (${parameter}=${number})`,
    );
    reading.next!.sameSize = true;
    return reading;
  }
  if (page && pages) reading.more ??= false;
  // 4. An offset.
  const offset = firstOf(OFFSET_KEYS, whole);
  if (offset && rows?.length && (reading.more === true || offset.value + rows.length < (reading.total ?? 0))) {
    reading.more = true;
    return sendBack(offset.key, String(offset.value + rows.length), `${offset.at}.${offset.key} (an offset)`);
  }
  // A cursor or marker present and empty says this was the last page; one that cannot be sent back, that more exist.
  if (reading.more === undefined) {
    const values = sources.flatMap(({ value }) => markers.map((key) => value[key]));
    if (values.some((value) => value === null || value === '')) reading.more = false;
    else if (values.some((value) => value != null && value !== false)) reading.more = true;
  }
  return reading;
}

/** The `next_<name>` (or `nextName`) keys of the answer that no other rule reads. */
function markersIn(sources: ReturnType<typeof places>) {
  const known = [...NEXT_LINK_KEYS, ...CURSOR_KEYS, ...NEXT_PAGE_KEYS];
  return [
    ...new Set(
      sources.flatMap(({ value }) =>
        Object.keys(value).filter((key) => /^next(_|[A-Z])/.test(key) && !known.includes(key)),
      ),
    ),
  ];
}

export interface PageAnswer {
  data?: unknown;
  meta: JsonObject;
  /** Names in lower case; `link` may carry the next page. */
  headers?: Record<string, string | string[] | undefined>;
  /** The URL asked (a relative next link is resolved against it). */
  url: string;
}

/** Empty pages in a row, each naming a next one, after which a list is read as cut rather than followed further. */
export const MAX_EMPTY_PAGES = 10;

/** Page after page, each with whether another page follows, none, or none because the server repeated a next request
 * (`following`: the one it gives): a next request already made ends the walk as `repeated` (a server could loop us),
 * and the MAX_EMPTY_PAGES-th empty page in a row that still names a next one as `empty-run`. An empty page with a next
 * one is not the end: a server may page over what it then leaves out. */
async function* walkPages<A extends PageAnswer, R>(
  first: R,
  fetchPage: (request: R) => Promise<A>,
  nextOf: (answer: A, request: R) => { reading: PageReading; next?: R },
) {
  const asked = new Set<string>();
  let request = first;
  let empty = 0;
  for (;;) {
    asked.add(JSON.stringify(request));
    const answer = await fetchPage(request);
    const { reading, next: following } = nextOf(answer, request);
    empty = reading.rows?.length === 0 ? empty + 1 : 0;
    const next =
      following === undefined
        ? 'none'
        : asked.has(JSON.stringify(following))
          ? 'repeated'
          : empty >= MAX_EMPTY_PAGES
            ? 'empty-run'
            : 'page';
    yield { answer, reading, next, following };
    if (next !== 'page') return;
    request = following!;
  }
}

/** The client's lists: each next page asked at the list's path with the query the answer gives. With `rowKey`, rows an
 * earlier page gave are left out by id (a time marker read as older-or-equal gives the rows at it again, and pages by
 * number shift when a row comes in front), and a marker that is the time of the page's last row (`next_before`) is sent
 * 1 ms later, so rows sharing that time past the page are not skipped by a server that reads it as strictly older.
 * `fetchPage` is told how many rows read already the page may give again (those at a time marker's edge), for a page
 * size that leaves room for them, and whether the page is to be asked at the size the one before it was (`sameSize`). */
export function followPages<A extends PageAnswer>(
  fetchPage: (query: Query, again: number, sameSize: boolean) => Promise<A>,
  // The first page's query (filters; every next page's comes from the answer before it).
  first: Query,
  // A configured name to send a cursor back under (else derived from the answer's key).
  cursorParam?: string,
  // A row's id and time (ISO), for a list paged by a time marker.
  rowKey?: (row: unknown) => { id?: string; at?: string },
) {
  let edgeMs = NaN;
  /** The rows read within 1 ms of the edge: those a page after a time marker gives again. */
  let seen = new Map<string, number>();
  /** Every row read: each is listed once. */
  const read = new Set<string>();
  let sameSize = false;
  const atEdge = (value: string) => /^\d{4}-\d\d-\d\dT/.test(value) && Math.abs(Date.parse(value) - edgeMs) <= 1;
  return walkPages(
    first,
    (query) =>
      fetchPage(
        Object.fromEntries(
          Object.entries(query).map(([name, value]) => [
            name,
            atEdge(value) && Date.parse(value) === edgeMs ? new Date(edgeMs + 1).toISOString() : value,
          ]),
        ),
        Object.values(query).some(atEdge) ? seen.size : 0,
        sameSize,
      ),
    (answer, query) => {
      const reading = readPage(answer, query, answer.url, cursorParam);
      sameSize = reading.next?.sameSize === true;
      if (rowKey && reading.rows?.length) {
        const keys = reading.rows.map(rowKey);
        const fresh = reading.rows.filter((_, index) => {
          const { id } = keys[index];
          return id === undefined || (!read.has(id) && Boolean(read.add(id)));
        });
        reading.repeats = reading.rows.length - fresh.length;
        reading.rows = fresh;
        edgeMs = Date.parse(keys.at(-1)!.at ?? '');
        for (const { id, at } of keys) if (id !== undefined && at !== undefined) seen.set(id, Date.parse(at));
        seen = new Map([...seen].filter(([, ms]) => ms <= edgeMs + 1));
      }
      return { reading, next: reading.more === false ? undefined : reading.next?.query };
    },
  );
}

/** `hedge api --paginate`: the same walk over paths under the base URL. */
export function followPaths<A extends PageAnswer>(
  baseUrl: string,
  path: string,
  fetchPath: (path: string) => Promise<A>,
  cursorParam?: string,
) {
  return walkPages(path, fetchPath, (answer, asked) => readPathPage(baseUrl, asked, answer, cursorParam));
}

/** A server's link as a path under the base URL; refused when it leads to another origin or out of that path. */
function underBase(baseUrl: string, link: string) {
  const base = new URL(`${baseUrl.replace(/\/+$/, '')}/`);
  if (!URL.canParse(link, base.href))
    throw new UsageError(`--paginate: the server's next-page link ${JSON.stringify(link)} is not a URL; stopped.`);
  const target = atBaseOrigin(baseUrl, new URL(link, base).href, "--paginate: the server's next-page link");
  if (!target.pathname.startsWith(base.pathname))
    throw new UsageError(
      `--paginate: the server's next-page link leads outside the base URL (${target.origin}${target.pathname}); stopped, nothing more was sent.`,
    );
  return resolveApiPath(baseUrl, `${target.pathname.slice(base.pathname.length - 1)}${target.search}`);
}

/** One answer of `path` read as a page, and the path of the page after it (none when it was the last). */
export function readPathPage(baseUrl: string, path: string, answer: Omit<PageAnswer, 'url'>, cursorParam?: string) {
  const listUrl = `${baseUrl.replace(/\/+$/, '')}${path.startsWith('/') ? '' : '/'}${path}`;
  // The path and its query (all after the first `?`).
  const [bare, asked = ''] = path.split(/\?(.*)/s, 2);
  const query = Object.fromEntries(new URLSearchParams(asked));
  const reading = readPage(answer, query, listUrl, cursorParam);
  if (reading.nextLink !== undefined) return { reading, next: underBase(baseUrl, reading.nextLink) };
  if (reading.more === false || reading.next === undefined) return { reading };
  const search = new URLSearchParams(reading.next.query).toString();
  return { reading, next: `${bare}${search === '' ? '' : `?${search}`}` };
}
