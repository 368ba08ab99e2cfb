// What makes `hedge keep` a service a treasury can run, beside the keeper's own loop (keep.ts calls
// it at a few marked places): one keeper per account (its lock), the heartbeat `hedge keep status`
// reads (one JSON body per account in the per-user keeper folder and the team store, named by a hash
// of the account scope, never the key), the alerts (core/alerts.ts's rules) and where they go, the
// `--metrics` server and the headroom read for `--alert-headroom`. It watches the keeper's events and
// is told when a cycle ends; nothing here decides or sends a trade.
import { homedir, hostname } from 'node:os';
import { join, resolve } from 'node:path';
import * as z from 'zod/mini';
import { Agent, request } from 'undici';
import { NO_ALERTS, stepAlerts, type ActiveAlert, type AlertNotice } from '../../core/alerts.js';
import type { CommandContext } from '../../platform/runtime/context.js';
import { rowKey, type Emit, type KeepEvent, type KeepRowStatus } from '../../core/keep-rules.js';
import { isLoopbackHost, localhostNameNote, loopbackOnlyLookup } from '../../core/security/base-url.js';
import { spawnBounded } from '../../core/process/bounded-child.js';
import { safeDeep, safeJson, safeText, slackText } from '../../core/security/safe-text.js';
import { containsKeyShape } from '../../core/security/secrets.js';
import { cents } from '../../core/money.js';
import { findMarket } from '../../core/markets.js';
import { utcIso } from '../../core/utc-text.js';
import { HeldError, UsageError } from '../../core/errors.js';
import { isMarketName, parseUsdAmount } from '../../core/input.js';
import { identityOf, type Identity } from '../write/row-trust.js';
import { withoutUndefined, type JsonObject } from '../../core/objects.js';
import { isAlive, newSession } from '../../core/files/file-lock.js';
import { configDir } from '../../platform/config/credentials.js';
import { ensureDir, isTeamJournal } from '../../platform/journal/index.js';
import { heartbeatFile, namedHolds, readHeartbeatFile, writeHeartbeatFile } from '../../platform/journal/journal.js';
import { shellWord } from '../../core/program.js';
import { issueWords } from '../../core/security/json-keys.js';
import type { Env } from '../../platform/config/env.js';
import { stateDir } from '../../platform/journal/location.js';
import { within } from '../../core/process/timers.js';
import type { AddressInfo, Server } from 'node:net';
import { SIDES } from '../../core/vocabulary.js';
import { boundedLabel } from '../../core/security/metric-label.js';
import { formatSpan } from '../../core/duration.js';

const HEARTBEAT_VERSION = 1;

/** The per-user keepers folder, shared by every HEDGE_CONFIG_DIR: two config folders with one key must meet here. */
export function keeperStateDir(env: Env, home: string) {
  return join(stateDir(env, home), 'keepers');
}

const text = z.optional(z.nullable(z.string()));

/** A keeper's first heartbeat, which it writes again after every cycle (`updated_at` and what the cycles changed) and at
 * its end (`stopped_at`): `hedge keep status` and the account's next keeper read it. */
