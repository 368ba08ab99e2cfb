// What makes `hedge keep` a service a treasury can run (issue 38), beside the keeper's own loop
// (keep.ts calls it at a few marked places): the heartbeat `hedge keep status` reads, the alerts
// (domain/keeper-alerts.ts's rules, sent by keeper-alert-sinks.ts), the `--metrics` server and
// the headroom read for `--alert-headroom`. It watches the keeper's events and is told when a cycle
// ends; nothing here decides or sends a trade.
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { AlertNotice, HeadroomReading } from '../domain/alerts.js';
import {
  NO_ALERTS,
  rowKeyOf,
  stepAlerts,
  type ActiveAlert,
  type AlertCause,
  type AlertState,
} from '../domain/alerts.js';
import type { FlowPorts } from '../runtime/flow-ports.js';
import type { KeepEvent, KeepRowStatus } from '../domain/keep.js';
import { alertSinks, parseAlertUrl, type AlertSinks } from './keeper-alert-sinks.js';
import {
  heartbeatFile,
  heartbeatOf,
  HEARTBEAT_VERSION,
  readHeartbeat,
  staleAfterMs,
  writeHeartbeat,
  type Heartbeat,
} from './keeper-heartbeat.js';
import type { KeeperLockPlace } from './keeper-lock.js';
import type { KeeperMetrics, MetricsAddress } from './keeper-metrics.js';
import { UsageError } from '../errors.js';
import { parseUsdAmount } from '../domain/input.js';
import { safeText } from '../security/safe-text.js';
import type { Identity } from './identity.js';

/** `9464`, `:9464`, `127.0.0.1:9464`, `0.0.0.0:9464`, `[::1]:9464`; port 0 takes any free port. */
export function parseMetricsAddress(raw: string): MetricsAddress {
  const text = raw.trim();
  const refuse = () =>
    new UsageError(
      `--metrics: ${JSON.stringify(safeText(text))} is not allowed; expected PORT or HOST:PORT (e.g. 9464, 127.0.0.1:9464, [::1]:9464), port 0 to 65535.`,
    );
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]*):)?(\d{1,5})$/.exec(text);
  if (!match) throw refuse();
  const port = Number(match[2]);
  if (port > 65_535) throw refuse();
  const host = match[1] === undefined || match[1] === '' ? '127.0.0.1' : match[1].replace(/^\[|\]$/g, '');
  return { host, port };
}

/** The service's options of `hedge keep` as typed (exit 2 on a bad one, before anything is read). */
export function parseKeeperServiceOptions(options: {
  alertUrl?: string;
  alertHeadroom?: string;
  metrics?: string;
}): Pick<KeeperServiceOptions, 'alertUrl' | 'alertHeadroomUsd' | 'metrics'> {
  const alertHeadroomUsd =
    options.alertHeadroom === undefined
      ? undefined
      : parseUsdAmount(options.alertHeadroom, '--alert-headroom', 'zero-or-more');
  return {
    ...(options.alertUrl !== undefined ? { alertUrl: parseAlertUrl(options.alertUrl) } : {}),
    ...(alertHeadroomUsd !== undefined ? { alertHeadroomUsd } : {}),
    ...(options.metrics !== undefined ? { metrics: parseMetricsAddress(options.metrics) } : {}),
  };
}

export interface KeeperServiceOptions {
  file: string;
  intervalMs: number;
  toleranceUsd: number;
  dryRun: boolean;
  alertCommand?: string;
  alertUrl?: string;
  /** --alert-headroom: alert when a row's market capacity or the exposure headroom is below this many USD. */
  alertHeadroomUsd?: number;
  metrics?: MetricsAddress;
  /**
   * The error codes --metrics counts under their own name: the error catalogue's (every code a
   * command can end with, handed in by the command: flows do not import the agent layer). The
   * keeper's own SERVICE_ERROR_CODES are added here; any other code is counted as `other`.
   */
  metricsErrorCodes?: readonly string[];
}

/** The error events the service parts emit themselves (a sink or the heartbeat failing): never alerted on. */
const SERVICE_ERROR_CODES: readonly string[] = ['alert_cmd', 'alert_url', 'heartbeat'];

export interface KeeperService {
  /** Every event the keeper emits, as it emits it. */
  observe(event: KeepEvent): void;
  /** After every cycle (finished or failed): alerts, heartbeat, metrics. */
  endCycle(ports: Pick<FlowPorts, 'client'>): Promise<void>;
  /** At the keeper's end: the heartbeat says it stopped; deliveries still running are awaited (bounded). */
  stop(): Promise<void>;
}

/**
 * Starts the service parts after the keeper holds its lock (`place` is where; undefined for a dry
 * run, which writes no heartbeat: it must never overwrite the running keeper's). `emit` is the
 * keeper's own event function, for what the service has to say (an alert sink failing, the metrics
 * address).
 */
