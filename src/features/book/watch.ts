// `--watch`: read the same thing again at a steady cadence until Ctrl-C, --timeout or --count;
// passing failures mark the view stale, alerts fire once per condition until it clears.
import { HedgeClient } from '../../platform/api/client.js';
import type { Hedge } from '../../platform/api/schemas.js';
import { readNumber } from '../../core/number-format.js';
import { Transport } from '../../platform/api/transport.js';
import { alertConditions, alertEdges, type Alert, type AlertRules, type MaturityFact } from '../../core/alerts.js';
import { cents } from '../../core/money.js';
import {
  echo,
  parseClientReference,
  parseHedgeId,
  parseMarket,
  parseWholeNumber,
  readDecimal,
  parseUsdAmount,
} from '../../core/input.js';
import { parseDuration } from '../../core/duration.js';
import { findHedge } from './hedge-id.js';
import {
  ApiError,
  AuthError,
  InterruptedError,
  InvalidResponseError,
  NetworkError,
  UsageError,
} from '../../core/errors.js';
import type { CommandContext } from '../../platform/runtime/context.js';
import type { OutputFormat } from '../../core/vocabulary.js';
import { requireListedMarket } from './markets.js';
import { carriesReference, ownReference, positionForPeople, readBook, type BookPosition } from './positions.js';
import { readPositionSides, sideReferences } from './position-sides.js';
import { accountForPeople, pricesInOneShape } from '../../platform/api/wire/fields.js';
import { messageOf } from '../../core/security/safe-text.js';

/** The options every watchable command declares (WATCH_OPTIONS in the manifest). */
export interface WatchOptionValues {
  watch?: string | true;
  alertPnl?: string;
  alertMaturity?: string;
  exitOnAlert?: boolean;
  count?: string;
}

/** What a watch uses of its command. */
type WatchPorts = Pick<CommandContext, 'clock' | 'signal' | 'deadline' | 'client' | 'log' | 'notify'>;

/** What is watched: the command's own reading, with its arguments. */
export type WatchTarget =
  | { kind: 'positions'; ref?: string }
  | { kind: 'account' }
  | { kind: 'price'; market?: string }
  | { kind: 'hedge'; id?: string; filters: { status?: string; ref?: string; limit?: string; wait?: boolean } };

const DEFAULT_WATCH_SECONDS = 2;
const MIN_WATCH_SECONDS = 1;
const MAX_WATCH_SECONDS = 3600;
const MAX_WATCH_COUNT = 1_000_000;
/** A Retry-After longer than this is not waited out in full: the watch tries again after this long. */
export const MAX_RETRY_AFTER_MS = 600_000;

/** One retry inside a refresh, quickly; a Retry-After is never waited out inside it (the loop delays its next refresh instead). The transport's other settings (timeouts, --timeout) stay. */
const WATCH_RETRY_POLICY = {
  maxAttempts: 2,
  baseDelayMs: 500,
  maxDelayMs: 1_000,
  maxTotalMs: 2_000,
  maxRetryAfterMs: 0,
};

const ACCOUNT_PNL_FIELDS = [
  'unrealized_pnl_usd',
  'upnl_usd',
  'floating_pnl_usd',
  'unrealized_pnl',
  'net_pnl_usd',
  'pnl_usd',
] as const;

/** The first option given that needs --watch. */
const givenWithWatch = (options: WatchOptionValues) =>
  options.alertPnl !== undefined
    ? '--alert-pnl'
    : options.alertMaturity !== undefined
      ? '--alert-maturity'
      : options.exitOnAlert
        ? '--exit-on-alert'
        : options.count !== undefined
          ? '--count'
          : undefined;

/** True when any watch option was given: the command hands over to runWatch (which refuses alerts without --watch). */
export function watchAsked(options: WatchOptionValues) {
  return options.watch !== undefined || givenWithWatch(options) !== undefined;
}

/** --watch's value: `true` alone (the default), else seconds from 1 to 3600. Returns ms. */
export function parseWatchInterval(raw: string | true) {
  if (raw === true) return DEFAULT_WATCH_SECONDS * 1000;
  const allowed = `a number of seconds from ${MIN_WATCH_SECONDS} to ${MAX_WATCH_SECONDS} (default ${DEFAULT_WATCH_SECONDS})`;
  if (readDecimal(raw, { min: 0, max: Infinity }) === undefined) {
    // `hedge price --watch USDTNGN`: the optional value took the argument.
    throw new UsageError(
      `--watch: ${echo(raw)} is not ${allowed}; put --watch after the arguments, or give seconds (--watch 5).`,
    );
  }
  const seconds = readDecimal(raw, { min: MIN_WATCH_SECONDS, max: MAX_WATCH_SECONDS });
  if (seconds === undefined) throw new UsageError(`--watch: ${echo(raw)} is not allowed; expected ${allowed}.`);
  return Math.round(seconds * 1000);
}