async function firstHeartbeat(
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
  const { scope, file, team, heartbeatIn, heartbeatInFile } = await keeperLockPlace(ports, identity);
  const nowMs = ports.clock.now();
  // The team store: who holds the keeper lock (alive, on whatever machine) and the heartbeat it
  // writes there. A keeper of an older hedge writes none to the store: this machine's file then.
  const [holder, stored] = team ? await Promise.all([team.lockHolder(scope), team.keeperHeartbeats?.read(scope)]) : [];
  const fromStore = heartbeatIn(stored?.body);
  const heartbeat = fromStore ?? heartbeatInFile();
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

type KeeperLockPlace = Awaited<ReturnType<typeof keeperLockPlace>>;

/** The team store's heartbeat write or read, bounded whatever the store does (a connect that hangs included). */
const STORE_HEARTBEAT_BOUND_MS = 10_000;

const bounded = <T>(work: Promise<T>) =>
  within(work, STORE_HEARTBEAT_BOUND_MS, () => new Error(`no answer within ${formatSpan(STORE_HEARTBEAT_BOUND_MS)}`));

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
  /** A stored body (the team store's unless `where` says) as a heartbeat, or undefined; one skipped is one warning naming where it was read. */
  const heartbeatIn = (body: unknown, where = team?.location) => {
    const read = body === undefined ? undefined : HEARTBEAT.safeParse(body);
    if (read?.error) skipped(where, issueWords(read.error));
    return read?.data as Heartbeat | undefined;
  };
  const skipped = (where: string | undefined, problem: string) =>
    ports.notify?.({
      kind: 'heartbeat-skipped',
      level: 'warn',
      text: `Keeper heartbeat skipped: ${where} (${problem}).`,
    });
  const heartbeatInFile = () => heartbeatIn(readHeartbeatFile(file, (problem) => skipped(file, problem))?.body, file);
  return {
    heartbeatIn,
    heartbeatInFile,
    scope,
    /** This machine's heartbeat file, in the per-user keeper folder (written with a team store too). */
    file,
    /** Where the lock itself is held, for messages: the team store's location or the folder. */
    where: team?.location ?? dir,
    team,
    // The folder is made inside the state folder: a link there is refused, not followed.
    take: () => (holds ? (ensureDir(dir, { inside: true }), holds.take(scope, 0)) : team!.lock(scope, { waitMs: 0 })),
    /** The account's last keeper's heartbeat: the store's (that keeper may have run on another machine), else this machine's. */
    lastHeartbeat: async () =>
      heartbeatIn(
        team?.keeperHeartbeats && (await bounded(team.keeperHeartbeats.read(scope)).catch(() => undefined))?.body,
      ) ?? heartbeatInFile(),
  };
}

/** The account's keeper lock, held for the keeper's life (none for a dry run: no place), or exit 11 naming the keeper that
 * has it; a team store that ends the session holding it makes the keeper take it again. */
export async function holdKeeperLock(
  ports: Pick<CommandContext, 'hedgeCommand'>,
  place: KeeperLockPlace | undefined,
  file: string,
  emit: Emit,
) {
  const take = async (at = place!) => {
    const taken = await at.take();
    if (taken.held) return taken.hold;
    const { holder } = taken;
    // The holder may run on another machine of the team store: its heartbeat there names its folder.
    const heartbeat = await at.lastHeartbeat();
    // The heartbeat names the config folder only when it is that keeper's own (same pid and host).
    const folder = heartbeat?.pid === holder.pid && heartbeat.host === holder.host ? heartbeat.config_dir : undefined;
    throw new HeldError(
      `Another keeper already holds this account (pid ${holder.pid} on ${safeText(holder.host)}, since ${safeText(holder.since)}${folder ? `, config folder ${safeText(folder)}` : ''}); this one did not start.`,
      {
        hint: `Stop that keeper first (\`kill ${holder.pid}\` on ${safeText(holder.host)}), \`${ports.hedgeCommand('keep', 'status')}\` shows it, or run \`${ports.hedgeCommand('keep', shellWord(file), '--dry-run')}\` to see what it would do.`,
        holder,
        details: { ...(folder && { config_dir: folder }), lock: at.where },
      },
    );
  };
  let hold = place && (await take());
  return {
    /** Before anything of a cycle is done: the lock taken again if the team store ended the session holding it. */
    async again() {
      if (!hold?.lost()) return;
      emit({
        event: 'notice',
        code: 'keeper_lock_lost',
        message: "the team store ended the session holding this keeper's lock; taking it again before anything is done",
      });
      hold = await take();
    },
    release: () => hold?.release().catch(() => {}),
  };
}

// ---- The service: heartbeat, alerts, metrics.

/** `9464`, `:9464`, `127.0.0.1:9464`, `0.0.0.0:9464`, `[::1]:9464`; port 0 takes any free port. */
export function parseMetricsAddress(raw: string) {
  const text = raw.trim();
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]*):)?(\d{1,5})$/.exec(text);
  if (!match || Number(match[2]) > 65_535)
    throw new UsageError(
      `--metrics: ${JSON.stringify(safeText(text))} is not allowed; expected PORT or HOST:PORT (e.g. 9464, 127.0.0.1:9464, [::1]:9464), port 0 to 65535.`,
    );
  return { host: match[1]?.replace(/^\[|\]$/g, '') || '127.0.0.1', port: Number(match[2]) };
}

