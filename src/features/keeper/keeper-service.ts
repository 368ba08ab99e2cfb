// What makes `hedge keep` a service a treasury can run, beside the keeper's own loop (keep.ts calls
// it at a few marked places): the heartbeat `hedge keep status` reads, the alerts (domain/alerts.ts's
// rules) and where they go, the `--metrics` server and the headroom read for `--alert-headroom`. It
// watches the keeper's events and is told when a cycle ends; nothing here decides or sends a trade.
import { Agent, request } from 'undici';
import { NO_ALERTS, stepAlerts, type ActiveAlert, type AlertNotice } from '../../core/alerts.js';
import type { CommandContext } from '../../platform/runtime/context.js';
import { rowKey, type EventFields, type KeepEvent, type KeepRowStatus } from '../../core/keep-rules.js';
import { isLoopbackHost, localhostNameNote, loopbackOnlyLookup } from '../../core/security/base-url.js';
import { spawnBounded } from '../../core/process/bounded-child.js';
import { safeDeep, safeJson, safeText, slackText } from '../../core/security/safe-text.js';
import { containsKeyShape } from '../../core/security/secrets.js';
import { cents } from '../../core/money.js';
import { findMarket } from '../../core/markets.js';
import { utcIso } from '../../core/utc-text.js';
import { bounded, firstHeartbeat, staleAfterMs, type Heartbeat, type KeeperLockPlace } from './keeper-heartbeat.js';
import { writeHeartbeatFile } from '../../platform/journal/heartbeat-file.js';
import { UsageError } from '../../core/errors.js';
import { parseUsdAmount } from '../../core/input.js';
import type { Identity } from '../write/identity.js';
import type { JsonObject } from '../../core/objects.js';

