// The keeper's heartbeat and `hedge keep status`: one JSON body per account in the per-user keeper
// folder (and the team store), named by a hash of the account scope, never the key.
import { homedir, hostname } from 'node:os';
import * as z from 'zod/mini';
import { join, resolve } from 'node:path';
import { isAlive, newSession } from '../../core/files/file-lock.js';
import { heartbeatFile, readHeartbeatFile } from '../../platform/journal/heartbeat-file.js';
import type { CommandContext } from '../../platform/runtime/context.js';
import type { KeepRowStatus } from '../../core/keep-rules.js';
import { utcIso } from '../../core/utc-text.js';
import { configDir } from '../../platform/config/credentials.js';
import { identityOf, type Identity } from '../write/identity.js';
import { HeldError } from '../../core/errors.js';
import { ensureDir, isTeamJournal } from '../../platform/journal/index.js';
import { namedHolds } from '../../platform/journal/holds.js';
import { safeText } from '../../core/security/safe-text.js';
import { shellWord } from '../../core/program.js';
import { issueWords } from '../../core/security/json-keys.js';
import type { Env } from '../../platform/config/env.js';
import { stateDir } from '../../platform/journal/location.js';
import { within } from '../../core/process/timers.js';

const HEARTBEAT_VERSION = 1;

/** The per-user keepers folder, shared by every HEDGE_CONFIG_DIR: two config folders with one key must meet here. */
export function keeperStateDir(env: Env, home: string) {
  return join(stateDir(env, home), 'keepers');
}

function readHeartbeat(path: string, skipped?: (problem: string) => void) {
  return heartbeatOf(readHeartbeatFile(path, skipped)?.body, skipped);
}

/** What a heartbeat that is skipped says: one warning naming where it was read. */
const skippedAt = (ports: Partial<Pick<CommandContext, 'notify'>>, where: string) => (problem: string) =>
  ports.notify?.({
    kind: 'heartbeat-skipped',
    level: 'warn',
    text: `Keeper heartbeat skipped: ${where} (${problem}).`,
  });

const text = z.optional(z.nullable(z.string()));

/** A keeper's first heartbeat, which it writes again after every cycle (`updated_at` and what the cycles changed) and at
 * its end (`stopped_at`): `hedge keep status` and the account's next keeper read it. */
export async function firstHeartbeat(
  ports: Pick<CommandContext, 'env' | 'journal'>,
  identity: Identity,
  { file, intervalMs }: { file: string; intervalMs: number },
  nowMs: number,
) {
  return {
    version: HEARTBEAT_VERSION,
    pid: process.pid,
    host: hostname(),
    since: utcIso(nowMs),
    config_dir: configDir(ports.env),
    journal: (await ports.journal()).location,
    // Absolute: status is read from other folders.
    file: file === '-' ? '-' : resolve(file),
    account: accountOf(identity),
    interval_s: intervalMs / 1000,
    updated_at: utcIso(nowMs),
    cycles: 0,
    last_cycle_at: null as string | null,
    last_good_cycle_at: null as string | null,
    next_cycle_at: null as string | null,
    errors: 0,
    last_error: null as { at: string; code: string; message: string } | null,
    actions: {} as Record<string, number>,
    rolls: { count: 0, carry_usd: null as number | null, fees_usd: null as number | null },
    rows: [] as KeepRowStatus[],
  };
}
export type Heartbeat = Awaited<ReturnType<typeof firstHeartbeat>> & {
  /** The alerts active at this heartbeat (without the events that started them): the next keeper of the account — cron's next --once, a restart — carries them on, so a condition is not alerted again at every run and its recovery is still sent. */
  alerts?: z.infer<typeof HEARTBEAT>['alerts'];
  stopped_at?: string;
};

/** Lenient (another hedge's version may add fields) but strict on what status and the next keeper rely on; the lists default to empty. */
const HEARTBEAT = z.looseObject({
  pid: z.number(),
  host: z.string(),
  updated_at: z.string(),
  rows: z._default(
    z.array(
      z.looseObject({
        market: z.string(),
        side: z.string(),
        target_usd: z.number(),
        current_usd: z.optional(z.nullable(z.number())),
        state: z.string(),
        next_action: text,
        next_action_at: text,
      }),
    ),
    [],
  ),
  alerts: z.optional(
    z.array(
      z.looseObject({
        key: z.string(),
        cause: z.string(),
        message: z.string(),
        since: z.string(),
        market: z.optional(z.string()),
        side: z.optional(z.string()),
      }),
    ),
  ),
  rolls: z.catch(z.looseObject({}), { count: 0, carry_usd: null, fees_usd: null }),
});