/** The service's options of `hedge keep` as typed (exit 2 on a bad one, before anything is read). */
export function parseKeeperServiceOptions({
  alertUrl,
  alertHeadroom,
  metrics,
}: Partial<Record<'alertUrl' | 'alertHeadroom' | 'metrics', string>>) {
  return {
    alertHeadroomUsd:
      alertHeadroom === undefined ? undefined : parseUsdAmount(alertHeadroom, '--alert-headroom', 'zero-or-more'),
    alertUrl: alertUrl === undefined ? undefined : parseAlertUrl(alertUrl),
    metrics: metrics === undefined ? undefined : parseMetricsAddress(metrics),
  };
}

/** --alert-url, --alert-headroom (alert when a row's market capacity or the exposure headroom is below this many USD) and --metrics as parsed. */
export interface KeeperServiceOptions extends Partial<ReturnType<typeof parseKeeperServiceOptions>> {
  file: string;
  intervalMs: number;
  toleranceUsd: number;
  dryRun: boolean;
  alertCommand?: string;
  /** The error codes --metrics counts by name (the catalogue's, from the command); any other is `other`. */
  metricsErrorCodes?: readonly string[];
}

/** The error events the service parts emit themselves (a sink or the heartbeat failing): never alerted on. */
const SERVICE_ERROR_CODES = ['alert_cmd', 'alert_url', 'heartbeat'];

export type KeeperService = Awaited<ReturnType<typeof startKeeperService>>;

/** Starts the service parts once the lock is held; `place` is undefined for a dry run (no heartbeat). */
export async function startKeeperService(
  ports: Pick<CommandContext, 'clock' | 'journal' | 'env'>,
  identity: Identity,
  place: KeeperLockPlace | undefined,
  options: KeeperServiceOptions,
  emit: Emit,
) {
  const now = () => ports.clock.now();
  const startedAtMs = now();
  const metrics = options.metrics && (await startMetrics(options.metrics, options, now, startedAtMs, emit));
  // A dry run pages no one: its alert events name the hooks a real run would have sent them to.
  const hooks = [options.alertCommand && '--alert-cmd', options.alertUrl && '--alert-url'].filter(Boolean);
  const sinks =
    hooks.length && !options.dryRun
      ? alertSinks(options, (code, message) => emit({ event: 'error', code, message }))
      : undefined;

  // This process holds the account's lock: a heartbeat there is a previous keeper's, whose alerts carry on (its causes are ones a keeper wrote).
  const previous = await place?.lastHeartbeat();
  let alerts = previous?.alerts?.length
    ? {
        active: new Map(previous.alerts.map((alert) => [alert.key, alert as ActiveAlert])),
        rows: new Map(previous.rows.map((row) => [rowKey(row), row])),
      }
    : NO_ALERTS;
  const pending: KeepEvent[] = [];
  const rollsToPrice: string[] = [];
  const heartbeat: Heartbeat = await firstHeartbeat(ports, identity, options, startedAtMs);
  const beat = () => writeHeartbeat(place, heartbeat, alerts.active, now(), emit);
  await beat();

  return {
    /** Every event the keeper emits, as it emits it. */
    observe(event: KeepEvent) {
      pending.push(event);
      counted(event, heartbeat, metrics, rollsToPrice);
    },
    /** After every cycle (finished or failed): alerts, heartbeat, metrics. */
    async endCycle(stepPorts: Pick<CommandContext, 'client'>) {
      const events = pending.splice(0);
      // The keeper's own `cycle` event: its rows and next cycle as it reported them.
      const cycle = events.findLast((event) => event.event === 'cycle');
      const rows = cycle?.rows as KeepRowStatus[] | undefined;
      const nowMs = now();
      heartbeat.cycles += 1;
      heartbeat.last_cycle_at = utcIso(nowMs);
      const good =
        rows !== undefined &&
        !events.some((event) => event.event === 'error' && (event.phase === 'read' || event.phase === 'cycle'));
      if (good) heartbeat.last_good_cycle_at = heartbeat.last_cycle_at;
      heartbeat.next_cycle_at = (cycle?.next_cycle_at as string | undefined) ?? null;
      metrics?.cycle(good, nowMs);
      if (rows) {
        heartbeat.rows = rows;
        metrics?.rows(rows);
      }
      const headroom =
        options.alertHeadroomUsd !== undefined && rows
          ? await readHeadroom(stepPorts, rows).catch(() => undefined)
          : undefined;
      if (rollsToPrice.length && !options.dryRun)
        await priceRolls(stepPorts, rollsToPrice, heartbeat).catch(() => undefined);
      const step = stepAlerts(alerts, {
        nowMs,
        // The service's own sink errors are not conditions of the book: counted, never alerted (no loop).
        events: events.filter((event) => !SERVICE_ERROR_CODES.includes(String(event.code))),
        rows,
        serverNowMs: Date.parse(String(cycle?.server_time)) || undefined,
        toleranceUsd: options.toleranceUsd,
        headroom,
        thresholdUsd: options.alertHeadroomUsd,
      });
      alerts = step.state;
      for (const notice of step.notices) {
        // The alert is an event of its own too (the log shows what was sent), then goes to the sinks.
        emit({
          event: 'alert',
          alert: notice.alert,
          cause: notice.cause,
          ...withoutUndefined({ market: notice.market, side: notice.side }),
          message: notice.text,
          since: notice.since,
          ...(options.dryRun && hooks.length && { would_send: hooks }),
        });
        sinks?.send(notice);
      }
      await beat();
    },
    /** At the keeper's end: the heartbeat says it stopped; deliveries still running are awaited (bounded). */
    async stop() {
      heartbeat.stopped_at = utcIso(now());
      await beat();
      await sinks?.settle();
      await metrics?.close();
    },
  };
}

