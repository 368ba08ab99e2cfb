// The one simulator starter of the test suite: a sandbox server on loopback, a private config dir,
// the real binary pointed at it, and the server's own view of what happened (engine state and
// request log) — what tests assert on, never the CLI's word alone. Presets name the few set-ups
// the suite needs; any SandboxOptions given on top win. `useSimulators()` closes every simulator
// a test started after that test, and `withSimulator()` closes its one when its body ends (for
// `it.concurrent`), so no server outlives its test. Tests of the server itself take `.sandbox`.
import { randomUUID } from 'node:crypto';
import { sleep } from '../../src/core/process/timers.js';
import {
  startSandbox,
  type RequestLogEntry,
  type RunningSandbox,
  type SandboxOptions,
} from '../../src/sandbox/http/server.js';
import { FROZEN_CLOCK_PRELOAD, runHedge, tempDir, type HedgeArgs, type RunOptions } from './hedge-cli.js';
import { okJson } from './cli-runs.js';
import { call as callEngine, openBody, requestHeaders } from './engine.js';
import { FROZEN_KEY, PROFILE_KEYS } from './keys.js';

export const MARKET = 'USDTNGN';
export const FILL_DELAY_MS = 100;
/** The paths of the trades (a quote is a POST too, but moves nothing). */
const TRADES = /^\/hedges(\/(add|reduce|close))?$/;

/** Monday 2 March 2026, 09:00 UTC: a `frozen` simulator starts at this instant and only moves by advance(). */
export const FROZEN_START_MS = Date.parse('2026-03-02T09:00:00.000Z');

/**
 * trading: fills 100 ms after an open. reliability: the same on the fixed seed the reliability
 * cases were written against. frozen: a known seed on a clock stopped at FROZEN_START_MS (prices,
 * ids and hashes the same on every run). keys: accepts PROFILE_KEYS. quick: fills after 50 ms.
 * plain: the simulator's own defaults (2 s fill delay, one random key), as `hedge sandbox serve` starts it.
 */
const SIMULATOR_PRESETS = {
  trading: { fillDelayMs: FILL_DELAY_MS },
  reliability: { fillDelayMs: FILL_DELAY_MS, seed: 'reliability' },
  frozen: { seed: 7, fillDelayMs: FILL_DELAY_MS, apiKeys: [FROZEN_KEY], realNow: () => FROZEN_START_MS },
  keys: { seed: 11, fillDelayMs: FILL_DELAY_MS, apiKeys: [...PROFILE_KEYS] },
  quick: { fillDelayMs: 50 },
  plain: {},
} as const satisfies Record<string, SandboxOptions>;

type SimulatorPreset = keyof typeof SIMULATOR_PRESETS;

export interface SimulatorOptions extends SandboxOptions {
  /** Default `trading`. */
  preset?: SimulatorPreset;
  /** hedge's in-process runs on a stepped clock (steppedClock): its waits and backoffs end at once. */
  stepped?: boolean;
  /**
   * With `stepped` or `skipping`: hedge's clock (and a skipping server's) moves by its pauses alone, never with this
   * machine's, so that a bound (--timeout) counts simulated time only, whatever the real time a loaded machine spends
   * before it; for runs no other party acts beside (its rows would be in hedge's future).
   */
  untimed?: boolean;
  /** hedge's in-process runs and the server's real time (its request log) on one skipping clock (skippingClock). */
  skipping?: boolean;
}

/** hedge's longest pause between two tries (a retry's backoff); a longer sleep bounds work it races (a keeper cycle's steps). */
const LONGEST_PAUSE_MS = 5_000;

/**
 * hedge's clock, stepped with the simulator's: each pause hedge takes (a wait's poll, a retry's backoff, a lock's look)
 * ends at once on it, after a twentieth of the pause in real time for what runs beside it, and moves the simulator's
 * clock with it. It is never behind this machine's clock: a row another party wrote now is never in hedge's future. A longer sleep passes in real time: stepped, it would end before the work it bounds.
 */
