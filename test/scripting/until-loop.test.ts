// `--until EXPR` (runner/run-until.ts, runner/run-command.ts) in-process, on a fake clock and a fake client
// running the real command code: the cadence, Retry-After, the time bound (exit 124 with the last
// data under --json), the errors that end it, what is printed. scripting-until-fields.test.ts runs it for real.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { HedgeClient } from '../../src/platform/api/client.js';
import type { Hedge } from '../../src/platform/api/schemas.js';
import type { CommandSpec, RawInput } from '../../src/cli/runner/command-spec.js';
import { COMMANDS, HISTORY } from '../../src/cli/manifest.js';
import { runCommand } from '../../src/cli/runner/run-command.js';
import { ApiError, InterruptedError, NetworkError, UntilNotMetError, UsageError } from '../../src/core/errors.js';
import { describeError } from '../../src/platform/terminal/exit-codes.js';
import { StopSignal } from '../../src/core/errors.js';
import { CommandContext } from '../../src/platform/runtime/context.js';
import type { GlobalOptions } from '../../src/platform/runtime/globals.js';
import { makeChalk } from '../../src/platform/terminal/color.js';
import { Output, type DataFormat } from '../../src/platform/terminal/output.js';
import { isTruthy } from '../../src/platform/fields/query.js';

const START = Date.parse('2026-03-02T09:00:00.000Z');

interface FakeClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  sleeps: number[];
  /** Moves time without a sleep (a request that takes this long). */
  pass(ms: number): void;
}

function fakeClock(onSleep?: () => void): FakeClock {
  let time = START;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => time,
    pass: (ms) => (time += ms),
    async sleep(ms, signal) {
      if (signal?.aborted) throw signal.reason;
      sleeps.push(ms);
      time += ms;
      await Promise.resolve();
      onSleep?.();
      if (signal?.aborted) throw signal.reason;
    },
  };
}

function harness(options: {
  clock: FakeClock;
  client: Partial<HedgeClient>;
  globals?: Partial<GlobalOptions>;
  format?: DataFormat;
  controller?: AbortController;
}) {
  const io = {
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    stdin: new PassThrough(),
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
  };
  let out = '';
  let err = '';
  io.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk));
  io.stderr.setEncoding('utf8').on('data', (chunk) => (err += chunk));
  const controller = options.controller ?? new AbortController();
  const client = options.client as HedgeClient;
  class TestContext extends CommandContext {
    override client(): Promise<HedgeClient> {
      return Promise.resolve(client);
    }
  }
  const format = options.format ?? 'tsv';
  const json = format === 'json' || format === 'ndjson';
  const globals: GlobalOptions = {
    json,
    format,
    header: true,
    demo: false,
    yes: false,
    input: false,
    color: false,
    verbose: false,
    ...options.globals,
  };
  const ctx = new TestContext({
    io,
    env: { TZ: 'UTC' },
    globals,
    clock: options.clock,
    signal: controller.signal,
    output: new Output({
      format,
      chalk: makeChalk(false),
      streams: io,
      now: options.clock.now,
      fields: globals.fields,
    }),
  });
  return { ctx, controller, stdout: () => out, stderr: () => err };
}

const hedge = (status: string): Hedge =>
  ({ id: 'hdg_one', market: 'USDTNGN', side: 'buy', notional_usd: 10_000, tenor_days: 3, status }) as Hedge;

/** `hedge hedges hdg_one --until EXPR` through the one runner, with the real command code. */
const HEDGES_COMMAND = COMMANDS.find((spec) => spec.name === 'hedges') as CommandSpec & {
  load: NonNullable<CommandSpec['load']>;
};

function hedgesUntil(ctx: CommandContext, until: string, options: Record<string, unknown> = {}): Promise<number> {
  return runCommand(ctx, HEDGES_COMMAND, { args: { id: 'hdg_one' }, options: { until, ...options } });
}

/** A hedge whose status follows `statuses`, one per read (the last repeats); the times of the reads. */
function hedgeReads(clock: FakeClock, statuses: string[], answerMs = 0) {
  const at: number[] = [];
  const client = {
    getHedge: async () => {
      at.push(clock.now() - START);
      clock.pass(answerMs);
      return hedge(statuses[Math.min(at.length - 1, statuses.length - 1)]);
    },
  };
  return { client, at };
}