/** --metrics: served, and where said. */
async function startMetrics(
  address: { host: string; port: number },
  options: KeeperServiceOptions,
  now: () => number,
  startedAtMs: number,
  emit: Emit,
) {
  const metrics = await serveKeeperMetrics(address, {
    now,
    staleAfterMs: staleAfterMs(options.intervalMs / 1000),
    startedAtMs,
    knownErrorCodes: [...(options.metricsErrorCodes ?? []), ...SERVICE_ERROR_CODES],
  });
  emit({
    event: 'notice',
    code: 'metrics_listening',
    address: metrics.address,
    message: `Prometheus metrics on http://${metrics.address}/metrics, health on /healthz`,
  });
  return metrics;
}

/** An event counted into the heartbeat and the metrics: errors, and the actions done (a roll's rolled-out hedge kept to
 * be priced once its history entry appears). */
function counted(event: KeepEvent, heartbeat: Heartbeat, metrics: KeeperMetrics | undefined, rollsToPrice: string[]) {
  if (event.event === 'error') {
    const code = String(event.code ?? 'error');
    heartbeat.errors += 1;
    heartbeat.last_error = { at: event.at, code, message: String(event.message ?? '') };
    metrics?.error(code);
  }
  if (['roll', 'reopen', 'converge'].includes(event.event) && event.dry_run !== true) {
    heartbeat.actions[event.event] = (heartbeat.actions[event.event] ?? 0) + 1;
    metrics?.action(event.event);
    // Its hedges old → new.
    const [rolledOut, opened] = event.hedge_ids ?? [];
    if (event.event === 'roll') heartbeat.rolls.count += 1;
    if (event.event === 'roll' && opened !== undefined) rollsToPrice.push(rolledOut);
  }
}

/** The heartbeat written with the alerts active, to its file and the team store's. Never fatal: the keeper goes on without
 * it; `hedge keep status` calls it hung (other machines see the store's heartbeat age until a write lands), which is the
 * truth seen from outside. None for a dry run (no place). */
async function writeHeartbeat(
  place: KeeperLockPlace | undefined,
  heartbeat: Heartbeat,
  active: ReadonlyMap<string, ActiveAlert>,
  nowMs: number,
  emit: Emit,
) {
  if (!place) return;
  const write = (work: () => unknown, where: string, seen: string) =>
    (async () => work())().catch((error: Error) =>
      emit({
        event: 'error',
        code: 'heartbeat',
        message: `the heartbeat could not be written${where} (${error.message}); \`hedge keep status\` ${seen}`,
      }),
    );
  heartbeat.alerts = [...active.values()].map(({ trigger: _trigger, ...alert }) => alert);
  heartbeat.updated_at = utcIso(nowMs);
  await write(() => writeHeartbeatFile(place.file, heartbeat), '', 'cannot see this keeper');
  const store = place.team?.keeperHeartbeats;
  if (store)
    await write(
      () => bounded(store.write(place.scope, heartbeat)),
      ' to the team store',
      'on other machines sees it age',
    );
}

