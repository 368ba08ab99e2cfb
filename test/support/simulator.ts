// The one simulator starter of the test suite: a sandbox server on loopback, a private config dir,
// the real binary pointed at it, and the server's own view of what happened (engine state and
// request log) — what tests assert on, never the CLI's word alone. Presets name the few set-ups
// the suite needs; any SandboxOptions given on top win. `useSimulators()` closes every simulator
// a test started after that test, so no server outlives it.
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { afterEach } from 'vitest';
import type { HedgeState } from '../../src/sandbox/engine-state.js';
import { startSandbox, type RequestLogEntry, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { runHedge, tempDir, type RunOptions, type RunResult } from './hedge-cli.js';

export const MARKET = 'USDTNGN';
export const FILL_DELAY_MS = 100;

/** Monday 2 March 2026, 09:00 UTC: a `frozen` simulator starts at this instant and only moves by advance(). */
export const FROZEN_START_MS = Date.parse('2026-03-02T09:00:00.000Z');
export const FROZEN_KEY = 'hpk_test_ReadCommandsE2eKey00000001';
/** Three test keys a `keys` simulator accepts (profiles, login). */
export const PROFILE_KEYS = [
  'hpk_test_ProfilesKeyAlpha000000000001',
  'hpk_test_ProfilesKeyBravo000000000002',
  'hpk_test_ProfilesKeyCharlie00000000003',
] as const;

/**
 * trading: fills 100 ms after an open. reliability: the same on the fixed seed the reliability
 * cases were written against. frozen: a known seed on a clock stopped at FROZEN_START_MS (prices,
 * ids and hashes the same on every run). keys: accepts PROFILE_KEYS. quick: fills after 50 ms.
 */
export const SIMULATOR_PRESETS = {
  trading: { fillDelayMs: FILL_DELAY_MS },
  reliability: { fillDelayMs: FILL_DELAY_MS, seed: 'reliability' },
  frozen: { seed: 7, fillDelayMs: FILL_DELAY_MS, apiKeys: [FROZEN_KEY], realNow: () => FROZEN_START_MS },
  keys: { seed: 11, fillDelayMs: FILL_DELAY_MS, apiKeys: [...PROFILE_KEYS] },
  quick: { fillDelayMs: 50 },
} as const satisfies Record<string, SandboxOptions>;

export type SimulatorPreset = keyof typeof SIMULATOR_PRESETS;

export interface SimulatorOptions extends SandboxOptions {
  /** Default `trading`. */
  preset?: SimulatorPreset;
}

export interface ApiCall {
  body?: unknown;
  /** Sent as is, instead of JSON-encoding `body`. */
  rawBody?: string;
  /** Another key, or null for none; default the simulator's first key. */
  key?: string | null;
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface ApiResult {
  status: number;
  headers: Headers;
  /** The parsed envelope (test code reads arbitrary fields). */
  body: any;
}

export interface Simulator {
  sandbox: RunningSandbox;
  baseUrl: string;
  apiKey: string;
  configDir: string;
  /** HEDGE_BASE_URL and HEDGE_API_KEY of this simulator. */
  env: Record<string, string>;
  /** Runs the real binary against this simulator with its config dir (options.env on top). */
  hedge(args: string[], options?: RunOptions): Promise<RunResult>;
  /** Every hedge the server holds, over all accounts. */
  hedges(): HedgeState[];
  /** The server's hedges that are submitted or filled on that side. */
  active(side: 'buy' | 'sell', market?: string): HedgeState[];
  historyCount(): number;
  requests(method?: string, path?: string | RegExp): RequestLogEntry[];
  /** The POST requests the server received. */
  writes(): RequestLogEntry[];
  /** The API as another client would use it (plain fetch), for setting up or checking state. */
  api(method: string, path: string, call?: ApiCall): Promise<ApiResult>;
  /** Opens a hedge directly in the engine (no HTTP, nothing in the request log) and lets it fill. */
  seedOpen(side: 'buy' | 'sell', notionalUsd: number, market?: string): HedgeState;
  /** Lets sandbox time run on by `ms` and applies what became due (fills, landings). */
  advance(ms: number): void;
  close(): Promise<void>;
}

const FROZEN_CLOCK_PRELOAD = pathToFileURL(new URL('./frozen-clock.mjs', import.meta.url).pathname).href;

/** Env that pins the CLI's own clock to the simulator's time (for frozen simulators). */
export function pinnedClockEnv(simulator: { sandbox: RunningSandbox }): Record<string, string> {
  return { NODE_OPTIONS: `--import=${FROZEN_CLOCK_PRELOAD}`, READ_E2E_NOW_MS: String(simulator.sandbox.clock.now()) };
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const { preset = 'trading', ...overrides } = options;
  const sandboxOptions: SandboxOptions = { ...SIMULATOR_PRESETS[preset], ...overrides };
  const sandbox = await startSandbox(sandboxOptions);
  const dir = tempDir('hedge-sim-');
  const env = { HEDGE_BASE_URL: sandbox.baseUrl, HEDGE_API_KEY: sandbox.apiKey };
  const hedges = () => Object.values(sandbox.engine.state.accounts).flatMap((account) => Object.values(account.hedges));
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
  return {
    sandbox,
    baseUrl: sandbox.baseUrl,
    apiKey: sandbox.apiKey,
    configDir: dir.path,
    env,
    hedge: (args, runOptions = {}) => runHedge(args, { ...runOptions, configDir: runOptions.configDir ?? dir.path, env: { ...env, ...runOptions.env } }),
    hedges,
    active: (side, market = MARKET) =>
      hedges().filter((hedge) => hedge.side === side && hedge.market === market && (hedge.status === 'submitted' || hedge.status === 'filled')),
    historyCount: () => Object.values(sandbox.engine.state.accounts).reduce((sum, account) => sum + account.history.length, 0),
    requests,
    writes: () => requests('POST'),
    api: async (method, path, call = {}) => {
      const headers: Record<string, string> = {};
      const key = call.key === undefined ? sandbox.apiKey : call.key;
      if (key !== null) headers.authorization = `Bearer ${key}`;
      if (call.idempotencyKey) headers['idempotency-key'] = call.idempotencyKey;
      let body: string | undefined;
      if (call.rawBody !== undefined) body = call.rawBody;
      else if (call.body !== undefined) body = JSON.stringify(call.body);
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${sandbox.baseUrl}${path}`, { method, headers, body, signal: call.signal });
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
    },
    seedOpen: (side, notionalUsd, market = MARKET) => {
      const response = sandbox.engine.handle(
        {
          method: 'POST',
          path: '/hedges',
          query: {},
          headers: { authorization: `Bearer ${sandbox.apiKey}`, 'idempotency-key': randomUUID() },
          body: { market, side, notional_usd: notionalUsd, tenor_days: 7 },
        },
        sandbox.clock.now(),
      );
      if (response.status !== 200) throw new Error(`seed open failed: ${JSON.stringify(response.body)}`);
      advance((sandboxOptions.fillDelayMs ?? FILL_DELAY_MS) + 1);
      const id = (response.body.data as { id: string }).id;
      const hedge = hedges().find((candidate) => candidate.id === id)!;
      if (hedge.status !== 'filled') throw new Error(`seeded hedge is ${hedge.status}`);
      return hedge;
    },
    advance,
    close: async () => {
      await sandbox.close();
      dir.remove();
    },
  };
}

/** Starts simulators that are closed after each test of the file that calls it. */
export function useSimulators(): (options?: SimulatorOptions) => Promise<Simulator> {
  const started: Simulator[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((simulator) => simulator.close()));
  });
  return async (options = {}) => {
    const simulator = await startSimulator(options);
    started.push(simulator);
    return simulator;
  };
}