/** Every option checked before anything is sent (exit 2 on the first problem). */
export function parseWatchSettings(
  ports: Pick<CommandContext, 'hedgeCommand'>,
  target: WatchTarget,
  options: WatchOptionValues & { format?: OutputFormat },
) {
  if (options.watch === undefined)
    throw new UsageError(
      `${givenWithWatch(options)}: only with --watch; add --watch to \`${ports.hedgeCommand(commandWords(target))}\`.`,
    );
  const intervalMs = parseWatchInterval(options.watch);
  const count =
    options.count === undefined
      ? undefined
      : parseWholeNumber(
          options.count,
          '--count',
          1,
          MAX_WATCH_COUNT,
          `a whole number of refreshes from 1 to ${MAX_WATCH_COUNT.toLocaleString('en-US')}`,
        );
  const { format } = options;
  if (format === 'csv' || format === 'tsv') {
    throw new UsageError(
      `--format ${format}: --watch writes a live view on a terminal, or NDJSON (one JSON document per refresh); use --format ndjson or leave --format out.`,
    );
  }
  if (target.kind === 'hedge') {
    if (target.id === undefined)
      throw new UsageError(
        '--watch: on `hedges` it watches one hedge; give its ID, e.g. `hedge hedges hdg_… --watch`.',
      );
    const { status, ref, limit, wait } = target.filters;
    const other =
      status !== undefined
        ? '--status'
        : ref !== undefined
          ? '--ref'
          : limit !== undefined
            ? '--limit'
            : wait
              ? '--wait'
              : undefined;
    if (other) throw new UsageError(`${other}: cannot be combined with --watch.`);
  }
  const rules: AlertRules = {};
  if (options.alertPnl !== undefined) {
    if (target.kind === 'price' || target.kind === 'hedge')
      throw new UsageError(`--alert-pnl: \`${commandWords(target)}\` shows no P&L; use it with positions or account.`);
    rules.pnlAtOrBelowUsd = parseUsdAmount(options.alertPnl, '--alert-pnl', 'signed');
  }
  if (options.alertMaturity !== undefined) {
    if (target.kind === 'price' || target.kind === 'account')
      throw new UsageError(
        `--alert-maturity: \`${commandWords(target)}\` shows no maturity; use it with positions or hedges ID.`,
      );
    const within = parseDuration(options.alertMaturity, '--alert-maturity');
    rules.maturityWithinMs = within.ms;
    rules.maturityWithinText = within.text;
  }
  if (options.exitOnAlert && rules.pnlAtOrBelowUsd === undefined && rules.maturityWithinMs === undefined) {
    throw new UsageError('--exit-on-alert: needs an alert to wait for (--alert-pnl or --alert-maturity).');
  }
  return { intervalMs, rules, exitOnAlert: options.exitOnAlert === true, count };
}

function commandWords(target: WatchTarget) {
  switch (target.kind) {
    case 'hedge':
      return target.id === undefined ? 'hedges' : `hedges ${target.id}`;
    case 'price':
      return target.market === undefined ? 'price' : `price ${target.market}`;
    default:
      return target.kind;
  }
}

/** What one refresh read: `data` as NDJSON prints it, the facts alerts are about, and the reading the live view's model is made of. */
type WatchSnapshot = Awaited<ReturnType<ReturnType<typeof sourceFor>>>;

/** What one refresh read, as data (`pnlField`: the account's field that carries its unrealized P&L, when one does; `maturityAt`: set while the hedge can still mature). */
export type WatchReading = WatchSnapshot['reading'];

