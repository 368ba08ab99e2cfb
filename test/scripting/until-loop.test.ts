// `--until EXPR` (runner/run-until.ts, runner/run-command.ts) in-process, on a fake clock and a fake client
// running the real command code: the cadence, Retry-After, the time bound (exit 124 with the last
// data under --json), the errors that end it, what is printed. scripting-until-fields.test.ts runs it for real.
import type { HedgeClient } from '../../src/platform/api/client.js';
import type { Hedge } from '../../src/platform/api/schemas.js';
import type { RawInput } from '../../src/cli/runner/command-spec.js';
import { COMMANDS, HISTORY } from '../../src/cli/manifest.js';
import { runCommand } from '../../src/cli/runner/run-command.js';
import { ApiError, InterruptedError, NetworkError, StopSignal, UntilNotMetError } from '../../src/core/errors.js';
import { describeError } from '../../src/platform/terminal/exit-codes.js';
import type { CommandContext, GlobalOptions } from '../../src/platform/runtime/context.js';
import type { OutputFormat } from '../../src/core/vocabulary.js';
import { isTruthy } from '../../src/platform/fields/query.js';
import { fakeClock as clockFrom, testContext, type FakeClock } from '../support/client.js';

const START = Date.parse('2026-03-02T09:00:00.000Z');
const fakeClock = (onSleep?: () => void) => clockFrom(START, onSleep);

function harness(options: {
  clock: FakeClock;
  client: Partial<HedgeClient>;
  globals?: Partial<GlobalOptions>;
  format?: OutputFormat;
  controller?: AbortController;
}) {
  const { clock, client, controller, format = 'tsv' } = options;
  const globals = { json: format === 'json', format, input: false, ...options.globals };
  const output = { format, fields: globals.fields };
  return testContext({ clock, controller, env: { TZ: 'UTC' }, fakeClient: client, globals, output });
}

/** `hedge hedges hdg_one --until EXPR` through the one runner, with the real command code. */
const HEDGES_COMMAND = COMMANDS.find((spec) => spec.name === 'hedges') as Parameters<typeof runCommand>[1];

/**
 * `hedge hedges hdg_one --until EXPR` through the one runner on a hedge whose status follows `statuses`, one per read
 * (the last repeats; an error is thrown): its exit code (or what it threw), the times of the reads, the time taken and the output.
 */
async function untilOn(
  statuses: Array<string | Error>,
  {
    until = "status=='filled'",
    answerMs = 0,
    onSleep,
    ...options
  }: Partial<Parameters<typeof harness>[0]> & { until?: string; answerMs?: number; onSleep?: () => void } = {},
  flags: Record<string, unknown> = {},
) {
  const clock = fakeClock(onSleep);
  const at: number[] = [];
  const client = {
    // The one hedge's card counts its maturity on the server's clock: here, the test's.
    transport: { serverNow: () => ({ bestMs: clock.now() }) } as unknown as HedgeClient['transport'],
    getHedge: async () => {
      at.push(clock.now() - START);
      clock.advance(answerMs);
      const status = statuses[Math.min(at.length - 1, statuses.length - 1)];
      if (status instanceof Error) throw status;
      return { id: 'hdg_one', market: 'USDTNGN', side: 'buy', notional_usd: 10_000, tenor_days: 3, status } as Hedge;
    },
  };
  const h = harness({ ...options, clock, client });
  const outcome = await runCommand(h.ctx, HEDGES_COMMAND, {
    args: { id: 'hdg_one' },
    options: { until, ...flags },
  }).catch((caught) => caught);
  return { outcome, at, sleeps: clock.sleeps, elapsed: clock.now() - START, stdout: h.stdout(), stderr: h.stderr() };
}

/**
 * `hedge history` with these options through the one runner, its command code replaced by `run` (by default a spy):
 * what the command was given, the outcome, the sleeps and the output.
 */
