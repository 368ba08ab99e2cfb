// Who a write is made as, in the journal's own terms: the account (environment, host, key
// fingerprint), the profile, and whether an agent asked. The one identity every journal entry and
// every account lock is scoped by.
import type { CommandContext } from '../runtime/context.js';

export interface Identity {
  profile?: string;
  environment: 'live' | 'test';
  host: string;
  keyId: string;
  /** Set when the write came through `hedge mcp`. */
  via?: 'agent';
}

/** Where the current credentials send, in the journal's own terms. */
export async function identityOf(ctx: CommandContext): Promise<Identity> {
  const credentials = await ctx.credentials();
  const { keyFingerprint } = await import('../journal/index.js');
  return {
    profile: credentials.profileName,
    environment: credentials.environment,
    // The demo's port changes every run; its journal entries must still match across runs.
    host: credentials.sources.baseUrl === 'demo' ? 'demo' : new URL(credentials.baseUrl).host,
    keyId: keyFingerprint(credentials.apiKey),
    via: ctx.origin === 'agent' ? 'agent' : undefined,
  };
}
