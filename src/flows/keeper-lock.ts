// One keeper per account, wherever it runs (issue 38). The keeper's lock is held on the account —
// environment, base-URL host and key fingerprint, never the key — not on a config folder:
//  - with a team store, in the store (shared by every machine of the team);
//  - otherwise in the per-user keeper folder every config folder of this user shares
//    ($XDG_STATE_HOME/hedge/keepers or ~/.local/state/hedge/keepers), through the local journal's
//    own lock records (liveness by pid and process start, kill -9 included).
// A second keeper is refused with exit 11 naming the first: pid, host, since, and the config folder
// its heartbeat names.
import { homedir } from 'node:os';
import { HeldError } from '../errors.js';
import type { Hold, KeeperHeartbeats } from '../journal/index.js';
import { isTeamJournal } from '../journal/store.js';
import type { FlowPorts } from '../runtime/context.js';
import { safeText } from '../security/safe-text.js';
import { heartbeatFile, heartbeatOf, keeperScope, keeperStateDir, readHeartbeat } from './keeper-heartbeat.js';
import type { Identity } from './identity.js';

export interface KeeperLockPlace {
  scope: string;
  /** The per-user keeper folder (heartbeats are written here in both cases). */
  dir: string;
  /** Where the lock itself is held, for messages: the team store's location or the folder. */
  where: string;
  /** With a team store: its keeper heartbeats, which every machine of the team reads (the file in `dir` is written too). */
  storeHeartbeats?: KeeperHeartbeats;
  take(): Promise<Awaited<ReturnType<LockTaker>>>;
}

type LockTaker = (
  scope: string,
  options: { waitMs: number },
) => Promise<
  { held: true; hold: Hold } | { held: false; holder: { pid: number; host: string; since: string; session: string } }
>;

/** Where this account's keeper lock lives for this context (the store, or the per-user folder). */
export async function keeperLockPlace(
  ports: Pick<FlowPorts, 'journal' | 'env'>,
  identity: Identity,
): Promise<KeeperLockPlace> {
  const scope = keeperScope(identity);
  const dir = keeperStateDir(ports.env, homedir());
  const journal = await ports.journal();
  if (isTeamJournal(journal)) {
    return {
      scope,
      dir,
      where: journal.location,
      take: () => journal.lock(scope, { waitMs: 0 }),
      ...(journal.keeperHeartbeats ? { storeHeartbeats: journal.keeperHeartbeats } : {}),
    };
  }
  const { ensureDir, openJournal } = await import('../journal/index.js');
  // A folder hedge makes inside the state folder: a link there is refused, not followed.
  ensureDir(dir, { inside: true });
  const keepers = openJournal({ dir });
  return { scope, dir, where: dir, take: () => keepers.lock(scope, { waitMs: 0 }) };
}

/** Takes the account's keeper lock, or throws exit 11 naming the keeper that has it. */
export async function takeKeeperLock(
  ports: Pick<FlowPorts, 'hedgeCommand'>,
  place: KeeperLockPlace,
  file: string,
): Promise<Hold> {
  const taken = await place.take();
  if (taken.held) return taken.hold;
  const { holder } = taken;
  // The holder may run on another machine of the team store: its heartbeat there names its folder.
  const stored = place.storeHeartbeats
    ? heartbeatOf((await place.storeHeartbeats.read(place.scope).catch(() => undefined))?.body)
    : undefined;
  const heartbeat = stored ?? readHeartbeat(heartbeatFile(place.dir, place.scope));
  // The heartbeat names the config folder only when it is that keeper's own (same pid and host).
  const folder =
    heartbeat && heartbeat.pid === holder.pid && heartbeat.host === holder.host ? heartbeat.config_dir : undefined;
  throw new HeldError(
    `Another keeper already holds this account (pid ${holder.pid} on ${safeText(holder.host)}, since ${safeText(holder.since)}${folder ? `, config folder ${safeText(folder)}` : ''}); this one did not start.`,
    {
      hint: `Stop that keeper first (\`kill ${holder.pid}\` on ${safeText(holder.host)}), \`${ports.hedgeCommand('keep', 'status')}\` shows it, or run \`${ports.hedgeCommand('keep', file, '--dry-run')}\` to see what it would do.`,
      holder,
      details: { ...(folder ? { config_dir: folder } : {}), lock: place.where },
    },
  );
}