async function historyGiven(
  options: Record<string, unknown>,
  format?: OutputFormat,
  run?: (ctx: CommandContext) => void,
) {
  const seen: RawInput[] = [];
  const spy = (_ctx: CommandContext, input: RawInput) => seen.push(input);
  const spec = { ...HISTORY, load: async () => ({ run: run ?? spy }) } as unknown as typeof HEDGES_COMMAND;
  const clock = fakeClock();
  const h = harness({ clock, client: {}, format });
  const outcome = await runCommand(h.ctx, spec, { args: {}, options }).catch((caught) => caught);
  return { ...h, seen, outcome, sleeps: clock.sleeps };
}

// True at once (one read, printed once, exit 0): scripting-until-fields.test.ts ("true at once").
it('--until: cadence and result: reads at once, then every 1.5 s; prints only the read that met the condition; never sooner than a second after the previous answer (answers taking 0.8 s)', async () => {
  const run = await untilOn(['submitted', 'submitted', 'filled'], { format: 'json' });
  expect([run.outcome, run.at]).toEqual([0, [0, 1500, 3000]]);
  expect(JSON.parse(run.stdout)).toMatchObject({ id: 'hdg_one', status: 'filled' });
  const slow = await untilOn(['submitted', 'submitted', 'filled'], { answerMs: 800 });
  // 0 → answered 0.8 → next at max(1.5, 1.8) = 1.8 → answered 2.6 → next at 3.6.
  expect([slow.at, slow.sleeps.every((ms) => ms >= 1000)]).toEqual([[0, 1800, 3600], true]);
});

it('--until: cadence and result: never true: exit 124 at --timeout, the last data on stdout under --json, reads counted; without --timeout the bound is the default wait bound (120 s); --timeout 0 has none', async () => {
  const run = await untilOn(['submitted'], { format: 'json', globals: { timeout: 5 } });
  expect(run.outcome).toBeInstanceOf(UntilNotMetError);
  expect(describeError(run.outcome)).toMatchObject({
    exitCode: 124,
    kind: 'until',
    code: 'until_not_met',
    details: { until: "status=='filled'", polls: 4 },
  });
  // The bound is waited out: 5 s after the start, not a moment before.
  expect([run.at, run.elapsed]).toEqual([[0, 1500, 3000, 4500], 5000]);
  expect(JSON.parse(run.stdout)).toMatchObject({ id: 'hdg_one', status: 'submitted' });
  const bounded = await untilOn(['submitted']);
  expect([bounded.outcome.constructor, bounded.elapsed, bounded.at.length]).toEqual([UntilNotMetError, 120_000, 80]);
  const free = await untilOn([...Array<string>(200).fill('submitted'), 'filled'], { globals: { timeout: 0 } });
  expect([free.outcome, free.at.length]).toEqual([0, 201]);
});

it("--until: cadence and result: --fields and --query shape what is printed, not what the condition sees; the read that met the condition says its warnings and successes too, as the command alone would; truth is JMESPath's: 0 is true, an empty list is false", async () => {
  const until = "status=='filled' && notional_usd > `5000`";
  const run = await untilOn(['filled'], { until, format: 'json', globals: { fields: ['id'] } });
  expect([run.outcome, JSON.parse(run.stdout)]).toEqual([0, { id: 'hdg_one' }]);
  const h = await historyGiven({ until: '[0].hedge_id' }, 'json', (ctx) => {
    ctx.output.warn('only 500 closed hedges were read');
    ctx.output.success('read');
    ctx.output.json([{ hedge_id: 'hdg_one' }]);
  });
  expect([h.outcome, JSON.parse(h.stdout()), h.stderr()]).toEqual([
    0,
    [{ hedge_id: 'hdg_one' }],
    'only 500 closed hedges were read\nread\n',
  ]);
  expect([[0, 'x', [1], { a: 1 }, true].map(isTruthy), [null, false, '', [], {}].map(isTruthy)]).toEqual([
    [true, true, true, true, true],
    [false, false, false, false, false],
  ]);
});

