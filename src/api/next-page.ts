// Where the next page of a list is, read off one answer — for `hedge api --paginate`. The spec
// shows a page-size bound and no paging (§4 GET /hedges), so a real service may page any of the
// usual ways; this reads them leniently, in this order:
//   1. a `Link: <…>; rel="next"` header (RFC 8288);
//   2. a next link in the envelope: `meta.next`, `meta.next_url`, `meta.links.next`;
//   3. a cursor: `meta.next_cursor` (or `meta.cursor.next`), sent back as `cursor=`, unless
//      `meta.has_more` is false;
// and no sign of any of them means this was the last page. A next link must stay under the base
// URL (security/base-url.ts resolveApiPath): the key never follows a link to another host.
// This is the one place that decides it: a richer detection (the tolerant reader's) replaces it.
import { UsageError } from '../errors.js';
import { resolveApiPath } from '../security/base-url.js';

/** Query parameter a cursor is sent back under. */
export const CURSOR_PARAM = 'cursor';

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The `rel="next"` target of a Link header, if any. */
export function linkNext(link: string | undefined): string | undefined {
  if (!link) return undefined;
  for (const part of link.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (match && /;\s*rel\s*=\s*"?([^";]*\s)?next(\s[^";]*)?"?\s*(;|$)/i.test(match[2]!)) return match[1];
  }
  return undefined;
}

function textAt(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;
}

/** A link given by the server, as a path under the base URL; refused when it leads elsewhere. */
function underBase(baseUrl: string, link: string): string {
  const base = new URL(`${baseUrl.replace(/\/+$/, '')}/`);
  let target: URL;
  try {
    target = new URL(link, base);
  } catch {
    throw new UsageError(`--paginate: the server's next-page link ${JSON.stringify(link)} is not a URL; stopped.`);
  }
  if (target.origin !== base.origin || !target.pathname.startsWith(base.pathname)) {
    throw new UsageError(`--paginate: the server's next-page link leads outside the base URL (${target.origin}${target.pathname}); stopped, nothing more was sent.`);
  }
  return resolveApiPath(baseUrl, `${target.pathname.slice(base.pathname.length - 1)}${target.search}`);
}

/** `path` with `name=value` set in its query string (replacing an earlier value). */
export function withQueryParam(path: string, name: string, value: string): string {
  const question = path.indexOf('?');
  const search = new URLSearchParams(question < 0 ? '' : path.slice(question + 1));
  search.set(name, value);
  return `${question < 0 ? path : path.slice(0, question)}?${search.toString()}`;
}

/**
 * The path of the page after this one, or undefined when this was the last. `path` is the path
 * this page was asked with (relative to the base URL).
 */
export function nextPagePath(
  baseUrl: string,
  path: string,
  answer: { meta: Record<string, unknown>; headers: Record<string, string | string[] | undefined> },
): string | undefined {
  const fromHeader = linkNext(header(answer.headers, 'link'));
  if (fromHeader) return underBase(baseUrl, fromHeader);
  const meta = answer.meta;
  const links = meta.links !== null && typeof meta.links === 'object' ? (meta.links as Record<string, unknown>) : {};
  const link = textAt(meta.next) ?? textAt(meta.next_url) ?? textAt(links.next);
  if (link && (link.includes('/') || link.includes('?'))) return underBase(baseUrl, link);
  if (meta.has_more === false) return undefined;
  const cursorObject = meta.cursor !== null && typeof meta.cursor === 'object' ? (meta.cursor as Record<string, unknown>) : {};
  const cursor = textAt(meta.next_cursor) ?? textAt(cursorObject.next) ?? link;
  return cursor === undefined ? undefined : withQueryParam(path, CURSOR_PARAM, cursor);
}