function positionsSource(
  ports: WatchPorts,
  needMaturity: boolean,
  ref: string | undefined,
  live: boolean,
  oneShape: boolean,
) {
  // A maturity the position line does not carry is read once from its hedge (it never changes).
  const maturityOfHedge = new Map<string, string | undefined>();
  // The deal references, joined from the hedges list when a position appears that was not seen yet.
  const referenceOf = new Map<string, string | undefined>();
  // A side's maturities are its live hedges' (a line of several hedges carries only one of them), read
  // with its references and again when its notional moves (a hedge of it added, settled or closed).
  const maturitiesOf = new Map<string, MaturityFact[] | undefined>();
  const identity = (position: BookPosition, index: number) =>
    position.hedgeId ?? `${position.market ?? ''}:${position.side ?? index}`;
  const seen = (position: BookPosition, index: number) =>
    needMaturity || live ? `${identity(position, index)} ${position.notionalUsd}` : identity(position, index);
  return async (client: HedgeClient) => {
    const book = await readBook({ client, log: (line) => ports.log(line) });
    for (const position of book) {
      if (position.maturityAt !== undefined || !needMaturity || position.hedgeId === undefined) continue;
      if (!maturityOfHedge.has(position.hedgeId)) {
        const hedge = await client.getHedge(position.hedgeId).catch(() => undefined);
        maturityOfHedge.set(position.hedgeId, hedge?.maturity_at ?? undefined);
      }
      position.maturityAt = maturityOfHedge.get(position.hedgeId);
    }
    // Asked once per position seen: for the live view's Ref column, for --ref (NDJSON is the data as sent) and --alert-maturity.
    if (
      (live || ref !== undefined || needMaturity) &&
      book.some((position, index) => !maturitiesOf.has(seen(position, index)))
    ) {
      const { lines, recordsError } = await readPositionSides(client, book, (line) => ports.log(line));
      if (recordsError !== undefined) {
        // The column is a help, not the data: without --ref the view goes on without it.
        if (ref !== undefined) throw recordsError;
        ports.log(`positions: deal references not read (${messageOf(recordsError)})`);
      }
      // Every hedge of the side, as `hedge positions` joins them; only the lines of now are kept (a watch may run for days).
      maturitiesOf.clear();
      book.forEach((position, index) => {
        referenceOf.set(identity(position, index), ownReference(position) ?? sideReferences(lines[index]));
        maturitiesOf.set(seen(position, index), lines[index]?.hedges.flatMap(hedgeMaturity));
      });
    }
    const shown =
      ref === undefined
        ? book
        : book.filter((position, index) => carriesReference(referenceOf.get(identity(position, index)), ref));
    const rounded = shown.every((position) => position.netPnlUsd !== undefined)
      ? cents(shown.reduce((sum, position) => sum + position.netPnlUsd!, 0))
      : undefined;
    // Each line's maturities: its hedges', else the one the line names.
    const dated = shown.map((position): MaturityFact[] => {
      const index = book.indexOf(position);
      const ofHedges = maturitiesOf.get(seen(position, index));
      if (ofHedges?.length) return ofHedges;
      const { maturityAt, market, side, hedgeId } = position;
      return maturityAt === undefined ? [] : [{ key: identity(position, index), maturityAt, market, side, hedgeId }];
    });
    return {
      // NDJSON in hedge's one shape (our names), like `positions --json`; --raw: as sent.
      data: shown.map((position) => (oneShape ? positionForPeople(position) : position.raw)),
      facts: { netPnlUsd: rounded, maturities: dated.flat() },
      reading: {
        kind: 'positions' as const,
        // The live view counts each side down to its soonest maturity, as its alerts do.
        positions: shown.map((position, index) => ({ ...position, maturityAt: soonest(dated[index]) })),
        references: shown.map((position) => referenceOf.get(identity(position, book.indexOf(position)))),
        ref,
        netPnlUsd: rounded,
      },
    };
  };
}

const soonest = (dated: readonly MaturityFact[]) =>
  dated.reduce<string | undefined>(
    (first, { maturityAt }) => (first === undefined || Date.parse(maturityAt) < Date.parse(first) ? maturityAt : first),
    undefined,
  );

function accountSource(oneShape: boolean) {
  return async (client: HedgeClient) => {
    const sent = await client.getAccount();
    // Our names, like `account --json` (the card too); --raw: as sent.
    const account = oneShape ? accountForPeople(sent) : sent;
    const pnlField = ACCOUNT_PNL_FIELDS.find((name) => readNumber(account[name]) !== undefined);
    const pnl = pnlField === undefined ? undefined : readNumber(account[pnlField]);
    return {
      data: account,
      facts: { netPnlUsd: pnl, maturities: [] },
      reading: { kind: 'account' as const, account, pnlField },
    };
  };
}

