// The one reader of an HTTP `Link` header (RFC 8288), for the next page of a list. The spec shows
// no paging (§4), so a real service may hand its next page this way; http-link-header parses the
// header as the RFC writes it — a comma inside a URL or a quoted parameter does not split a link,
// `rel` may hold several relation types ("prev next"), names and relation types are matched
// without regard to case — where the two hand-written parsers before it disagreed (one split on
// every comma).
import LinkHeader from 'http-link-header';

/** Parses one header value; undefined when it is not a Link header at all. */
function parsed(value: string): LinkHeader | undefined {
  try {
    return LinkHeader.parse(value);
  } catch {
    return undefined;
  }
}

/**
 * The target of the `rel="next"` link, as written (absolute or relative), or undefined. Several
 * `Link` headers (an array) are read as one list, as HTTP joins them. A header whose next link the
 * library does not find whole (a server's typo in one link) is read link by link, so that one bad
 * link does not hide a good next link beside it.
 */
export function nextLink(header: string | readonly string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const values = (typeof header === 'string' ? [header] : header).filter((value) => value.trim() !== '');
  for (const value of values) {
    const whole = parsed(value);
    // The library reads leniently: a malformed parameter may swallow the links after it.
    const found = whole?.rel('next')[0] ?? linkByLink(value);
    if (found?.uri) return found.uri;
  }
  return undefined;
}

/** The next link of a header that does not read whole: each `<…>` part on its own. */
function linkByLink(value: string): { uri: string } | undefined {
  for (const part of value.split(/,(?=\s*<)/)) {
    const found = parsed(part)?.rel('next')[0];
    if (found?.uri) return found;
  }
  return undefined;
}
