import { isLoopbackHost } from '../../../core/security/base-url.js';
import type { CommandContext } from '../../../platform/runtime/context.js';
import { echo, parseWholeNumber } from '../../../core/input.js';
import { UsageError } from '../../../core/errors.js';
import type { InputOf } from '../../runner/command-spec.js';
import { DIALECT_VALUES, type SANDBOX_SERVE } from '../specs.js';
import type { OutputFields } from '../../../platform/fields/output-fields.js';

/** A flag's value read by `read` (undefined: refused, saying what is `expected`); undefined when the flag is absent. */
function checked<T>(
  name: string,
  raw: unknown,
  expected: string,
  read: (text: string, value: number) => T | undefined,
) {
  if (raw === undefined) return;
  const text = String(raw).trim();
  const value = read(text, Number(text));
  if (value === undefined) throw new UsageError(`${name}: ${echo(String(raw))} is not allowed; expected ${expected}.`);
  return value;
}

const share = (name: string, raw: unknown) =>
  checked(name, raw, 'a share from 0 to 1 (e.g. 0.2)', (text, value) =>
    text !== '' && value >= 0 && value <= 1 ? value : undefined,
  );

const wholeNumber = (name: string, raw: unknown, min: number, max: number) =>
  raw === undefined ? undefined : parseWholeNumber(raw, name, min, max);

/** Seconds (to the millisecond) from `min` to a day, as ms. */
const seconds = (name: string, raw: unknown, min: number) =>
  checked(name, raw, `seconds from ${min} to 86400 (e.g. 3 or 0.5)`, (text, value) =>
    /^\d+(\.\d{1,3})?$/.test(text) && value >= min && value <= 86_400 ? Math.round(value * 1000) : undefined,
  );

export function parseSandboxServeOptions(input: InputOf<typeof SANDBOX_SERVE>) {
  const o = input.options;
  const host = o.host === undefined ? '127.0.0.1' : String(o.host);
  // The simulator holds test keys and has no access control of its own: it never leaves this machine.
  if (!isLoopbackHost(host))
    throw new UsageError(
      `--host: ${echo(host)} is not allowed; expected a loopback address (127.0.0.1, ::1, localhost).`,
    );
  return {
    host,
    port: wholeNumber('--port', o.port, 0, 65535),
    tls: o.tls === true,
    fillDelayMs: wholeNumber('--fill-delay', o.fillDelay, 0, 3_600_000),
    failRate: share('--fail-rate', o.failRate),
    clockSpeed: checked('--clock-speed', o.clockSpeed, 'a number greater than 0', (text, value) =>
      text !== '' && value > 0 && value <= 1e7 ? value : undefined,
    ),
    seed: wholeNumber('--seed', o.seed, 0, 2 ** 31 - 1),
    fault5xx: share('--fault-5xx', o.fault5xx),
    fault429: share('--fault-429', o.fault429),
    dropAfterCommit: share('--drop-after-commit', o.dropAfterCommit),
    latencyMs: wholeNumber('--latency', o.latency, 0, 600_000),
    rateLimit: wholeNumber('--rate-limit', o.rateLimit, 1, 1_000_000),
    // The names the sandbox accepts; the manifest lists the same ones for help and completion.
    dialect: checked('--dialect', o.dialect, DIALECT_VALUES.join(', '), (text) =>
      DIALECT_VALUES.find((name) => name === text),
    ),
    // Whole seconds, signed, at most a day either way.
    dateSkewMs: checked(
      '--clock-skew',
      o.clockSkew,
      'whole seconds from -86400 to 86400 (e.g. 300 or -120)',
      (text, value) => (/^[+-]?\d+$/.test(text) && Math.abs(value) <= 86_400 ? value * 1000 : undefined),
    ),
    hostileText: o.hostileText === true,
    viewLagMs: seconds('--view-lag', o.viewLag, 0),
    recordLagMs: seconds('--record-lag', o.recordLag, 0),
    // Only ever turns it on: without the flag the dialect decides (alpha: several, the others: one).
    severalPerSide: o.severalPerSide === true ? true : undefined,
    settlementDelayMs: seconds('--settlement-delay', o.settlementDelay, 0),
    dayMs: seconds('--day', o.day, 0.001),
  };
}

export async function run(ctx: CommandContext, input: InputOf<typeof SANDBOX_SERVE>) {
  const options = parseSandboxServeOptions(input);
  const { serveSandbox } = await import('../../../sandbox/http/serve.js');
  try {
    await serveSandbox(options, { stdout: ctx.io.stdout, stderr: ctx.io.stderr, signal: ctx.signal });
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

/** No records: --fields and --query are refused before it starts (ui/output-fields.ts). */
export const OUTPUT_FIELDS: OutputFields = { kind: 'none', prints: "the simulator's address as environment lines" };
