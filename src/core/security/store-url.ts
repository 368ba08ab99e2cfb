// The team journal store's address (HEDGE_JOURNAL_URL, a profile's journal_url) is a secret when it carries a password, like an API key: this is the one place that decides how it is shown.
import { UsageError } from '../errors.js';
import { registerSecret } from './secrets.js';

const STORE_URL_SCHEMES = ['postgres:', 'postgresql:'] as const;

const SECRET_PARAMETERS = new Set(['password', 'sslpassword']);

const REDACTED = '***';

export function isStoreUrl(raw: string) {
  const scheme = /^([a-z][a-z0-9+.-]*:)/i.exec(raw.trim())?.[1]?.toLowerCase();
  return scheme !== undefined && (STORE_URL_SCHEMES as readonly string[]).includes(scheme);
}

/** The URL as the database client reads it (pg-connection-string: spaces and stray `%` encoded first, and an empty host allowed before a socket path), or undefined when it reads none. */
function parsedAsTheClientDoes(text: string) {
  const encoded = /\s|%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(text) ? encodeURI(text).replace(/%25(\d\d)/g, '%$1') : text;
  for (const candidate of [encoded, encoded.replace('@/', '@___DUMMY___/')]) {
    try {
      return new URL(candidate);
    } catch {
      // The next form, or none.
    }
  }
  return;
}

function storeUrlProblem(raw: string) {
  const url = parsedAsTheClientDoes(raw.trim());
  if (!url) return 'it does not parse as a URL';
  // A store URL has no fragment, and no query key holds `@` or `/`: either is a password split apart.
  if (url.hash) return 'it has a # fragment, which a store URL never has';
  if ([...url.searchParams.keys()].some((name) => /[@/]/.test(name))) return 'its query holds an @ or a /';
  return;
}

/** The URL as written, when it is a store URL with no problem; else undefined. */
function checkedStoreUrl(text: string) {
  try {
    return storeUrlProblem(text) === undefined ? new URL(text) : undefined;
  } catch {
    return;
  }
}

export function redactStoreUrl(raw: string) {
  const text = raw.trim();
  const url = checkedStoreUrl(text);
  if (!url) {
    const scheme = /^([a-z][a-z0-9+.-]*:)/i.exec(text)?.[1];
    return scheme ? `${scheme}//… (not a URL)` : '(not a URL)';
  }
  if (url.password) url.password = REDACTED;
  for (const name of [...url.searchParams.keys()]) {
    if (SECRET_PARAMETERS.has(name.toLowerCase())) url.searchParams.set(name, REDACTED);
  }
  // URLSearchParams percent-encodes the asterisks; the point is to read them.
  return url.toString().replace(/%2A%2A%2A/g, REDACTED);
}

export const STORE_URL_ENCODING =
  'percent-encode / ? # @ : % in the user and password (/ as %2F, ? as %3F, # as %23, @ as %40, : as %3A, % as %25), or leave the password out and put it in ~/.pgpass or PGPASSWORD';

/** The secret parts of the URL (to register with the scrubber, so they never leave the process). */
export function storeUrlSecrets(raw: string) {
  const text = raw.trim();
  const url = checkedStoreUrl(text);
  if (!url) {
    // Where the password ends cannot be told: all between the user's `:` and the last `@` is taken.
    const password = /^[a-z][a-z0-9+.-]*:\/\/[^:@/]*:(.*)@/i.exec(text)?.[1];
    return password ? [password] : [];
  }
  const secrets: string[] = [];
  if (url.password) {
    secrets.push(url.password);
    try {
      secrets.push(decodeURIComponent(url.password));
    } catch {
      // Not percent-encoded text: the raw form is enough.
    }
  }
  for (const [name, value] of url.searchParams)
    if (SECRET_PARAMETERS.has(name.toLowerCase()) && value) secrets.push(value);
  return [...new Set(secrets)];
}

export function storeUrlHasPassword(raw: string) {
  return storeUrlSecrets(raw).length > 0;
}

/** The URL shown redacted, once it is a store URL the client reads as written; its secrets are registered with the scrubber first. Else exit 2 naming `source`: `notStore` says what is expected, `write` the form to write. */
export function checkStoreUrl(url: string, source: string, form: { notStore: string; write: string }) {
  for (const secret of storeUrlSecrets(url)) registerSecret(secret, REDACTED);
  const shown = redactStoreUrl(url);
  if (!isStoreUrl(url)) throw new UsageError(`${source}: ${shown} ${form.notStore}.`);
  const problem = storeUrlProblem(url);
  if (problem)
    throw new UsageError(
      `${source}: ${shown} cannot be used: ${problem}; write ${form.write} and ${STORE_URL_ENCODING}.`,
    );
  return shown;
}
