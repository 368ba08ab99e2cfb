import { isLoopbackHost } from '../../../core/security/base-url.js';
import type { CommandContext } from '../../../platform/runtime/context.js';
import { echo, parseWholeNumber } from '../../../core/input.js';
import { UsageError } from '../../../core/errors.js';
import type { InputOf } from '../../runner/command-spec.js';
import { DIALECT_VALUES, type SANDBOX_SERVE } from '../specs.js';
import type { SandboxOptions } from '../../../sandbox/index.js';
import type { OutputFields } from '../../../platform/fields/output-fields.js';

function share(name: string, raw: unknown) {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (String(raw).trim() === '' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new UsageError(`${name}: ${echo(String(raw))} is not allowed; expected a share from 0 to 1 (e.g. 0.2).`);
  }
  return value;
}

function wholeNumber(name: string, raw: unknown, min: number, max: number) {
  return raw === undefined ? undefined : parseWholeNumber(raw, name, min, max);
}

function positive(name: string, raw: unknown) {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (String(raw).trim() === '' || !Number.isFinite(value) || value <= 0 || value > 1e7) {
    throw new UsageError(`${name}: ${echo(String(raw))} is not allowed; expected a number greater than 0.`);
  }
  return value;
}

/** Seconds (to the millisecond) from `min` to a day, as ms. */
function seconds(name: string, raw: unknown, min: number) {
  if (raw === undefined) return undefined;
  const text = String(raw).trim();
  const value = Number(text);
  if (!/^\d+(\.\d{1,3})?$/.test(text) || value < min || value > 86_400) {
    throw new UsageError(
      `${name}: ${echo(String(raw))} is not allowed; expected seconds from ${min} to 86400 (e.g. 3 or 0.5).`,
    );
  }
  return Math.round(value * 1000);
}

/** Whole seconds, signed, at most a day either way. */
function skewSeconds(raw: unknown) {
  if (raw === undefined) return undefined;
  const text = String(raw).trim();
  if (!/^[+-]?\d+$/.test(text) || Math.abs(Number(text)) > 86_400) {
    throw new UsageError(
      `--clock-skew: ${echo(String(raw))} is not allowed; expected whole seconds from -86400 to 86400 (e.g. 300 or -120).`,
    );
  }
  return Number(text) * 1000;
}

/** The names the sandbox accepts; the manifest lists the same ones for help and completion. */
function dialect(raw: unknown) {
  if (raw === undefined) return undefined;
  const name = String(raw).trim();
  if (!(DIALECT_VALUES as readonly string[]).includes(name)) {
    throw new UsageError(`--dialect: ${echo(String(raw))} is not allowed; expected ${DIALECT_VALUES.join(', ')}.`);
  }
  return name as (typeof DIALECT_VALUES)[number];
}

/** What `hedge sandbox serve` starts: the simulator's own options, every flag checked. */
export type SandboxServeOptions = SandboxOptions;

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
    clockSpeed: positive('--clock-speed', o.clockSpeed),
    seed: wholeNumber('--seed', o.seed, 0, 2 ** 31 - 1),
    fault5xx: share('--fault-5xx', o.fault5xx),
    fault429: share('--fault-429', o.fault429),
    dropAfterCommit: share('--drop-after-commit', o.dropAfterCommit),
    latencyMs: wholeNumber('--latency', o.latency, 0, 600_000),
    rateLimit: wholeNumber('--rate-limit', o.rateLimit, 1, 1_000_000),
    dialect: dialect(o.dialect),
    dateSkewMs: skewSeconds(o.clockSkew),
    hostileText: o.hostileText === true,
    viewLagMs: seconds('--view-lag', o.viewLag, 0),
    // Only ever turns it on: without the flag the dialect decides (alpha: several, the others: one).
    severalPerSide: o.severalPerSide === true ? true : undefined,
    settlementDelayMs: seconds('--settlement-delay', o.settlementDelay, 0),
    dayMs: seconds('--day', o.day, 0.001),
  };
}

export async function run(ctx: CommandContext, input: InputOf<typeof SANDBOX_SERVE>) {
  const options = parseSandboxServeOptions(input);
  const { serveSandbox } = await import('../../../sandbox/http/serve.js');
  await serveSandbox(options, { stdout: ctx.io.stdout, stderr: ctx.io.stderr, signal: ctx.signal });
}

/** No records: --fields and --query are refused before it starts (ui/output-fields.ts). */
export const OUTPUT_FIELDS: OutputFields = { kind: 'none', prints: "the simulator's address as environment lines" };