/** A stored body as a heartbeat, or undefined (`skipped` is told why it is not one). */
function heartbeatOf(body: unknown, skipped?: (problem: string) => void) {
  const read = body === undefined ? undefined : HEARTBEAT.safeParse(body);
  if (read?.error) skipped?.(issueWords(read.error));
  return read?.data as Heartbeat | undefined;
}

/** What a heartbeat says about its keeper: stopped, dead, hung, running, or `elsewhere` on another host. Its process is judged as a hold's holder is (isAlive). */
export function livenessOf(heartbeat: Heartbeat, nowMs: number, alive: (keeper: Heartbeat) => boolean = isAlive) {
  if (heartbeat.stopped_at) return 'stopped';
  const stale = nowMs - Date.parse(heartbeat.updated_at) > staleAfterMs(heartbeat.interval_s);
  if (heartbeat.host !== hostname()) return stale ? 'hung' : 'elsewhere';
  if (!alive(heartbeat)) return 'dead';
  return stale ? 'hung' : 'running';
}

/** A heartbeat older than three intervals and a minute (a slow roll's waits included) is stale. */
export function staleAfterMs(intervalSeconds: number) {
  return 3 * Math.max(2, intervalSeconds) * 1000 + 60_000;
}

// ---- hedge keep status ----------------------------------------------------------------------------

/** The states a script may count on: a keeper at work (here, or on another machine of the team store). */
export function isKeeperUp(state: KeeperStatus['state']) {
  return state === 'running' || state === 'elsewhere';
}

/** With a team store the keeper is judged by the store's lock and its heartbeat's age, never a pid here. */
export function livenessByStoreLock(
  holder: { pid: number; host: string } | undefined,
  heartbeat: Heartbeat | undefined,
  ageMs: number | undefined,
) {
  if (!holder) return !heartbeat ? 'none' : heartbeat.stopped_at ? 'stopped' : 'dead';
  // A live keeper whose heartbeat is not in the store (an older hedge, or its first not written yet).
  if (heartbeat?.pid !== holder.pid || heartbeat.host !== holder.host) return 'elsewhere';
  if (heartbeat.stopped_at) return 'stopped';
  return (ageMs ?? Infinity) > staleAfterMs(heartbeat.interval_s) ? 'hung' : 'running';
}

export async function readKeeperStatus(
  ports: Pick<CommandContext, 'credentials' | 'origin' | 'env' | 'clock' | 'journal' | 'notify'>,
) {
  const identity = await identityOf(ports);
  const { scope, file, team } = await keeperLockPlace(ports, identity);
  const nowMs = ports.clock.now();
  // The team store: who holds the keeper lock (alive, on whatever machine) and the heartbeat it
  // writes there. A keeper of an older hedge writes none to the store: this machine's file then.
  const [holder, stored] = team ? await Promise.all([team.lockHolder(scope), team.keeperHeartbeats?.read(scope)]) : [];
  const fromStore = heartbeatOf(stored?.body, team && skippedAt(ports, team.location));
  const heartbeat = fromStore ?? readHeartbeat(file, skippedAt(ports, file));
  const ageMs =
    heartbeat &&
    (fromStore && stored?.ageMs !== undefined ? stored.ageMs : Math.max(0, nowMs - Date.parse(heartbeat.updated_at)));
  return {
    // With a team store the keeper is judged by the store's lock and its heartbeat's age, never a pid here.
    state: team ? livenessByStoreLock(holder, heartbeat, ageMs) : heartbeat ? livenessOf(heartbeat, nowMs) : 'none',
    heartbeat_file: file,
    heartbeat_source: fromStore ? 'store' : heartbeat ? 'file' : null,
    heartbeat_revision: fromStore ? stored!.revision : null,
    account: accountOf(identity),
    heartbeat_age_s: ageMs === undefined ? null : Math.round(ageMs / 1000),
    heartbeat: heartbeat ?? null,
    ...(team && { store_holder: holder ? { pid: holder.pid, host: holder.host, since: holder.since } : null }),
  } as const;
}

