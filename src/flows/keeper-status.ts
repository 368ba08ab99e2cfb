// `hedge keep status`: what the keeper of this account is doing, read from its heartbeat and, with
// a team store, from the store: the keeper's heartbeat there (written by the keeper every cycle,
// keeper-service.ts) and who holds the account's keeper lock there (read only: the lock is never
// taken to look, so a keeper starting at that instant is never refused because of a status). Reads
// only: no request to the API.
import { homedir } from 'node:os';
import { isTeamJournal } from '../journal/store.js';
import type { FlowPorts } from '../runtime/context.js';
import {
  heartbeatFile,
  heartbeatOf,
  keeperScope,
  keeperStateDir,
  livenessOf,
  readHeartbeat,
  staleAfterMs,
  type Heartbeat,
  type KeeperLiveness,
} from './keeper-heartbeat.js';
import { identityOf } from './identity.js';

export type KeeperState = KeeperLiveness | 'none';

export interface KeeperStatus {
  state: KeeperState;
  /** Where the heartbeat is read from on this machine (the per-user keeper folder's file). */
  heartbeat_file: string;
  /** Which heartbeat is shown: the team store's (any machine of the team) or this machine's file. */
  heartbeat_source: 'store' | 'file' | null;
  /** The store's count of the heartbeat's writes (the file's, for a file); null without one. */
  heartbeat_revision: number | null;
  account: { environment: string; host: string; key_id: string };
  /** Seconds since the heartbeat was written (the store's clock for the store's); null without one. */
  heartbeat_age_s: number | null;
  heartbeat: Heartbeat | null;
  /** With a team store: the keeper holding the account's lock there (any machine), or null when none does. */
  store_holder?: { pid: number; host: string; since: string } | null;
}

/** The states a script may count on: a keeper at work (here, or on another machine of the team store). */
export function isKeeperUp(state: KeeperState): boolean {
  return state === 'running' || state === 'elsewhere';
}

/**
 * With a team store: the keeper judged by the store's lock (its holder is alive while its store
 * session holds the lock, on whatever machine) and its heartbeat's age — never by a pid on this
 * machine, which names nothing on another.
 */
export function livenessByStoreLock(
  holder: { pid: number; host: string } | undefined,
  heartbeat: Heartbeat | undefined,
  ageMs: number | undefined,
): KeeperState {
  if (!holder) return !heartbeat ? 'none' : heartbeat.stopped_at ? 'stopped' : 'dead';
  // A live keeper whose heartbeat is not in the store (an older hedge, or its first not written yet).
  if (!heartbeat || heartbeat.pid !== holder.pid || heartbeat.host !== holder.host) return 'elsewhere';
  if (heartbeat.stopped_at) return 'stopped';
  return (ageMs ?? Number.POSITIVE_INFINITY) > staleAfterMs(heartbeat.interval_s) ? 'hung' : 'running';
}

export async function readKeeperStatus(
  ports: Pick<FlowPorts, 'clock' | 'credentials' | 'journal' | 'env' | 'origin'>,
): Promise<KeeperStatus> {
  const identity = await identityOf(ports);
  const scope = keeperScope(identity);
  const file = heartbeatFile(keeperStateDir(ports.env, homedir()), scope);
  const account = { environment: identity.environment, host: identity.host, key_id: identity.keyId };
  const nowMs = ports.clock.now();
  const ageOf = (heartbeat: Heartbeat) => Math.max(0, nowMs - Date.parse(heartbeat.updated_at));
  const journal = await ports.journal();

  if (!isTeamJournal(journal)) {
    const heartbeat = readHeartbeat(file);
    return {
      state: heartbeat ? livenessOf(heartbeat, nowMs) : 'none',
      heartbeat_file: file,
      heartbeat_source: heartbeat ? 'file' : null,
      heartbeat_revision: null,
      account,
      heartbeat_age_s: heartbeat ? Math.round(ageOf(heartbeat) / 1000) : null,
      heartbeat: heartbeat ?? null,
    };
  }

  // The team store: who holds the keeper lock (alive, on whatever machine) and the heartbeat it
  // writes there. A keeper of an older hedge writes none to the store: this machine's file then.
  const [holder, stored] = await Promise.all([journal.lockHolder(scope), journal.keeperHeartbeats?.read(scope)]);
  const fromStore = heartbeatOf(stored?.body);
  const heartbeat = fromStore ?? readHeartbeat(file);
  const ageMs = heartbeat ? (fromStore && stored?.ageMs !== undefined ? stored.ageMs : ageOf(heartbeat)) : undefined;
  const state = livenessByStoreLock(holder, heartbeat, ageMs);
  return {
    state,
    heartbeat_file: file,
    heartbeat_source: fromStore ? 'store' : heartbeat ? 'file' : null,
    heartbeat_revision: fromStore ? stored!.revision : null,
    account,
    heartbeat_age_s: ageMs === undefined ? null : Math.round(ageMs / 1000),
    heartbeat: heartbeat ?? null,
    store_holder: holder ? { pid: holder.pid, host: holder.host, since: holder.since } : null,
  };
}
