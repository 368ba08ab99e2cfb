// The one place that decides which base URLs the client may talk to: https everywhere, plain http only to this machine (the sandbox), so a key can never cross a network in clear text; and the one origin check every request passes: the key goes to the base URL's origin or nowhere.
import type { LookupAddress, LookupOptions } from 'node:dns';
import { OffOriginError, UsageError } from '../errors.js';
import { safeText } from './safe-text.js';

const LOOPBACK_V4 = /^127(\.\d{1,3}){3}$/;

/** Hosts plain http:// may go to: a literal 127.0.0.0/8 or ::1 address, or `localhost` itself, whose address the transport checks once connected (isLoopbackAddress). */
export function isLoopbackHost(hostname: string) {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host === '[::1]' || host === '::1' || LOOPBACK_V4.test(host);
}

/** Why plain http:// to a name under .localhost (`evil-api.localhost`, `localhost.`) is refused, for the refusal's message; undefined for any other host (its caller says why in its own words). */
export function localhostNameNote(hostname: string) {
  const host = hostname.toLowerCase();
  if (host !== 'localhost.' && !/\.localhost\.?$/.test(host)) return;
  return 'a name under .localhost (or localhost. with a trailing dot) is resolved through DNS like any other name, so it may not be this machine; http:// is allowed only to 127.0.0.0/8, ::1 and localhost itself';
}

/** Whether a connected socket's remote address is this machine's (127.0.0.0/8 or ::1, an IPv4 one mapped into IPv6 too): plain http:// to `localhost` is sent only once it connected to one. */
export function isLoopbackAddress(address: string | undefined) {
  return address === '::1' || LOOPBACK_V4.test(address?.replace(/^::ffff:/i, '') ?? '');
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
type Lookup = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

/** A name lookup for plain http:// sockets that are not the transport's own (the keeper's --alert-url, sent with undici): the address a connection is made to is the one this returns, so a `localhost` that a hosts file or a resolver sends elsewhere fails here, before any connection or byte. */
export function loopbackOnlyLookup(given?: Lookup): Lookup {
  // node:dns only when a lookup is made (this module is on every command's start-up path).
  const lookup = given ?? process.getBuiltinModule('node:dns').lookup;
  return (hostname, options, callback) =>
    lookup(hostname, options, (error, address, family) => {
      if (error) return callback(error, address, family);
      const addresses = Array.isArray(address) ? address.map((entry) => entry.address) : [address];
      const away = addresses.find((candidate) => !isLoopbackAddress(candidate));
      if (away === undefined) return callback(null, address, family);
      callback(
        Object.assign(
          new Error(
            `${hostname} resolves to ${away}, not a loopback address (plain http:// goes to this machine only)`,
          ),
          { code: 'ENOTLOOPBACK' },
        ),
        address,
        family,
      );
    });
}

/** The one origin check: the URL a request goes to (a client call, `hedge api`, a resumed journal row, a server's next-page link) is the base URL's origin — scheme, host and port — with no user or password, or the request is refused (OffOriginError) before anything is sent. */
export function atBaseOrigin(baseUrl: string, target: string, what: string) {
  const base = new URL(baseUrl);
  const url = URL.canParse(target) ? new URL(target) : undefined;
  if (url?.origin === base.origin && url.username === '' && url.password === '') return url;
  const where = !url
    ? 'something that is not a URL'
    : url.origin !== base.origin
      ? url.origin === 'null'
        ? url.protocol
        : url.origin
      : 'a URL carrying a user and password';
  throw new OffOriginError(
    `${safeText(what)} would leave the base URL's origin (${base.origin}) for ${safeText(where)}; refused, it was not sent.`,
  );
}

/** Whether a request to this base URL must connect directly, never through HTTP(S)_PROXY: a loopback target never crosses a network (so no proxy has any business seeing it), and a plain http:// target would hand the key to the proxy in clear text inside its tunnel. */
export function connectsDirectly(baseUrl: string) {
  if (!URL.canParse(baseUrl)) return true;
  const url = new URL(baseUrl);
  return url.protocol === 'http:' || isLoopbackHost(url.hostname);
}

/** The base URL as the client will use it, or a UsageError saying why not; a live key (its `environment`, once known) goes over https:// only, plain http:// to loopback being for test keys and the simulator: another local user may listen on a loopback port. */
export function checkBaseUrl(raw: string, source: string, environment?: 'live' | 'test') {
  if (!URL.canParse(raw.trim()))
    throw new UsageError(`The base URL from ${source} is not a URL: "${raw}". Expected https://host/path/v2.`);
  const url = new URL(raw.trim());
  const { protocol, hostname } = url;
  if (protocol !== 'https:' && protocol !== 'http:')
    throw new UsageError(`The base URL from ${source} must use https:// (got ${protocol}//).`);
  if (protocol === 'http:' && !isLoopbackHost(hostname)) {
    const why = localhostNameNote(hostname) ?? 'the API is HTTPS only; http:// is allowed for loopback hosts alone';
    throw new UsageError(`Refusing plain http:// to ${hostname} (from ${source}): ${why}.`);
  }
  if (protocol === 'http:' && environment === 'live')
    throw new UsageError(
      `Refusing plain http:// to ${hostname} (from ${source}) with a live key: a live key goes only over https:// (plain http:// to this machine is for test keys and the simulator); nothing was sent.`,
    );
  if (url.username || url.password) throw new UsageError(`The base URL from ${source} must not carry credentials.`);
  if (url.search || url.hash) throw new UsageError(`The base URL from ${source} must not have a query or fragment.`);
  return url.toString().replace(/\/+$/, '');
}

/** What PATH may not be, the first that matches said. */
const PATH_REFUSALS: ReadonlyArray<[RegExp, string]> = [
  [/^\s*$/, 'is empty'],
  [/[\u0000-\u0020\u007f-\u009f]/, 'has spaces or control characters'],
  [/^[a-z][a-z0-9+.-]*:/i, "is an absolute URL (the key is only sent to the profile's base URL)"],
  [/^\/\//, 'would name another host (//host)'],
  [/\\/, 'has a backslash'],
  [/#/, 'has a fragment (#)'],
  // In the path, before the query.
  [/^[^?]*%(2f|5c)/i, 'has an encoded slash or backslash'],
  [/%(?![0-9a-f]{2})/i, 'has a % that is not an escape (%XX)'],
];

/** `hedge api PATH`: the path, relative to the base URL, as the request will carry it (the base's own path prefix left out, query kept). */
export function resolveApiPath(baseUrl: string, raw: string) {
  const refuse = (why: string) =>
    new UsageError(
      `PATH: ${JSON.stringify(raw.length > 80 ? `${raw.slice(0, 80)}…` : raw).replace(/[\u0000-\u001f\u007f-\u009f]/g, '?')} ${why}; nothing was sent. Give a path relative to the base URL, e.g. /hedges or hedges/hdg_….`,
    );
  const refused = PATH_REFUSALS.find(([pattern]) => pattern.test(raw));
  if (refused) throw refuse(refused[1]);
  const base = new URL(`${baseUrl.replace(/\/+$/, '')}/`);
  const relative = raw.replace(/^\/+/, '');
  const url = atBaseOrigin(baseUrl, new URL(relative, base).href, `PATH ${JSON.stringify(raw)}`);
  if (!url.pathname.startsWith(base.pathname)) throw refuse('climbs out of the base path with ..');
  const inside = url.pathname.slice(base.pathname.length - 1);
  return `${inside === '/' ? '' : inside}${url.search}`;
}