function steppedClock(advance: (ms: number) => void, untimed = false) {
  let stepped = Date.now();
  const now = () => (untimed ? stepped : (stepped = Math.max(stepped, Date.now())));
  return {
    now,
    sleep: async (ms: number, signal?: AbortSignal) => {
      const end = now() + Math.round(ms);
      const short = ms <= LONGEST_PAUSE_MS;
      await sleep(short ? Math.round(ms / 20) : ms, signal);
      if (end <= now()) return;
      if (short) advance(end - stepped);
      stepped = end;
    },
  };
}

/**
 * hedge's clock, given to the server as its real time too (`realNow`): each pause hedge takes ends at once yet shows in
 * full between two entries of the request log and in the rate limit's refill. For a rule checked on the log's times
 * (a backoff, Retry-After, a watch's cadence) in-process; a spawned run keeps its own clock.
 */
export function skippingClock(untimed = false) {
  const start = Date.now();
  let skipped = 0;
  return {
    now: () => (untimed ? start : Date.now()) + skipped,
    sleep: async (ms: number, signal?: AbortSignal) => {
      signal?.throwIfAborted();
      skipped += ms;
    },
  };
}

interface ApiCall {
  body?: unknown;
  /** Sent as is, instead of JSON-encoding `body`. */
  rawBody?: string;
  /** Another key, or null for none; default the simulator's first key. */
  key?: string | null;
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/** Status, headers and the parsed envelope (`body`: test code reads arbitrary fields). */
export type ApiResult = Awaited<ReturnType<typeof api>>;

/** A running simulator: its server, its config dir, the binary pointed at it, and the server's own view. */
export type Simulator = Awaited<ReturnType<typeof startSimulator>>;

/** Where a client sends requests: a simulator, its sandbox, or a proxy in front of one. */
export interface ApiTarget {
  baseUrl: string;
  apiKey: string;
}

/** The environment that points the binary at a server (a simulator, or a proxy in front of one) with its key. */
export function envFor(target: ApiTarget) {
  return { HEDGE_BASE_URL: target.baseUrl, HEDGE_API_KEY: target.apiKey };
}

/** The API as another client would use it (plain fetch): status, headers and the parsed envelope. */
export async function api(target: ApiTarget, method: string, path: string, call: ApiCall = {}) {
  const headers = requestHeaders(call.key === undefined ? target.apiKey : call.key, call.idempotencyKey);
  // JSON.stringify(undefined) is undefined: no body.
  const body = call.rawBody ?? JSON.stringify(call.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${target.baseUrl}${path}`, { method, headers, body, signal: call.signal });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** The `data` of a successful answer, for setting up state a test then reads; any error answer throws. */
export async function apiData(target: ApiTarget, method: 'GET' | 'POST', path: string, body?: unknown) {
  const answer = await api(target, method, path, { body });
  if (answer.status < 200 || answer.status >= 300)
    throw new Error(`${method} ${path} → ${answer.status} ${JSON.stringify(answer.body?.error)}`);
  return answer.body.data;
}

/** The frozen book the read screens are drawn from: three closed and one failed hedge, then a 25,000 buy under
 * DEAL-42, filled and carried an hour: its id. */
export async function seedReadBook(simulator: Pick<Simulator, 'sandbox'>) {
  const { sandbox } = simulator;
  sandbox.seedHedges({ apiKey: FROZEN_KEY, count: 3, status: 'closed' });
  sandbox.seedHedges({ apiKey: FROZEN_KEY, count: 1, status: 'failed' });
  const opened = await apiData(sandbox, 'POST', '/hedges', openBody('buy', 25_000, 7, { client_reference: 'DEAL-42' }));
  sandbox.clock.advance(3_600_000);
  return opened.id as string;
}

/** Gaps in ms between consecutive request-log entries (when the server received each). */
export function gaps(entries: RequestLogEntry[]) {
  return entries.slice(1).map((entry, index) => entry.realTimeMs - entries[index].realTimeMs);
}

/** Opens a hedge through the CLI itself (`open … --json`, waiting for the fill) and returns its id. */
export async function openFilledThroughCli(simulator: Simulator, side: 'buy' | 'sell', notional: string) {
  const hedge = okJson(await simulator.hedge(['open', MARKET, side, notional, '--tenor', '3', '--json']));
  if (hedge.status !== 'filled') throw new Error(`open ended ${hedge.status}`);
  return hedge.id as string;
}

/** A colleague's write to the account (another client, over HTTP, in the request log), landed. */
async function colleague(simulator: Simulator, path: string, what: string, body: Record<string, unknown>) {
  const answer = await simulator.api('POST', path, { body: { market: MARKET, ...body }, idempotencyKey: randomUUID() });
  if (answer.status !== 200) throw new Error(`${what} failed: ${JSON.stringify(answer.body?.error)}`);
  simulator.advance(FILL_DELAY_MS + 1);
}

export const colleagueAdds = (simulator: Simulator, side: 'buy' | 'sell', notionalUsd: number) =>
  colleague(simulator, '/hedges/add', 'add', { side, notional_usd: notionalUsd });

export const colleagueCloses = (simulator: Simulator, side: 'buy' | 'sell') =>
  colleague(simulator, '/hedges/close', 'close', { side });

/** An open of a buy or sell, filled; without a client reference the body has none. */
export const colleagueOpens = (
  simulator: Simulator,
  side: 'buy' | 'sell',
  notionalUsd: number,
  tenorDays: number,
  clientReference?: string,
) =>
  colleague(
    simulator,
    '/hedges',
    'open',
    openBody(side, notionalUsd, tenorDays, { client_reference: clientReference }),
  );

/** Env that pins the CLI's own clock to the simulator's time (for frozen simulators). */
export function pinnedClockEnv(simulator: { sandbox: RunningSandbox }) {
  return { NODE_OPTIONS: `--import=${FROZEN_CLOCK_PRELOAD}`, READ_E2E_NOW_MS: String(simulator.sandbox.clock.now()) };
}

export async function startSimulator(options: SimulatorOptions = {}) {
  const { preset = 'trading', stepped, untimed, skipping, ...overrides } = options;
  const skipped = skipping ? skippingClock(untimed) : undefined;
  const sandboxOptions = { realNow: skipped?.now, ...SIMULATOR_PRESETS[preset], ...overrides };
  const sandbox = await startSandbox(sandboxOptions);
  const dir = tempDir('hedge-sim-');
  const env = envFor(sandbox);
  const accounts = () => Object.values(sandbox.engine.state.accounts);
  const hedges = () => accounts().flatMap((account) => Object.values(account.hedges));
  const advance = (ms: number) => {
    sandbox.clock.advance(ms);
    sandbox.engine.advanceTo(sandbox.clock.now());
  };
  const requests = (method?: string, path?: string | RegExp) =>
    sandbox.requestLog.filter(
      (entry) =>
        (method === undefined || entry.method === method) &&
        (path === undefined || (typeof path === 'string' ? entry.path === path : path.test(entry.path))),
    );
  const clock = stepped ? steppedClock(advance, untimed) : skipped;
  return {
    sandbox,
    baseUrl: sandbox.baseUrl,
    apiKey: sandbox.apiKey,
    configDir: dir.path,
    /** HEDGE_BASE_URL and HEDGE_API_KEY of this simulator. */
    env,
    /** hedge's clock for the runs on this simulator (`stepped`), or none. */
    clock,
    /** Runs the real binary against this simulator with its config dir (options.env on top). */
    hedge: (args: HedgeArgs, runOptions: RunOptions = {}) =>
      runHedge(args, {
        clock,
        ...runOptions,
        configDir: runOptions.configDir ?? dir.path,
        env: { ...env, ...runOptions.env },
      }),
    /** Every hedge the server holds, over all accounts. */
    hedges,
    /** The server's hedges that are submitted or filled on that side. */
    active: (side: 'buy' | 'sell', market = MARKET) =>
      hedges().filter(
        (hedge) => hedge.side === side && hedge.market === market && ['submitted', 'filled'].includes(hedge.status),
      ),
    historyCount: () => accounts().reduce((sum, account) => sum + account.history.length, 0),
    requests,
    /** The POST requests the server received. */
    writes: () => requests('POST'),
    /** The trades among them (a quote is a POST too, but moves nothing). */
    trades: () => requests('POST', TRADES),
    /**
     * The writes the server carried out, each once (its request's entry): a retry under the same key is replayed,
     * never acted again, so "acted once" counts these, not the requests.
     */
    actions: (path?: string | RegExp) => requests('POST', path).filter((entry) => entry.acted),
    /**
     * The writes sent on `path` (the trades when none is given), one per Idempotency-Key (its first request): a retry
     * under the key is the same write again, which the client may send whenever an answer is slow.
     */
    sends: (path?: string | RegExp) =>
      requests('POST', path ?? TRADES).filter(
        (entry, index, all) =>
          entry.idempotencyKey === null ||
          all.findIndex((other) => other.idempotencyKey === entry.idempotencyKey) === index,
      ),
    /** The API as another client would use it (plain fetch), for setting up or checking state. */
    api: (method: string, path: string, call?: ApiCall) => api(sandbox, method, path, call),
    /** Opens a hedge directly in the engine (no HTTP, nothing in the request log) and lets it fill. */
    seedOpen: (side: 'buy' | 'sell', notionalUsd: number, market = MARKET) => {
      const opened = callEngine(sandbox.engine, sandbox.clock.now(), 'POST', '/hedges', {
        key: sandbox.apiKey,
        idempotencyKey: randomUUID(),
        body: openBody(side, notionalUsd, 7, { market }),
      });
      if (opened.status !== 200) throw new Error(`seed open failed: ${JSON.stringify(opened.body)}`);
      advance((sandboxOptions.fillDelayMs ?? FILL_DELAY_MS) + 1);
      const hedge = hedges().find((candidate) => candidate.id === opened.data.id)!;
      if (hedge.status !== 'filled') throw new Error(`seeded hedge is ${hedge.status}`);
      return hedge;
    },
    /** Lets sandbox time run on by `ms` and applies what became due (fills, landings). */
    advance,
    close: async () => {
      await sandbox.close();
      dir.remove();
    },
  };
}

/** Runs `body` with what `starting` gives and closes it after, whatever happens: for `it.concurrent`, where an afterEach of one test would close another's. */
export async function closedAfter<T extends { close(): Promise<unknown> }, R>(
  starting: Promise<T>,
  body: (started: T) => Promise<R>,
) {
  const started = await starting;
  try {
    return await body(started);
  } finally {
    await started.close();
  }
}

/** `start`, with what it started closed after each test of the file that calls this. */
export function closedAfterEach<A extends unknown[], T extends { close(): Promise<unknown> }>(
  start: (...args: A) => Promise<T>,
) {
  const open: T[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((started) => started.close()));
  });
  return async (...args: A) => {
    const started = await start(...args);
    open.push(started);
    return started;
  };
}

/** Runs `body` with a simulator of its own and closes it after (closedAfter). */
export const withSimulator = <T>(options: SimulatorOptions, body: (simulator: Simulator) => Promise<T>) =>
  closedAfter(startSimulator(options), body);

/** Starts simulators (`defaults` under each one's options) that are closed after each test of the file that calls it. */
export const useSimulators = (defaults?: SimulatorOptions) =>
  closedAfterEach((options?: SimulatorOptions) => startSimulator({ ...defaults, ...options }));
