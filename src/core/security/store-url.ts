// The team journal store's address (HEDGE_JOURNAL_URL, a profile's journal_url) is a secret when it carries a password, like an API key: this is the one place that decides how it is shown.
import { UsageError } from '../errors.js';
import { registerSecret } from './secrets.js';

const SECRET_PARAMETERS = ['password', 'sslpassword'];

const REDACTED = '***';

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

export function isStoreUrl(raw: string) {
  return /^postgres(ql)?:/i.test(raw.trim());
}

/** Why the database client (pg-connection-string: spaces and stray `%` encoded first, and an empty host allowed before a socket path) would read the URL otherwise than written, if it would; and the URL as written, when there is no problem and it parses. */
function readStoreUrl(raw: string) {
  const text = raw.trim();
  const encoded = /\s|%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(text) ? encodeURI(text).replace(/%25(\d\d)/g, '%$1') : text;
  const read = [encoded, encoded.replace('@/', '@___DUMMY___/')].find((candidate) => URL.canParse(candidate));
  const url = read === undefined ? undefined : new URL(read);
  // A store URL has no fragment, and no query key holds `@` or `/`: either is a password split apart.
  const problem = !url
    ? 'it does not parse as a URL'
    : url.hash
      ? 'it has a # fragment, which a store URL never has'
      : [...url.searchParams.keys()].some((name) => /[@/]/.test(name))
        ? 'its query holds an @ or a /'
        : undefined;
  return { problem, url: problem === undefined && URL.canParse(text) ? new URL(text) : undefined };
}

export function redactStoreUrl(raw: string) {
  const { url } = readStoreUrl(raw);
  if (!url) {
    const scheme = SCHEME.exec(raw.trim())?.[0];
    return scheme ? `${scheme}//… (not a URL)` : '(not a URL)';
  }
  url.password &&= REDACTED;
  for (const name of [...url.searchParams.keys()])
    if (SECRET_PARAMETERS.includes(name.toLowerCase())) url.searchParams.set(name, REDACTED);
  // URLSearchParams percent-encodes the asterisks; the point is to read them.
  return url.toString().replace(/%2A%2A%2A/g, REDACTED);
}

export const STORE_URL_ENCODING =
  'percent-encode / ? # @ : % in the user and password (/ as %2F, ? as %3F, # as %23, @ as %40, : as %3A, % as %25), or leave the password out and put it in ~/.pgpass or PGPASSWORD';

/** The secret parts of the URL (to register with the scrubber, so they never leave the process). */
export function storeUrlSecrets(raw: string) {
  const { url } = readStoreUrl(raw);
  if (!url) {
    // Where the password ends cannot be told: all between the user's `:` and the last `@` is taken.
    const password = /^[a-z][a-z0-9+.-]*:\/\/[^:@/]*:(.*)@/i.exec(raw.trim())?.[1];
    return password ? [password] : [];
  }
  const secrets = [];
  if (url.password) {
    secrets.push(url.password);
    try {
      secrets.push(decodeURIComponent(url.password));
    } catch {
      // Not percent-encoded text: the raw form is enough.
    }
  }
  for (const [name, value] of url.searchParams)
    if (SECRET_PARAMETERS.includes(name.toLowerCase()) && value) secrets.push(value);
  return [...new Set(secrets)];
}

/** The URL shown redacted, once it is a store URL the client reads as written; its secrets are registered with the scrubber first. Else exit 2 naming `source`: `notStore` says what is expected, `write` the form to write. */
export function checkStoreUrl(url: string, source: string, form: { notStore: string; write: string }) {
  for (const secret of storeUrlSecrets(url)) registerSecret(secret, REDACTED);
  const shown = redactStoreUrl(url);
  if (!isStoreUrl(url)) throw new UsageError(`${source}: ${shown} ${form.notStore}.`);
  const { problem } = readStoreUrl(url);
  if (problem)
    throw new UsageError(
      `${source}: ${shown} cannot be used: ${problem}; write ${form.write} and ${STORE_URL_ENCODING}.`,
    );
  return shown;
}
