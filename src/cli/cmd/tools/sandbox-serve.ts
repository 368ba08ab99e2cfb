import { isIP } from 'node:net';
import { isLoopbackHost } from '../../../core/security/base-url.js';
import {
  type CommandContext,
  type In,
  notAllowed,
  parseDecimal,
  parseWholeNumber,
  StopSignal,
  UsageError,
} from '../command-input.js';
import { SANDBOX_DIALECTS } from '../../../sandbox/dialect-names.js';

/** What this command uses of its context. */
export type Options = Pick<CommandContext, 'io' | 'signal'>;

/** A decimal flag's value (parseDecimal), or undefined when the flag is absent. */
const decimal = (name: string, raw: unknown, range: Omit<Parameters<typeof parseDecimal>[1], 'name'>) =>
  raw === undefined ? undefined : parseDecimal(raw, { name, ...range });

const share = (name: string, raw: unknown) => decimal(name, raw, { unit: 'a share', min: 0, max: 1, example: '0.2' });

const wholeNumber = (name: string, raw: unknown, min: number, max: number) =>
  raw === undefined ? undefined : parseWholeNumber(raw, name, min, max);

/** Seconds from `min` to a day, to the millisecond (or as `range` says), as ms. */
function seconds(
  name: string,
  raw: unknown,
  min: number,
  range = { unit: 'seconds', decimals: 3, example: '3 or 0.5' },
) {
  const value = decimal(name, raw, { ...range, min, max: 86_400 });
  return value && Math.round(value * 1000);
}

/** The names the sandbox accepts; the manifest lists the same ones for help and completion. */
function dialect(raw: unknown) {
  if (raw === undefined) return;
  const named = SANDBOX_DIALECTS.find((name) => name === String(raw).trim());
  if (named === undefined) throw notAllowed('--dialect', raw, SANDBOX_DIALECTS.join(', '));
  return named;
}

/** `--start`: an ISO 8601 time in UTC (a day alone: its start). */
function startTime(raw: unknown) {
  if (raw === undefined) return;
  const text = String(raw).trim();
  const ms = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?Z)?$/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(ms))
    throw notAllowed('--start', raw, 'a UTC time such as 2026-11-25T09:00:00Z, or a day such as 2026-11-25');
  return ms;
}

export function parseSandboxServeOptions(input: In<'SANDBOX_SERVE'>) {
  const o = input.options;
  const host = o.host === undefined ? '127.0.0.1' : String(o.host);
  // The simulator holds test keys and has no access control of its own: it never leaves this machine.
  // Named as listen() takes it: localhost or an address (a URL's [::1], or 127.0.0.256, is none).
  if (!isLoopbackHost(host) || (isIP(host) === 0 && host.toLowerCase() !== 'localhost'))
    throw notAllowed('--host', host, 'a loopback address (127.0.0.1, ::1, localhost)');
  return {
    host,
    port: wholeNumber('--port', o.port, 0, 65535),
    tls: o.tls === true,
    fillDelayMs: wholeNumber('--fill-delay', o.fillDelay, 0, 3_600_000),
    failRate: share('--fail-rate', o.failRate),
    clockSpeed: decimal('--clock-speed', o.clockSpeed, {
      unit: 'a number',
      min: 0,
      aboveMin: true,
      max: 1e7,
      example: '600',
    }),
    startMs: startTime(o.start),
    seed: wholeNumber('--seed', o.seed, 0, 2 ** 31 - 1),
    fault5xx: share('--fault-5xx', o.fault5xx),
    fault429: share('--fault-429', o.fault429),
    dropAfterCommit: share('--drop-after-commit', o.dropAfterCommit),
    latencyMs: wholeNumber('--latency', o.latency, 0, 600_000),
    rateLimit: wholeNumber('--rate-limit', o.rateLimit, 1, 1_000_000),
    dialect: dialect(o.dialect),
    dateSkewMs: seconds('--clock-skew', o.clockSkew, -86_400, {
      unit: 'whole seconds',
      decimals: 0,
      example: '300 or -120',
    }),
    hostileText: o.hostileText === true,
    viewLagMs: seconds('--view-lag', o.viewLag, 0),
    recordLagMs: seconds('--record-lag', o.recordLag, 0),
    // Only ever turns it on: without the flag the dialect decides (alpha: several, the others: one).
    severalPerSide: o.severalPerSide === true || undefined,
    settlementDelayMs: seconds('--settlement-delay', o.settlementDelay, 0),
    dayMs: seconds('--day', o.day, 0.001),
  };
}

export async function run(ctx: Options, input: In<'SANDBOX_SERVE'>) {
  const options = parseSandboxServeOptions(input);
  const { serveSandbox } = await import('../../../sandbox/http/serve.js');
  try {
    await serveSandbox(options, { stdout: ctx.io.stdout, stderr: ctx.io.stderr, signal: ctx.signal });
    // Ctrl-C and SIGTERM are how a sandbox is stopped (exit 0); a closed terminal is a hangup, 129 as for every command.
    const stop: unknown = ctx.signal.reason;
    return stop instanceof StopSignal && stop.signal === 'SIGHUP' ? stop.exitCode : 0;
  } catch (error) {
    // The port asked for cannot be had: the user's choice to change, not a fault of hedge.
    const code = (error as NodeJS.ErrnoException).code;
    if (options.port !== undefined && (code === 'EADDRINUSE' || code === 'EACCES'))
      throw new UsageError(
        `--port: ${options.port} on ${options.host} is ${code === 'EACCES' ? 'not open to this user' : 'in use by another process'}; choose another with --port, or leave --port out for any free one.`,
      );
    throw error;
  }
}