describe('--until: cadence and result', () => {
  it('true at once: one read, the data printed once, exit 0, no pause', async () => {
    const clock = fakeClock();
    const reads = hedgeReads(clock, ['filled']);
    const h = harness({ clock, client: reads.client });
    expect(await hedgesUntil(h.ctx, "status=='filled'")).toBe(0);
    expect(reads.at).toEqual([0]);
    expect(clock.sleeps).toEqual([]);
    expect(h.stdout().trim().split('\n')).toHaveLength(2); // header and one row
    expect(h.stdout()).toMatch(/^id\tclient_reference\tmarket/);
  });

  it('reads at once, then every 1.5 s; prints only the read that met the condition', async () => {
    const clock = fakeClock();
    const reads = hedgeReads(clock, ['submitted', 'submitted', 'filled']);
    const h = harness({ clock, client: reads.client, format: 'json' });
    expect(await hedgesUntil(h.ctx, "status=='filled'")).toBe(0);
    expect(reads.at).toEqual([0, 1500, 3000]);
    expect(JSON.parse(h.stdout())).toMatchObject({ id: 'hdg_one', status: 'filled' });
  });

  it('never sooner than a second after the previous answer (answers taking 0.8 s)', async () => {
    const clock = fakeClock();
    const reads = hedgeReads(clock, ['submitted', 'submitted', 'filled'], 800);
    const h = harness({ clock, client: reads.client });
    await hedgesUntil(h.ctx, "status=='filled'");
    // 0 → answered 0.8 → next at max(1.5, 1.8) = 1.8 → answered 2.6 → next at 3.6.
    expect(reads.at).toEqual([0, 1800, 3600]);
    expect(clock.sleeps.every((ms) => ms >= 1000)).toBe(true);
  });

  it('never true: exit 124 at --timeout, the last data on stdout under --json, reads counted', async () => {
    const clock = fakeClock();
    const reads = hedgeReads(clock, ['submitted']);
    const h = harness({ clock, client: reads.client, format: 'json', globals: { timeout: 5 } });
    const error = await hedgesUntil(h.ctx, "status=='filled'").catch((caught) => caught);
    expect(error).toBeInstanceOf(UntilNotMetError);
    const described = describeError(error);
    expect([described.exitCode, described.kind, described.code]).toEqual([124, 'until', 'until_not_met']);
    expect(described.details).toMatchObject({ until: "status=='filled'", polls: 4 });
    expect(reads.at).toEqual([0, 1500, 3000, 4500]);
    // The bound is waited out: 5 s after the start, not a moment before.
    expect(clock.now() - START).toBe(5000);
    expect(JSON.parse(h.stdout())).toMatchObject({ id: 'hdg_one', status: 'submitted' });
  });

  it('never true outside --json: nothing on stdout (no half answer for a script to mistake)', async () => {
    const clock = fakeClock();
    const h = harness({ clock, client: hedgeReads(clock, ['submitted']).client, globals: { timeout: 2 } });
    await expect(hedgesUntil(h.ctx, "status=='filled'")).rejects.toBeInstanceOf(UntilNotMetError);
    expect(h.stdout()).toBe('');
  });

  it('without --timeout the bound is the default wait bound (120 s); --timeout 0 has none', async () => {
    const clock = fakeClock();
    const reads = hedgeReads(clock, ['submitted']);
    const h = harness({ clock, client: reads.client });
    await expect(hedgesUntil(h.ctx, "status=='filled'")).rejects.toBeInstanceOf(UntilNotMetError);
    expect(clock.now() - START).toBe(120_000);
    expect(reads.at).toHaveLength(80);

    const unbounded = fakeClock();
    const later = hedgeReads(unbounded, [...Array<string>(200).fill('submitted'), 'filled']);
    const free = harness({ clock: unbounded, client: later.client, globals: { timeout: 0 } });
    expect(await hedgesUntil(free.ctx, "status=='filled'")).toBe(0);
    expect(later.at).toHaveLength(201);
  });

  it('--fields and --query shape what is printed, not what the condition sees', async () => {
    const clock = fakeClock();
    const h = harness({
      clock,
      client: hedgeReads(clock, ['filled']).client,
      format: 'json',
      globals: { fields: ['id'] },
    });
    expect(await hedgesUntil(h.ctx, "status=='filled' && notional_usd > `5000`")).toBe(0);
    expect(JSON.parse(h.stdout())).toEqual({ id: 'hdg_one' });
  });

  it("truth is JMESPath's: 0 is true, an empty list is false", () => {
    expect([0, 'x', [1], { a: 1 }, true].map(isTruthy)).toEqual([true, true, true, true, true]);
    expect([null, false, '', [], {}].map(isTruthy)).toEqual([false, false, false, false, false]);
  });
});