/** GET /account and GET /markets: the exposure headroom and each row's capacity on its side. */
async function readHeadroom(ports: Pick<CommandContext, 'client'>, rows: readonly KeepRowStatus[]) {
  const client = await ports.client();
  const [account, markets] = await Promise.all([client.getAccount(), client.listMarkets()]);
  const capacityUsd = new Map<string, number>();
  for (const row of rows) {
    const figure = findMarket(markets.markets, row.market)?.available_capacity_usd?.[row.side as 'buy' | 'sell'];
    if (row.target_usd > 0 && Number.isFinite(figure)) capacityUsd.set(rowKey(row), figure!);
  }
  const exposure = account.available_exposure_usd;
  return { exposureHeadroomUsd: Number.isFinite(exposure) ? exposure : undefined, capacityUsd };
}

/** Carry and fees of the hedges rolled out, from their history entries (once each appears there). */
async function priceRolls(ports: Pick<CommandContext, 'client'>, hedgeIds: string[], heartbeat: Heartbeat) {
  const client = await ports.client();
  const { readHistoryRecord } = await import('../../platform/api/wire/fields.js');
  const records = (await client.listHistory({ limit: 50 })).map(readHistoryRecord);
  const { rolls } = heartbeat;
  for (const { hedgeId, carryUsd, feesUsd } of records) {
    const at = hedgeIds.indexOf(hedgeId!);
    if (at < 0) continue;
    hedgeIds.splice(at, 1);
    if (carryUsd !== undefined) rolls.carry_usd = cents((rolls.carry_usd ?? 0) + carryUsd);
    if (feesUsd !== undefined) rolls.fees_usd = cents((rolls.fees_usd ?? 0) + feesUsd);
  }
}

// ---- Where alerts go: --alert-cmd and --alert-url, bounded and never awaited by the cycle.

/** A hook or a POST that has not finished by then is stopped: an alert must never hold the keeper up. */
const ALERT_BOUND_MS = 10_000;
/** At most this many deliveries run at once per sink; one past that is dropped and said. */
const ALERTS_AT_ONCE = 4;

/** The JSON an alert is sent as, every string escaped for Slack (part of it is the server's word). */
export function alertPayload(notice: AlertNotice) {
  const trigger: JsonObject = notice.alert === 'started' ? (notice.trigger ?? {}) : {};
  return safeDeep<JsonObject>(
    {
      ...trigger,
      at: notice.at,
      event: notice.alert === 'recovered' ? 'recovered' : typeof trigger.event === 'string' ? trigger.event : 'alert',
      alert: notice.alert,
      cause: notice.cause,
      key: notice.key,
      ...withoutUndefined({ market: notice.market, side: notice.side }),
      message: typeof trigger.message === 'string' ? trigger.message : notice.message,
      since: notice.since,
      ...withoutUndefined({ duration_s: notice.duration_s }),
      text: notice.text,
    },
    slackText,
  );
}

