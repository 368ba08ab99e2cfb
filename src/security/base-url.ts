// The one place that decides which base URLs the client may talk to: https everywhere, plain
// http only to this machine (the sandbox), so a key can never cross a network in clear text.
import { UsageError } from '../errors.js';

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]', '::1']);

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (LOOPBACK_HOSTS.has(host) || host.endsWith('.localhost')) return true;
  return /^127(\.\d{1,3}){3}$/.test(host);
}

/** Returns the base URL without a trailing slash, or throws UsageError (exit 2, nothing sent). */
export function checkBaseUrl(raw: string, source: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new UsageError(`The base URL from ${source} is not a URL: "${raw}". Expected https://host/path/v2.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`The base URL from ${source} must use https:// (got ${url.protocol}//).`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(
      `Refusing plain http:// to ${url.hostname} (from ${source}): the API is HTTPS only; http:// is allowed for loopback hosts alone.`,
    );
  }
  if (url.username || url.password) {
    throw new UsageError(`The base URL from ${source} must not carry credentials.`);
  }
  if (url.search || url.hash) {
    throw new UsageError(`The base URL from ${source} must not have a query or fragment.`);
  }
  return url.toString().replace(/\/+$/, '');
}