function priceSource(market: string | undefined, oneShape: boolean) {
  let listedChecked = false;
  return async (client: HedgeClient) => {
    let markets: string[];
    if (market !== undefined) {
      // The live list decides whether the market exists (exit 2 when not); asked once.
      if (!listedChecked) await requireListedMarket(client, market);
      listedChecked = true;
      markets = [market];
    } else {
      markets = (await client.listMarkets()).markets.map((entry) => entry.market);
    }
    // Like `price --json`, whatever GET /prices looks like; --raw: as sent. The view reads the prices out of it.
    const {
      data,
      quotes: prices,
      problem,
    } = markets.length ? await client.readPrices(markets) : { data: [], quotes: [], problem: undefined };
    if (problem) throw problem;
    return {
      data: oneShape ? pricesInOneShape(prices) : data,
      facts: { maturities: [] },
      reading: { kind: 'price' as const, market, prices },
    };
  };
}

const LIVE_HEDGE_STATUSES = new Set(['submitted', 'filled']);

/** A hedge's maturity while it can still mature, as the facts alerts are about. */
function hedgeMaturity(hedge: Hedge): MaturityFact[] {
  return typeof hedge.maturity_at === 'string' && LIVE_HEDGE_STATUSES.has(hedge.status)
    ? [{ key: hedge.id, maturityAt: hedge.maturity_at, market: hedge.market, side: hedge.side, hedgeId: hedge.id }]
    : [];
}

function hedgeSource(typed: string) {
  let id: string | undefined;
  return async (client: HedgeClient) => {
    const hedge = id === undefined ? await findHedge(client, typed) : await client.getHedge(id);
    id = hedge.id;
    const maturities = hedgeMaturity(hedge);
    return {
      data: hedge,
      facts: { maturities },
      reading: { kind: 'hedge' as const, hedge, maturityAt: maturities[0]?.maturityAt },
    };
  };
}

function sourceFor(ports: WatchPorts, target: WatchTarget, { settings, live, oneShape }: WatchPlan) {
  switch (target.kind) {
    case 'positions':
      return positionsSource(
        ports,
        settings.rules.maturityWithinMs !== undefined,
        parseClientReference(target.ref),
        live,
        oneShape,
      );
    case 'account':
      return accountSource(oneShape);
    case 'price':
      return priceSource(target.market === undefined ? undefined : parseMarket(target.market), oneShape);
    case 'hedge':
      return hedgeSource(parseHedgeId(target.id));
  }
}

/** The record of an alert in NDJSON: snake_case like the API's data. */
export function alertRecord(alert: Alert) {
  if (alert.kind === 'pnl') return { kind: 'pnl', net_pnl_usd: alert.netPnlUsd, threshold_usd: alert.thresholdUsd };
  return {
    // Said only when known: JSON leaves out what is undefined.
    kind: 'maturity',
    market: alert.market,
    side: alert.side,
    hedge_id: alert.hedgeId,
    maturity_at: alert.maturityAt,
    seconds_left: alert.secondsLeft,
    within: alert.within,
  };
}

/** Where the watch's refreshes go: a live view on a terminal, NDJSON otherwise (commands/watch-outcome.ts makes them). */
export interface WatchSink {
  /** `offsetMs`: the server's clock less ours, as maturities are counted (core/server-clock.ts `bestMs`). */
  fresh(snapshot: WatchSnapshot, at: number, offsetMs: number): void;
  stale(error: unknown, at: number, nextAt: number): void;
  /** `fired`: new this refresh (a record each, one bell); `holding`: every alert whose condition holds. */
  alerts(fired: Alert[], holding: Array<{ alert: Alert; at: number }>, at: number): void;
  /** Between refreshes, about every second (the terminal's countdown). */
  tick(): void;
  close(): void;
}

/** A refresh that failed for a reason that may pass: the watch goes on, stale. */
export function isPassingFailure(error: unknown) {
  if (error instanceof AuthError) return false;
  if (error instanceof NetworkError || error instanceof InvalidResponseError) return true;
  return error instanceof ApiError && (error.status >= 500 || error.status === 429);
}

function watchClient(ports: WatchPorts, client: HedgeClient) {
  if (!(client.transport instanceof Transport)) return client;
  const config = client.transport.config;
  return new HedgeClient(new Transport({ ...config, retry: { ...config.retry, ...WATCH_RETRY_POLICY } }), {
    wire: client.wire,
    warn: (text) => ports.notify({ kind: 'wire-warning', level: 'warn', text }),
  });
}

/** Start to start at the interval, and never sooner than MIN_WATCH_SECONDS after the answer. */
export function nextRefreshAt(startedAt: number, answeredAt: number, intervalMs: number) {
  return Math.max(startedAt + intervalMs, answeredAt + MIN_WATCH_SECONDS * 1000);
}