/** --alert-url: https anywhere, plain http only to this machine; no user or password in it, and nothing shaped like an API key (a webhook must never carry the account's key). Exit 2 otherwise. */
export function parseAlertUrl(raw: string) {
  const text = raw.trim();
  const refuse = (why: string) =>
    new UsageError(
      `--alert-url: ${why}; expected https://host/path (http:// only to localhost), e.g. a Slack incoming webhook.`,
    );
  if (containsKeyShape(text))
    throw refuse('it holds something shaped like an API key, which must never leave for a webhook');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse('not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw refuse(`the scheme ${safeText(url.protocol)} is not allowed`);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname))
    throw refuse(
      `plain http:// to ${safeText(url.hostname)} is not allowed (${localhostNameNote(url.hostname) ?? 'the alert would cross a network in clear text'})`,
    );
  if (url.username || url.password) throw refuse('it carries a user or password');
  return url.toString();
}

/** A webhook's path is its secret (Slack's is): messages name the origin only. */
export function shownAlertUrl(url: string) {
  return `${new URL(url).origin}/…`;
}

function alertSinks(
  { alertCommand, alertUrl }: KeeperServiceOptions,
  onProblem: (code: string, message: string) => void,
) {
  const running = new Set<Promise<void>>();
  const byKind = { cmd: 0, url: 0 };
  const start = (kind: 'cmd' | 'url', deliver: typeof postAlert, target: string, line: string) => {
    const problem = (message: string) => onProblem(`alert_${kind}`, message);
    if (byKind[kind] >= ALERTS_AT_ONCE)
      return problem(`--alert-${kind}: ${ALERTS_AT_ONCE} deliveries are still running; this alert was not sent to it.`);
    byKind[kind] += 1;
    const delivery = deliver(target, line, problem).finally(() => {
      byKind[kind] -= 1;
      running.delete(delivery);
    });
    running.add(delivery);
  };
  return {
    send(notice: AlertNotice) {
      const line = safeJson(alertPayload(notice));
      if (alertCommand) start('cmd', runAlertCommand, alertCommand, line);
      if (alertUrl) start('url', postAlert, alertUrl, line);
    },
    /** Waits for the deliveries still running (each bounded). */
    settle: () => Promise.all(running),
  };
}

async function runAlertCommand(command: string, line: string, onProblem: (message: string) => void) {
  // The hook gets the alert, not the keeper's secrets: the key and the store URL are left out of its environment.
  const { child, ended } = spawnBounded(command, {
    env: process.env,
    stdio: ['pipe', 'ignore', 'ignore'],
    boundMs: ALERT_BOUND_MS,
    late: () => new Error(`--alert-cmd did not finish within ${formatSpan(ALERT_BOUND_MS)} and was stopped.`),
  });
  child.on('error', (error) => onProblem(`--alert-cmd could not run: ${safeText(error.message)}`));
  child.stdin?.on('error', () => {});
  child.stdin?.end(`${line}\n`);
  const { code, stopped } = await ended;
  if (stopped) onProblem(stopped.message);
  else if (code !== 0 && code !== null) onProblem(`--alert-cmd exited ${code}.`);
}

async function postAlert(url: string, line: string, onProblem: (message: string) => void) {
  // Plain http:// (to loopback only: parseAlertUrl) connects only to an address that is loopback.
  const loopbackOnly =
    new URL(url).protocol === 'http:' ? new Agent({ connect: { lookup: loopbackOnlyLookup() } }) : undefined;
  try {
    // One bound for the whole delivery: connecting, sending, the answer and its body.
    const response = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'hedge-keeper' },
      body: line,
      // undici's request follows no redirect: the alert goes to this URL or nowhere.
      signal: AbortSignal.timeout(ALERT_BOUND_MS),
      ...(loopbackOnly && { dispatcher: loopbackOnly }),
    });
    await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
    if (response.statusCode >= 300)
      onProblem(`--alert-url ${shownAlertUrl(url)} answered HTTP ${response.statusCode}.`);
  } catch (error) {
    const { name, message } = error as Error;
    const why =
      name === 'TimeoutError' || name === 'AbortError'
        ? `did not answer within ${formatSpan(ALERT_BOUND_MS)}`
        : safeText(message);
    onProblem(`--alert-url ${shownAlertUrl(url)}: ${why}.`);
  } finally {
    await loopbackOnly?.close().catch(() => undefined);
  }
}

// ---- `hedge keep --metrics ADDR`: Prometheus metrics and /healthz (503 once the last good cycle is stale).
// Every label value is from a fixed set (anything else is `other`), so a server's code cannot reach the exposition.

/** A scrape is one short GET from a nearby collector: a slow client is cut, a socket past maxConnections closed on accept; the check interval is shorter than Node's default so the timeouts bite. */
export const METRICS_SERVER_LIMITS = {
  maxConnections: 64,
  headersTimeout: 5_000,
  requestTimeout: 10_000,
  keepAliveTimeout: 5_000,
  connectionsCheckingInterval: 1_000,
};

/** Listens on --metrics' address; one taken or not allowed is exit 2 naming it. */
const listenOn = (server: Server, address: { host: string; port: number }) =>
  new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new UsageError(
          `--metrics: cannot listen on ${address.host}:${address.port} (${error.code ?? safeText(error.message)}); choose another address.`,
        ),
      ),
    );
    server.listen(address.port, address.host, () => resolve());
  });

export type KeeperMetrics = Awaited<ReturnType<typeof serveKeeperMetrics>>;

const KNOWN_SIDES = new Set<string>(SIDES);