it('--until: a failed read the server described with colour codes and a newline is said on one line, escaped', async () => {
  const hostile = new ApiError({
    status: 503,
    code: 'unavailable',
    message: 'busy\u001b[8m hidden\nhedge: FORGED',
    endpoint: 'GET /hedges/hdg_one',
  });
  const run = await untilOn([hostile, 'filled']);
  expect(run.outcome).toBe(0);
  const said = run.stderr.split('\n').filter((line) => line.startsWith('--until: this read failed'));
  expect(said).toHaveLength(1);
  expect(said[0]).toContain('busy');
  expect(run.stderr).not.toContain('\u001b');
  expect(run.stderr).not.toMatch(/^hedge: FORGED/m);
});

// A refusal (an unknown hedge: 3), a malformed condition (2, nothing read) and a condition never true in a pipe
// (124, nothing on stdout) end it as scripting-until-fields.test.ts shows against the simulator.
it('--until: failures: a read that may pass is said on stderr and tried again no sooner than its Retry-After; a read cut by --timeout ends it (exit 124) without promising another read; refuses --watch or --wait with --until (exit 2, nothing read); Ctrl-C while waiting ends it with 130', async () => {
  const limited = new NetworkError('GET /hedges/hdg_one was rate limited (rate_limited): slow down', {
    endpoint: 'GET /hedges/hdg_one',
    attempts: 1,
    status: 429,
    code: 'rate_limited',
  });
  limited.retryAfterMs = 4_000;
  const run = await untilOn([limited, 'filled']);
  expect([run.outcome, run.at]).toEqual([0, [0, 4000]]);
  expect(run.stderr).toContain('--until: this read failed (GET /hedges/hdg_one was rate limited');
  expect(run.stderr).toContain('trying again in 4 s');
  const cut = new NetworkError('No answer from example on GET /hedges/hdg_one before --timeout ran out (3 s).', {
    endpoint: 'GET /hedges/hdg_one',
    attempts: 1,
  });
  const timedOut = await untilOn(['submitted', cut], { answerMs: 1000, globals: { timeout: 3 } });
  expect([timedOut.outcome.constructor, timedOut.at, timedOut.elapsed, timedOut.stderr]).toEqual([
    UntilNotMetError,
    [0, 2000],
    3000,
    '',
  ]);
  for (const flag of ['watch', 'wait']) {
    const run = await untilOn(['filled'], {}, { [flag]: true });
    expect(run.outcome.message).toBe(
      `--${flag} cannot be combined with --until (--until already reads again until the condition holds).`,
    );
    expect(run.at).toEqual([]);
  }
  const controller = new AbortController();
  const onSleep = () => controller.abort(new StopSignal('SIGINT', 130));
  const { outcome } = await untilOn(['submitted'], { controller, onSleep });
  expect(outcome).toBeInstanceOf(InterruptedError);
  expect(describeError(outcome).exitCode).toBe(130);
});

// A malformed date (it starts with a digit) goes as a date too: the command's own date refusal answers it.
it('--until on history and report: a date is the close-date bound, anything else a condition: 7d, 2026-11-01, 2026-11-01T12:00:00Z and 2026-13-45 go to the command as its date; a condition polls; the command never sees it; neither a date nor a condition: one line naming both forms', async () => {
  for (const value of ['7d', '2026-11-01', '2026-11-01T12:00:00Z', '2026-13-45']) {
    const { seen, sleeps } = await historyGiven({ until: value });
    expect([seen, sleeps], value).toEqual([[{ args: {}, options: { until: value } }], []]);
  }
  // A condition polls, and the command never sees it: scripting-until-fields.test.ts (history --until length(@) >= `0`).
  const neither = await historyGiven({ until: 'yesterday[' });
  expect(neither.outcome.message).toMatch(
    /^--until: "yesterday\[" is neither a date \(2026-11-01, an ISO time, or 7d \/ 2w \/ 1mo ago\) nor a JMESPath condition \(/,
  );
  expect(neither.seen).toEqual([]);
});
