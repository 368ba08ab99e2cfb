// `hedge keep status`: what the keeper of this account is doing, read from its heartbeat (the
// per-user keeper folder, keeper-heartbeat.ts) and, with a team store, from the store's keeper lock
// (which names a keeper running on another machine). Reads only: no request to the API.
import { homedir } from 'node:os';
import { isTeamJournal } from '../journal/store.js';
import type { CommandContext } from '../runtime/context.js';
import { heartbeatFile, keeperScope, keeperStateDir, livenessOf, readHeartbeat, type Heartbeat, type KeeperLiveness } from './keeper-heartbeat.js';
import { identityOf } from './identity.js';

export type KeeperState = KeeperLiveness | 'none';

export interface KeeperStatus {
  state: KeeperState;
  /** Where the heartbeat is read from. */
  heartbeat_file: string;
  account: { environment: string; host: string; key_id: string };
  /** Seconds since the heartbeat was written; null without one. */
  heartbeat_age_s: number | null;
  heartbeat: Heartbeat | null;
  /** With a team store: the keeper holding the account's lock there (any machine), or null when none does. */
  store_holder?: { pid: number; host: string; since: string } | null;
}

/** The states a script may count on: a keeper at work (here, or on another machine of the team store). */
export function isKeeperUp(state: KeeperState): boolean {
  return state === 'running' || state === 'elsewhere';
}

export async function readKeeperStatus(ctx: CommandContext): Promise<KeeperStatus> {
  const identity = await identityOf(ctx);
  const scope = keeperScope(identity);
  const file = heartbeatFile(keeperStateDir(ctx.env, homedir()), scope);
  const heartbeat = readHeartbeat(file);
  const nowMs = ctx.clock.now();
  let state: KeeperState = heartbeat ? livenessOf(heartbeat, nowMs) : 'none';
  const account = { environment: identity.environment, host: identity.host, key_id: identity.keyId };
  const status: KeeperStatus = {
    state,
    heartbeat_file: file,
    account,
    heartbeat_age_s: heartbeat ? Math.max(0, Math.round((nowMs - Date.parse(heartbeat.updated_at)) / 1000)) : null,
    heartbeat: heartbeat ?? null,
  };
  const journal = await ctx.journal();
  if (isTeamJournal(journal)) {
    // The store's lock is what holds a keeper team-wide: asked without waiting and let go at once
    // (a keeper starting in that instant is refused once, exit 11, and its supervisor retries).
    const probe = await journal.lock(scope, { waitMs: 0 });
    if (probe.held) {
      await probe.hold.release();
      status.store_holder = null;
      if (state === 'running' || state === 'elsewhere') state = 'dead';
    } else {
      status.store_holder = { pid: probe.holder.pid, host: probe.holder.host, since: probe.holder.since };
      const sameKeeper = heartbeat && heartbeat.pid === probe.holder.pid && heartbeat.host === probe.holder.host;
      if (!sameKeeper) state = 'elsewhere';
    }
    status.state = state;
  }
  return status;
}