export async function serveKeeperMetrics(
  // Where --metrics listens (parseMetricsAddress).
  address: { host: string; port: number },
  options: {
    now: () => number;
    staleAfterMs: number;
    startedAtMs: number;
    /** The error codes counted under their own name (the error catalogue's and the keeper's own); any other is `other`. */
    knownErrorCodes: Iterable<string>;
    /** METRICS_SERVER_LIMITS unless a test needs shorter ones. */
    limits?: Partial<typeof METRICS_SERVER_LIMITS>;
  },
) {
  const knownErrorCodes = new Set(options.knownErrorCodes);
  const limits = { ...METRICS_SERVER_LIMITS, ...options.limits };
  // prom-client is loaded only by a keeper that serves metrics.
  const { Counter, Gauge, Registry } = (await import('prom-client')).default;
  const registry = new Registry();
  // Each is [name, help, ...label names], registered in the exposition's order.
  const [cycles, actions, errors] = [
    ['hedge_keeper_cycles_total', 'Cycles run, by result (good: the book was read and the journal answered)', 'result'],
    ['hedge_keeper_actions_total', 'Actions done: roll, reopen, converge', 'action'],
    ['hedge_keeper_errors_total', 'Error events, by code', 'code'],
  ].map(([name, help, ...labelNames]) => new Counter({ name, help, labelNames, registers: [registry] }));
  const [target, book, sinceLastGood, lastGood] = [
    ['hedge_keeper_target_usd', 'The target notional of each row, USD', 'market', 'side'],
    ['hedge_keeper_book_usd', 'The notional the book held at the last cycle, USD (0 when flat)', 'market', 'side'],
    [
      'hedge_keeper_seconds_since_last_good_cycle',
      'Seconds since the last good cycle (since the start, before the first)',
    ],
    ['hedge_keeper_last_good_cycle_timestamp_seconds', 'When the last good cycle ended, Unix time'],
  ].map(([name, help, ...labelNames]) => new Gauge({ name, help, labelNames, registers: [registry] }));
  let lastGoodMs: number | undefined;
  const since = () => (options.now() - (lastGoodMs ?? options.startedAtMs)) / 1000;
  // node:http by getBuiltinModule: its ES import costs Node >= 22 its undici (api/transport.ts).
  const server = process.getBuiltinModule('node:http').createServer(limits, (request, response) => {
    const path = request.url?.split('?')[0];
    if (!['GET', 'HEAD'].includes(request.method!)) return void response.writeHead(405, { allow: 'GET, HEAD' }).end();
    if (path === '/metrics') {
      sinceLastGood.set(Math.max(0, since()));
      return void registry.metrics().then(
        (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
        () => response.writeHead(500).end(),
      );
    }
    if (path !== '/healthz')
      return void response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: /metrics or /healthz\n');
    const healthy = since() * 1000 <= options.staleAfterMs;
    response.writeHead(healthy ? 200 : 503, { 'content-type': 'application/json' }).end(
      `${JSON.stringify({
        status: healthy ? 'ok' : 'stale',
        last_good_cycle_at: lastGoodMs === undefined ? null : utcIso(lastGoodMs),
        seconds_since_last_good_cycle: Math.round(since()),
      })}\n`,
    );
  });
  // Past this many sockets node closes a new one as it is accepted (and emits `drop`).
  server.maxConnections = limits.maxConnections;
  await listenOn(server, address);
  // The keeper's own end is its signal handling, never a scrape connection left open.
  server.unref();
  // A TCP listen: the bound address is always an AddressInfo.
  const bound = server.address() as AddressInfo;

  return {
    /** The address actually bound ("127.0.0.1:41234"). */
    address: `${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`,
    cycle(good: boolean, atMs: number) {
      cycles.inc({ result: good ? 'good' : 'failed' });
      if (good) lastGood.set((lastGoodMs = atMs) / 1000);
    },
    action: (kind: string) => actions.inc({ action: kind }),
    error: (code: string) => errors.inc({ code: boundedLabel(code, knownErrorCodes) }),
    rows(
      rows: ReadonlyArray<Pick<KeepRowStatus, 'market' | 'side' | 'target_usd' | 'current_usd' | 'current_unknown'>>,
    ) {
      // Set afresh: a row dropped from the target (SIGHUP) leaves the gauges.
      target.reset();
      book.reset();
      for (const row of rows) {
        const labels = { market: boundedLabel(row.market, isMarketName), side: boundedLabel(row.side, KNOWN_SIDES) };
        target.set(labels, row.target_usd);
        // A side the cycle could not tell (settling, the book unread) is left out: a 0 would read as flat.
        if (!row.current_unknown) book.set(labels, row.current_usd ?? 0);
      }
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
