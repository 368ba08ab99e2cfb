import { createClient } from '../../src/platform/api/client.js';
import type { HedgeClient } from '../../src/platform/api/client.js';
import { HttpConnections, type Clock, type RetryPolicy } from '../../src/platform/api/transport.js';
import { registerSecret } from '../../src/core/security/secrets.js';
import { sleep } from '../../src/core/process/timers.js';
import { type RunningSandbox } from '../../src/sandbox/http/server.js';
import { PassThrough } from 'node:stream';
import { CommandContext, type ContextInit, type GlobalOptions } from '../../src/platform/runtime/context.js';
import { makeChalk } from '../../src/platform/terminal/color.js';
import { Output, type OutputInit } from '../../src/platform/terminal/output.js';
import type { Prompter } from '../../src/platform/terminal/prompter.js';

// The clock hedge itself runs on: a sleep rejects with its signal's reason.
export const realClock: Clock = { now: Date.now, sleep };

const opened = new Set<HttpConnections>();

/** Closes the connections of every client clientFor made so far (a test file's afterAll, or between steps). */
export async function closeClients() {
  const all = [...opened];
  opened.clear();
  await Promise.all(all.map((connections) => connections.close()));
}

/**
 * A client pointed at a running sandbox, with a clock that records every backoff sleep. Its
 * connections are its own (given in `connections` to share them); closeClients() closes them.
 */
export function clientFor(
  sandbox: RunningSandbox,
  options: { requestTimeoutSeconds?: number; retry?: Partial<RetryPolicy>; connections?: HttpConnections } = {},
) {
  const log: string[] = [];
  const sleeps: number[] = [];
  const { apiKey } = sandbox;
  registerSecret(apiKey);
  const connections = options.connections ?? new HttpConnections();
  opened.add(connections);
  const client = createClient({
    connections,
    credentials: {
      apiKey,
      baseUrl: sandbox.baseUrl,
      environment: 'test',
      sources: { apiKey: 'environment', baseUrl: 'environment' },
    },
    env: {},
    clock: {
      now: realClock.now,
      sleep: (ms, signal) => {
        sleeps.push(ms);
        return realClock.sleep(ms, signal);
      },
    },
    requestTimeoutSeconds: options.requestTimeoutSeconds,
    retry: { baseDelayMs: 50, maxDelayMs: 400, ...options.retry },
    log: (line) => log.push(line),
  });
  return { client, log, sleeps };
}

// A CommandContext on in-memory pipes, for tests that run command code without a process: no
// terminal unless `tty`, the usual globals, a fake client when given (never one built from the
// environment), a clock that only moves when told, and what was printed on each stream.
export type FakeClock = ReturnType<typeof fakeClock>;

/** Time moves only by sleep() and advance(); a sleep yields once, then calls `onSleep`, and honours the signal. */
export function fakeClock(start = 1_000_000, onSleep?: () => void) {
  let time = start;
  const sleeps: number[] = [];
  return {
    /** Every sleep asked for, in order. */
    sleeps,
    now: () => time,
    /** Moves time without a sleep (a request that takes this long). */
    advance: (ms: number) => void (time += ms),
    async sleep(ms: number, signal?: AbortSignal) {
      signal?.throwIfAborted();
      sleeps.push(ms);
      time += ms;
      await Promise.resolve();
      onSleep?.();
      signal?.throwIfAborted();
    },
  };
}

/** A person who is only ever asked yes or no: `confirm` answers; any other kind of question fails the test. */
export function confirmOnly(confirm: Prompter['confirm']): Prompter {
  const unexpected = (kind: string) => () => Promise.reject(new Error(`unexpected ${kind}`));
  return { select: unexpected('select'), input: unexpected('input'), password: unexpected('password'), confirm };
}

export interface TestContextOptions extends Partial<Omit<ContextInit, 'io' | 'globals' | 'output' | 'signal'>> {
  /** Every stream a terminal (and the output a table); default pipes. */
  tty?: boolean;
  stdin?: PassThrough;
  /** On top of json, color, verbose and demo false, header and input true. */
  globals?: Partial<GlobalOptions>;
  /** On top of plain (a table on a terminal) at the clock's time. */
  output?: Partial<Omit<OutputInit, 'streams' | 'chalk'>>;
  /** What ctx.client() gives (the command code calls only what the test fakes). */
  fakeClient?: Partial<HedgeClient>;
  controller?: AbortController;
}

export function testContext(options: TestContextOptions = {}) {
  const { tty = false, stdin = new PassThrough(), fakeClient, controller = new AbortController(), ...init } = options;
  const io = {
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    stdin,
    stdoutIsTTY: tty,
    stderrIsTTY: tty,
    stdinIsTTY: tty,
  };
  const printed = { stdout: '', stderr: '' };
  for (const name of ['stdout', 'stderr'] as const)
    io[name].setEncoding('utf8').on('data', (chunk) => (printed[name] += chunk));
  const clock = init.clock ?? { now: () => 0, sleep: async () => {} };
  const ctx = new CommandContext({
    env: {},
    ...init,
    io,
    clock,
    globals: {
      json: false,
      header: true,
      demo: false,
      yes: false,
      input: true,
      color: false,
      verbose: false,
      ...options.globals,
    },
    signal: controller.signal,
    output: new Output({
      format: tty ? 'table' : 'tsv',
      chalk: makeChalk(false),
      streams: io,
      now: clock.now,
      ...options.output,
    }),
  });
  if (fakeClient) ctx.client = () => Promise.resolve(fakeClient as HedgeClient);
  return { ctx, controller, io, stdout: () => printed.stdout, stderr: () => printed.stderr };
}