export async function startKeeperService(
  ports: Pick<FlowPorts, 'clock' | 'journal' | 'configDir'>,
  identity: Identity,
  place: KeeperLockPlace | undefined,
  options: KeeperServiceOptions,
  emit: (fields: Omit<KeepEvent, 'at'>) => void,
): Promise<KeeperService> {
  const startedAtMs = ports.clock.now();
  const journal = await ports.journal();
  let metrics: KeeperMetrics | undefined;
  if (options.metrics) {
    const { serveKeeperMetrics } = await import('./keeper-metrics.js');
    metrics = await serveKeeperMetrics(options.metrics, {
      now: () => ports.clock.now(),
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
  }
  const sinks: AlertSinks | undefined =
    options.alertCommand || options.alertUrl
      ? alertSinks({
          command: options.alertCommand,
          url: options.alertUrl,
          onProblem: (code, message) => emit({ event: 'error', code, message }),
        })
      : undefined;

  const path = place ? heartbeatFile(place.dir, place.scope) : undefined;
  const store = place?.storeHeartbeats;
  // This process holds the account's lock: a heartbeat there is a previous keeper's, whose alerts
  // carry on — with a team store, the store's (the previous keeper may have run on another machine).
  const previous = store
    ? heartbeatOf((await bounded(store.read(place!.scope)).catch(() => undefined))?.body)
    : undefined;
  let alerts: AlertState = path ? carriedAlerts(previous ?? readHeartbeat(path)) : NO_ALERTS;
  let pending: KeepEvent[] = [];
  const rollsToPrice: string[] = [];
  const heartbeat: Heartbeat = {
    version: HEARTBEAT_VERSION,
    pid: process.pid,
    host: hostname(),
    since: new Date(startedAtMs).toISOString(),
    config_dir: ports.configDir,
    journal: (journal as { location?: string }).location ?? ports.configDir,
    // Absolute: status is read from other folders.
    file: options.file === '-' ? '-' : resolve(options.file),
    account: { environment: identity.environment, host: identity.host, key_id: identity.keyId },
    interval_s: options.intervalMs / 1000,
    updated_at: new Date(startedAtMs).toISOString(),
    cycles: 0,
    last_cycle_at: null,
    last_good_cycle_at: null,
    next_cycle_at: null,
    errors: 0,
    last_error: null,
    actions: {},
    rolls: { count: 0, carry_usd: null, fees_usd: null },
    rows: [],
  };
  const beat = async () => {
    if (!path) return;
    heartbeat.alerts = [...alerts.active.values()].map(({ trigger: _trigger, ...alert }) => alert);
    heartbeat.updated_at = new Date(ports.clock.now()).toISOString();
    try {
      writeHeartbeat(path, heartbeat);
    } catch (error) {
      // The keeper goes on without it; `hedge keep status` will call it hung, which is the truth seen from outside.
      emit({
        event: 'error',
        code: 'heartbeat',
        message: `the heartbeat could not be written (${(error as Error).message}); \`hedge keep status\` cannot see this keeper`,
      });
    }
    if (!store) return;
    try {
      await bounded(store.write(place!.scope, heartbeat));
    } catch (error) {
      // Never fatal: the cycle's work is done; other machines see the heartbeat age (hung) until a write lands.
      emit({
        event: 'error',
        code: 'heartbeat',
        message: `the heartbeat could not be written to the team store (${(error as Error).message}); \`hedge keep status\` on other machines sees it age`,
      });
    }
  };
  await beat();

  return {
    observe(event) {
      // The service's own sink errors are not conditions of the book: counted, never alerted (no loop).
      pending.push(event);
      if (event.event === 'error') {
        heartbeat.errors += 1;
        heartbeat.last_error = {
          at: event.at,
          code: String(event.code ?? 'error'),
          message: String(event.message ?? ''),
        };
        metrics?.error(String(event.code ?? 'error'));
      }
      if (
        (event.event === 'roll' || event.event === 'reopen' || event.event === 'converge') &&
        event.dry_run !== true
      ) {
        heartbeat.actions[event.event] = (heartbeat.actions[event.event] ?? 0) + 1;
        metrics?.action(event.event);
        if (event.event === 'roll') {
          heartbeat.rolls.count += 1;
          const rolledOut =
            Array.isArray(event.hedge_ids) && event.hedge_ids.length >= 2 ? event.hedge_ids[0] : undefined;
          if (typeof rolledOut === 'string') rollsToPrice.push(rolledOut);
        }
      }
    },
    async endCycle(stepPorts) {
      const events = pending;
      pending = [];
      const cycle = [...events].reverse().find((event) => event.event === 'cycle');
      const nowMs = ports.clock.now();
      const rows = Array.isArray(cycle?.rows) ? (cycle.rows as KeepRowStatus[]) : undefined;
      heartbeat.cycles += 1;
      heartbeat.last_cycle_at = new Date(nowMs).toISOString();
      const good =
        rows !== undefined &&
        !events.some((event) => event.event === 'error' && (event.phase === 'read' || event.phase === 'cycle'));
      if (good) heartbeat.last_good_cycle_at = heartbeat.last_cycle_at;
      if (rows) heartbeat.rows = rows;
      heartbeat.next_cycle_at = typeof cycle?.next_cycle_at === 'string' ? cycle.next_cycle_at : null;
      metrics?.cycle(good, nowMs);
      if (rows) metrics?.rows(rows);
      const headroom =
        options.alertHeadroomUsd !== undefined && rows
          ? await readHeadroom(stepPorts, rows).catch(() => undefined)
          : undefined;
      if (rollsToPrice.length > 0 && !options.dryRun)
        await priceRolls(stepPorts, rollsToPrice, heartbeat).catch(() => undefined);
      const serverTime = typeof cycle?.server_time === 'string' ? Date.parse(cycle.server_time) : Number.NaN;
      const step = stepAlerts(alerts, {
        nowMs,
        events: events.filter((event) => !SERVICE_ERROR_CODES.includes(String(event.code))),
        ...(rows ? { rows } : {}),
        ...(Number.isNaN(serverTime) ? {} : { serverNowMs: serverTime }),
        toleranceUsd: options.toleranceUsd,
        ...(headroom ? { headroom } : {}),
        ...(options.alertHeadroomUsd !== undefined ? { thresholdUsd: options.alertHeadroomUsd } : {}),
      });
      alerts = step.state;
      for (const notice of step.notices) announce(notice);
      await beat();
    },
    async stop() {
      heartbeat.stopped_at = new Date(ports.clock.now()).toISOString();
      await beat();
      await sinks?.settle();
      await metrics?.close();
    },
  };

  function announce(notice: AlertNotice): void {
    // The alert is an event of its own too (the log shows what was sent), then goes to the sinks.
    emit({
      event: 'alert',
      alert: notice.alert,
      cause: notice.cause,
      ...(notice.market !== undefined ? { market: notice.market, side: notice.side } : {}),
      message: notice.text,
      since: notice.since,
    });
    sinks?.send(notice);
  }
}

/** The team store's heartbeat write or read, bounded whatever the store does (a connect that hangs included). */
const STORE_HEARTBEAT_BOUND_MS = 10_000;

function bounded<T>(work: Promise<T>, boundMs = STORE_HEARTBEAT_BOUND_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${boundMs / 1000} s`)), boundMs);
    timer.unref();
  });
  // The work may still end after the bound: its late failure is not an unhandled rejection.
  work.catch(() => undefined);
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

function carriedAlerts(previous: Heartbeat | undefined): AlertState {
  if (!previous?.alerts?.length) return NO_ALERTS;
  const active = new Map<string, ActiveAlert>();
  for (const alert of previous.alerts) {
    if (typeof alert.key === 'string' && typeof alert.since === 'string')
      active.set(alert.key, { ...alert, cause: alert.cause as AlertCause });
  }
  return { active, rows: new Map(previous.rows.map((row) => [rowKeyOf(row.market, row.side), row])) };
}

/** GET /account and GET /markets: the exposure headroom and each row's capacity on its side. */
async function readHeadroom(
  ports: Pick<FlowPorts, 'client'>,
  rows: readonly KeepRowStatus[],
): Promise<HeadroomReading> {
  const client = await ports.client();
  const [account, markets] = await Promise.all([client.getAccount(), client.listMarkets()]);
  const capacityUsd = new Map<string, number>();
  for (const row of rows) {
    if (row.target_usd <= 0) continue;
    const market = markets.markets.find((candidate) => candidate.market.toUpperCase() === row.market.toUpperCase());
    const figure = market?.available_capacity_usd?.[row.side as 'buy' | 'sell'];
    if (typeof figure === 'number' && Number.isFinite(figure)) capacityUsd.set(rowKeyOf(row.market, row.side), figure);
  }
  const exposure = account.available_exposure_usd;
  return {
    ...(typeof exposure === 'number' && Number.isFinite(exposure) ? { exposureHeadroomUsd: exposure } : {}),
    capacityUsd,
  };
}

/** Carry and fees of the hedges rolled out, from their history entries (once each appears there). */
async function priceRolls(ports: Pick<FlowPorts, 'client'>, hedgeIds: string[], heartbeat: Heartbeat): Promise<void> {
  const client = await ports.client();
  const { readHistoryRecord } = await import('../api/wire/read-history.js');
  const records = (await client.listHistory({ limit: 50 })).map((record) =>
    readHistoryRecord(record as Record<string, unknown>),
  );
  for (const id of [...hedgeIds]) {
    const record = records.find((candidate) => candidate.hedgeId === id);
    if (!record) continue;
    hedgeIds.splice(hedgeIds.indexOf(id), 1);
    if (record.carryUsd !== undefined)
      heartbeat.rolls.carry_usd = round2((heartbeat.rolls.carry_usd ?? 0) + record.carryUsd);
    if (record.feesUsd !== undefined)
      heartbeat.rolls.fees_usd = round2((heartbeat.rolls.fees_usd ?? 0) + record.feesUsd);
  }
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
