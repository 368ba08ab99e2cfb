// Who a write is made as, in the journal's own terms: the account (environment, host, key fingerprint), the
// profile, and who asked (an agent, a keeper).
import type { JournalEntry } from '../../platform/journal/index.js';
import type { RowSealer } from '../../platform/journal/row-integrity.js';
import type { CommandContext } from '../../platform/runtime/context.js';

/** Where the current credentials send, in the journal's own terms. */
export async function identityOf(ports: Pick<CommandContext, 'credentials' | 'origin'>) {
  const credentials = await ports.credentials();
  const { keyFingerprint } = await import('../../platform/journal/index.js');
  return {
    profile: credentials.profileName,
    environment: credentials.environment,
    // The demo's port changes every run; its journal entries must still match across runs.
    base_url_host: credentials.sources.baseUrl === 'demo' ? 'demo' : new URL(credentials.baseUrl).host,
    key_id: keyFingerprint(credentials.apiKey),
    /** Set when the write came through `hedge mcp` (agent) or a keeper's step (keeper). */
    via: ports.origin === 'cli' ? undefined : ports.origin,
  };
}

export type Identity = Awaited<ReturnType<typeof identityOf>>;

/** Whether an entry acts on the account now in use: the same key in the same environment, through whichever host name
 * of the base URL (`127.0.0.1` and `localhost` reach one service). */
export function sameAccount(identity: Pick<JournalEntry, 'environment' | 'key_id'>, entry: typeof identity) {
  return entry.environment === identity.environment && entry.key_id === identity.key_id;
}

/** Whether an entry was sent with the credentials now in use (another key is another account; another host is where
 * a resend would go). */
export function sentBy(
  identity: Pick<JournalEntry, 'environment' | 'base_url_host' | 'key_id'>,
  entry: typeof identity,
) {
  return sameAccount(identity, entry) && entry.base_url_host === identity.base_url_host;
}

/** One sealer per resolved credentials (deriving one is an HKDF): dropped with them. */
const sealers = new WeakMap<object, RowSealer>();

/** The sealer of the current API key. */
export async function rowSealerOf(ports: Pick<CommandContext, 'credentials'>) {
  const credentials = await ports.credentials();
  if (!sealers.has(credentials))
    sealers.set(credentials, (await import('../../platform/journal/row-integrity.js')).rowSealer(credentials.apiKey));
  return sealers.get(credentials)!;
}