/** `9464`, `:9464`, `127.0.0.1:9464`, `0.0.0.0:9464`, `[::1]:9464`; port 0 takes any free port. */
export function parseMetricsAddress(raw: string) {
  const text = raw.trim();
  const refuse = () =>
    new UsageError(
      `--metrics: ${JSON.stringify(safeText(text))} is not allowed; expected PORT or HOST:PORT (e.g. 9464, 127.0.0.1:9464, [::1]:9464), port 0 to 65535.`,
    );
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]*):)?(\d{1,5})$/.exec(text);
  if (!match || Number(match[2]) > 65_535) throw refuse();
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
  emit: (fields: EventFields) => void,
) {
  const now = () => ports.clock.now();
  const startedAtMs = now();
  const metrics =
    options.metrics &&
    (await (
      await import('./keeper-metrics.js')
    ).serveKeeperMetrics(options.metrics, {
      now,
      staleAfterMs: staleAfterMs(options.intervalMs / 1000),
      startedAtMs,
      knownErrorCodes: [...(options.metricsErrorCodes ?? []), ...SERVICE_ERROR_CODES],
    }));
  if (metrics)
    emit({
      event: 'notice',
      code: 'metrics_listening',
      address: metrics.address,
      message: `Prometheus metrics on http://${metrics.address}/metrics, health on /healthz`,
    });
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
  let pending: KeepEvent[] = [];
  const rollsToPrice: string[] = [];
  const heartbeat: Heartbeat = await firstHeartbeat(ports, identity, options, startedAtMs);

  // Never fatal: the keeper goes on without it; `hedge keep status` calls it hung (other machines see
  // the store's heartbeat age until a write lands), which is the truth seen from outside.
  const write = (work: () => unknown, where: string, seen: string) =>
    (async () => work())().catch((error: Error) =>
      emit({
        event: 'error',
        code: 'heartbeat',
        message: `the heartbeat could not be written${where} (${error.message}); \`hedge keep status\` ${seen}`,
      }),
    );
  const beat = async () => {
    if (!place) return;
    heartbeat.alerts = [...alerts.active.values()].map(({ trigger: _trigger, ...alert }) => alert);
    heartbeat.updated_at = utcIso(now());
    await write(() => writeHeartbeatFile(place.file, heartbeat), '', 'cannot see this keeper');
    const store = place.storeHeartbeats;
    if (store)
      await write(
        () => bounded(store.write(place.scope, heartbeat)),
        ' to the team store',
        'on other machines sees it age',
      );
  };
  await beat();

  return {
    /** Every event the keeper emits, as it emits it. */
    observe(event: KeepEvent) {
      pending.push(event);
      if (event.event === 'error') {
        const code = String(event.code ?? 'error');
        heartbeat.errors += 1;
        heartbeat.last_error = { at: event.at, code, message: String(event.message ?? '') };
        metrics?.error(code);
      }
      if (['roll', 'reopen', 'converge'].includes(event.event) && event.dry_run !== true) {
        heartbeat.actions[event.event] = (heartbeat.actions[event.event] ?? 0) + 1;
        metrics?.action(event.event);
        // Its hedges old → new: the one rolled out is priced once its history entry appears.
        const [rolledOut, opened] = event.hedge_ids ?? [];
        if (event.event === 'roll') heartbeat.rolls.count += 1;
        if (event.event === 'roll' && opened !== undefined) rollsToPrice.push(rolledOut);
      }
    },
    /** After every cycle (finished or failed): alerts, heartbeat, metrics. */
    async endCycle(stepPorts: Pick<CommandContext, 'client'>) {
      const events = pending;
      pending = [];
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
      if (rows) heartbeat.rows = rows;
      heartbeat.next_cycle_at = (cycle?.next_cycle_at as string | undefined) ?? null;
      metrics?.cycle(good, nowMs);
      if (rows) metrics?.rows(rows);
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
          ...(notice.market !== undefined && { market: notice.market, side: notice.side }),
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

/** GET /account and GET /markets: the exposure headroom and each row's capacity on its side. */
async function readHeadroom(ports: Pick<CommandContext, 'client'>, rows: readonly KeepRowStatus[]) {
  const client = await ports.client();
  const [account, markets] = await Promise.all([client.getAccount(), client.listMarkets()]);
  const capacityUsd = new Map<string, number>();
  for (const row of rows) {
    const figure = findMarket(markets.markets, row.market)?.available_capacity_usd?.[row.side as 'buy' | 'sell'];
    if (row.target_usd > 0 && typeof figure === 'number' && Number.isFinite(figure))
      capacityUsd.set(rowKey(row), figure);
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
  for (const id of [...hedgeIds]) {
    const record = records.find((candidate) => candidate.hedgeId === id);
    if (!record) continue;
    hedgeIds.splice(hedgeIds.indexOf(id), 1);
    if (record.carryUsd !== undefined) rolls.carry_usd = cents((rolls.carry_usd ?? 0) + record.carryUsd);
    if (record.feesUsd !== undefined) rolls.fees_usd = cents((rolls.fees_usd ?? 0) + record.feesUsd);
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
      event:
        notice.alert === 'recovered'
          ? 'recovered'
          : typeof notice.trigger?.event === 'string'
            ? notice.trigger.event
            : 'alert',
      alert: notice.alert,
      cause: notice.cause,
      key: notice.key,
      ...(notice.market !== undefined && { market: notice.market, side: notice.side }),
      message: typeof trigger.message === 'string' ? trigger.message : notice.message,
      since: notice.since,
      ...(notice.duration_s !== undefined && { duration_s: notice.duration_s }),
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
    late: () => new Error(`--alert-cmd did not finish within ${ALERT_BOUND_MS / 1000} s and was stopped.`),
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
        ? `did not answer within ${ALERT_BOUND_MS / 1000} s`
        : safeText(message);
    onProblem(`--alert-url ${shownAlertUrl(url)}: ${why}.`);
  } finally {
    await loopbackOnly?.close().catch(() => undefined);
  }
}