/** What `hedge keep status` says: the keeper's state, and the heartbeat it is judged by. */
export type KeeperStatus = Awaited<ReturnType<typeof readKeeperStatus>>;

/** The account a keeper holds, as its heartbeat names it (read back from a file, any environment's name). */
const accountOf = (identity: Identity) => ({
  environment: identity.environment as string,
  host: identity.base_url_host,
  key_id: identity.key_id,
});

// ---- one keeper per account ------------------------------------------------------------------

export type KeeperLockPlace = Awaited<ReturnType<typeof keeperLockPlace>>;

/** The team store's heartbeat write or read, bounded whatever the store does (a connect that hangs included). */
const STORE_HEARTBEAT_BOUND_MS = 10_000;

export const bounded = <T>(work: Promise<T>) =>
  within(work, STORE_HEARTBEAT_BOUND_MS, () => new Error(`no answer within ${STORE_HEARTBEAT_BOUND_MS / 1000} s`));

/** One keeper per account (its scope `${environment}|${base_url_host}|${key_id}|keep`): its lock in the team store, else in the keeper folder every config folder shares. */
export async function keeperLockPlace(
  ports: Pick<CommandContext, 'journal' | 'env'> & Partial<Pick<CommandContext, 'clock' | 'notify'>>,
  identity: Pick<Identity, 'environment' | 'base_url_host' | 'key_id'>,
) {
  const scope = `${identity.environment}|${identity.base_url_host}|${identity.key_id}|keep`;
  const dir = keeperStateDir(ports.env, homedir());
  const journal = await ports.journal();
  const team = isTeamJournal(journal) ? journal : undefined;
  const holds =
    !team &&
    namedHolds({
      dir,
      session: newSession(),
      now: ports.clock?.now ?? Date.now,
      sleep: ports.clock?.sleep,
      notice: (text) => ports.notify?.({ kind: 'lock-record-skipped', level: 'warn', text }),
    });
  const file = heartbeatFile(dir, scope);
  const storeHeartbeats = team?.keeperHeartbeats;
  return {
    scope,
    /** This machine's heartbeat file, in the per-user keeper folder (written with a team store too). */
    file,
    /** Where the lock itself is held, for messages: the team store's location or the folder. */
    where: team?.location ?? dir,
    team,
    // The folder is made inside the state folder: a link there is refused, not followed.
    take: () => (holds ? (ensureDir(dir, { inside: true }), holds.take(scope, 0)) : team!.lock(scope, { waitMs: 0 })),
    /** With a team store: its keeper heartbeats, which every machine of the team reads. */
    storeHeartbeats,
    /** The account's last keeper's heartbeat: the store's (that keeper may have run on another machine), else this machine's. */
    lastHeartbeat: async () =>
      heartbeatOf(
        storeHeartbeats && (await bounded(storeHeartbeats.read(scope)).catch(() => undefined))?.body,
        team && skippedAt(ports, team.location),
      ) ?? readHeartbeat(file, skippedAt(ports, file)),
  };
}

/** Takes the account's keeper lock, or throws exit 11 naming the keeper that has it. */
export async function takeKeeperLock(
  ports: Pick<CommandContext, 'hedgeCommand'>,
  place: KeeperLockPlace,
  file: string,
) {
  const taken = await place.take();
  if (taken.held) return taken.hold;
  const { holder } = taken;
  // The holder may run on another machine of the team store: its heartbeat there names its folder.
  const heartbeat = await place.lastHeartbeat();
  // The heartbeat names the config folder only when it is that keeper's own (same pid and host).
  const folder = heartbeat?.pid === holder.pid && heartbeat.host === holder.host ? heartbeat.config_dir : undefined;
  throw new HeldError(
    `Another keeper already holds this account (pid ${holder.pid} on ${safeText(holder.host)}, since ${safeText(holder.since)}${folder ? `, config folder ${safeText(folder)}` : ''}); this one did not start.`,
    {
      hint: `Stop that keeper first (\`kill ${holder.pid}\` on ${safeText(holder.host)}), \`${ports.hedgeCommand('keep', 'status')}\` shows it, or run \`${ports.hedgeCommand('keep', shellWord(file), '--dry-run')}\` to see what it would do.`,
      holder,
      details: { ...(folder && { config_dir: folder }), lock: place.where },
    },
  );
}