/** How a watch ended (the command says it and picks the exit code: commands/watch-outcome.ts). */
export type WatchOutcome =
  | { ended: 'alert'; alert: Alert; at: number; offsetMs: number }
  | { ended: 'deadline' }
  | { ended: 'count'; count: number }
  /** Ctrl-C (how a watch is meant to end), SIGTERM or SIGHUP. */
  | { ended: 'stopped' };

/** The watch's settings, and whether it is shown live (a terminal, without --json: redrawn every second). */
interface WatchPlan {
  settings: ReturnType<typeof parseWatchSettings>;
  live: boolean;
  oneShape: boolean;
}

async function pauseUntil(ports: WatchPorts, sink: WatchSink, live: boolean, at: number) {
  const { clock, signal, deadline } = ports;
  for (;;) {
    if (signal.aborted) return 'stopped';
    const now = clock.now();
    if (deadline !== undefined && now >= deadline) return 'deadline';
    if (now >= at) return 'due';
    const until = Math.min(at, deadline ?? Infinity);
    // On the second, so that a countdown moves in step with the clock on the wall.
    const step = live ? Math.min(until - now, 1000 - (now % 1000)) : until - now;
    try {
      await clock.sleep(Math.max(1, step), signal);
    } catch {
      return 'stopped';
    }
    sink.tick();
  }
}

/** Runs the watch until Ctrl-C, --timeout, --count, the first alert with --exit-on-alert, or an error that is not passing (thrown); what it read goes to the sink `openSink` opens (commands/watch-outcome.ts). */
export async function runWatch(
  ports: WatchPorts,
  target: WatchTarget,
  plan: WatchPlan,
  openSink: () => Promise<WatchSink>,
): Promise<WatchOutcome> {
  const { settings, live } = plan;
  const source = sourceFor(ports, target, plan);
  // --timeout bounds the watch; without it (or with --timeout 0) it runs until stopped, unlike a wait.
  const { clock, signal, deadline } = ports;
  const client = watchClient(ports, await ports.client());
  // Opened once the client is: a key that cannot be read fails before the screen is taken over.
  const sink = await openSink();
  const alerting = settings.rules.pnlAtOrBelowUsd !== undefined || settings.rules.maturityWithinMs !== undefined;
  // Each alert whose condition holds, with the time it fired (alertEdges keeps the first record).
  let active = new Map<string, { key: string; alert: Alert; at: number }>();
  let nextAt = clock.now();
  let refreshes = 0;
  try {
    for (;;) {
      if (settings.count !== undefined && refreshes >= settings.count) return { ended: 'count', count: settings.count };
      const state = await pauseUntil(ports, sink, live, nextAt);
      if (state === 'deadline') return { ended: 'deadline' };
      if (state === 'stopped') return { ended: 'stopped' };
      const startedAt = clock.now();
      refreshes += 1;
      let snapshot: WatchSnapshot;
      try {
        snapshot = await source(client);
      } catch (error) {
        nextAt = nextRefreshAt(startedAt, clock.now(), settings.intervalMs);
        if (signal.aborted || error instanceof InterruptedError) return { ended: 'stopped' };
        if (deadline !== undefined && clock.now() >= deadline && isPassingFailure(error)) return { ended: 'deadline' };
        if (!isPassingFailure(error)) throw error;
        const retryAfterMs = error instanceof NetworkError ? error.retryAfterMs : undefined;
        if (retryAfterMs !== undefined)
          nextAt = Math.max(nextAt, clock.now() + Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
        sink.stale(error, clock.now(), nextAt);
        continue;
      }
      const at = clock.now();
      nextAt = nextRefreshAt(startedAt, at, settings.intervalMs);
      // maturity_at is on the server's clock: counted from its time, as `hedge maturities` counts it.
      const time = client.transport?.serverNow?.();
      const offsetMs = time ? time.bestMs - time.localMs : 0;
      sink.fresh(snapshot, at, offsetMs);
      const holding = alertConditions(snapshot.facts, settings.rules, at + offsetMs).map((alert) => ({
        key: alert.key,
        alert,
        at,
      }));
      const edges = alertEdges(active, holding);
      active = edges.active;
      const fired = edges.started.map(({ alert }) => alert);
      if (alerting)
        sink.alerts(
          fired,
          holding.map(({ key, alert }) => ({ alert, at: active.get(key)!.at })),
          at,
        );
      if (fired.length && settings.exitOnAlert) return { ended: 'alert', alert: fired[0], at, offsetMs };
    }
  } finally {
    sink.close();
  }
}