describe('--until: failures', () => {
  it('a read that may pass is said on stderr and tried again no sooner than its Retry-After', async () => {
    const clock = fakeClock();
    const at: number[] = [];
    const client = {
      getHedge: async () => {
        at.push(clock.now() - START);
        if (at.length === 1) {
          const limited = new NetworkError('GET /hedges/hdg_one was rate limited (rate_limited): slow down', {
            endpoint: 'GET /hedges/hdg_one',
            attempts: 1,
            status: 429,
            code: 'rate_limited',
          });
          limited.retryAfterMs = 4_000;
          throw limited;
        }
        return hedge('filled');
      },
    };
    const h = harness({ clock, client });
    expect(await hedgesUntil(h.ctx, "status=='filled'")).toBe(0);
    expect(at).toEqual([0, 4000]);
    expect(h.stderr()).toContain('--until: this read failed (GET /hedges/hdg_one was rate limited');
    expect(h.stderr()).toContain('trying again in 4 s');
  });

  it('a refusal ends it at once with its own exit code (an unknown hedge: 3)', async () => {
    const clock = fakeClock();
    let calls = 0;
    const client = {
      getHedge: async () => {
        calls += 1;
        throw new ApiError({
          status: 404,
          code: 'hedge_not_found',
          message: 'no such hedge',
          endpoint: 'GET /hedges/hdg_one',
        });
      },
      // Not a short form of any listed hedge either.
      readHedges: async () => ({ items: [], more: false, pages: 1 }),
    };
    const h = harness({ clock, client });
    const error = await hedgesUntil(h.ctx, "status=='filled'").catch((caught) => caught);
    expect(describeError(error).exitCode).toBe(3);
    expect(calls).toBe(1);
  });

  it('a malformed condition is bad usage before anything is read (exit 2)', async () => {
    const clock = fakeClock();
    const reads = hedgeReads(clock, ['filled']);
    const h = harness({ clock, client: reads.client });
    const error = await hedgesUntil(h.ctx, 'status==').catch((caught) => caught);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(/^--until "status==": /);
    expect(reads.at).toEqual([]);
  });

  it.each([
    [{ watch: true }, '--watch'],
    [{ wait: true }, '--wait'],
  ])('refuses %o with --until (exit 2, nothing read)', async (options, flag) => {
    const clock = fakeClock();
    const reads = hedgeReads(clock, ['filled']);
    const h = harness({ clock, client: reads.client });
    const error = await hedgesUntil(h.ctx, "status=='filled'", options).catch((caught) => caught);
    expect((error as Error).message).toBe(
      `${flag} cannot be combined with --until (--until already reads again until the condition holds).`,
    );
    expect(reads.at).toEqual([]);
  });

  it('Ctrl-C while waiting ends it with 130', async () => {
    const controller = new AbortController();
    const clock = fakeClock(() => controller.abort(new StopSignal('SIGINT', 130)));
    const h = harness({ clock, client: hedgeReads(clock, ['submitted']).client, controller });
    const error = await hedgesUntil(h.ctx, "status=='filled'").catch((caught) => caught);
    expect(error).toBeInstanceOf(InterruptedError);
    expect(describeError(error).exitCode).toBe(130);
  });
});

describe('--until on history and report: a date is the close-date bound, anything else a condition', () => {
  function spy(spec: CommandSpec) {
    const seen: RawInput[] = [];
    const load = async () => ({ run: async (_ctx: CommandContext, input: RawInput) => void seen.push(input) });
    return { spec: { ...spec, load } as unknown as CommandSpec & { load: NonNullable<CommandSpec['load']> }, seen };
  }

  it.each(['7d', '2026-11-01', '2026-11-01T12:00:00Z'])('%s goes to the command as its date', async (value) => {
    const { spec, seen } = spy(HISTORY);
    const clock = fakeClock();
    await runCommand(harness({ clock, client: {} }).ctx, spec, { args: {}, options: { until: value } });
    expect(seen).toEqual([{ args: {}, options: { until: value } }]);
    expect(clock.sleeps).toEqual([]);
  });

  it('a condition polls; the command never sees it', async () => {
    const { spec, seen } = spy(HISTORY);
    const clock = fakeClock();
    const h = harness({ clock, client: {}, globals: { timeout: 2 } });
    await expect(
      runCommand(h.ctx, spec, { args: {}, options: { until: '[0].hedge_id', limit: '5' } }),
    ).rejects.toBeInstanceOf(UntilNotMetError);
    expect(seen[0]).toEqual({ args: {}, options: { limit: '5' } });
  });

  it("a malformed date (it starts with a digit) gets the command's own date refusal", async () => {
    const { spec, seen } = spy(HISTORY);
    await runCommand(harness({ clock: fakeClock(), client: {} }).ctx, spec, {
      args: {},
      options: { until: '2026-13-45' },
    });
    expect(seen).toEqual([{ args: {}, options: { until: '2026-13-45' } }]);
  });

  it('neither a date nor a condition: one line naming both forms', async () => {
    const { spec, seen } = spy(HISTORY);
    const error = await runCommand(harness({ clock: fakeClock(), client: {} }).ctx, spec, {
      args: {},
      options: { until: 'yesterday[' },
    }).catch((caught) => caught);
    expect((error as Error).message).toMatch(
      /^--until: "yesterday\[" is neither a date \(2026-11-01, an ISO time, or 7d \/ 2w \/ 1m ago\) nor a JMESPath condition \(/,
    );
    expect(seen).toEqual([]);
  });
});
