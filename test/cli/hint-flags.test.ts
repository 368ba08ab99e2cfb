// The one way a hint gets the flags that chose the environment: describeFailure (exit-codes.ts),
// which the CLI runner (cli/run.ts) and the agent's in-process runs (agent/invoke.ts) both report
// through. Every `hedge …` command a hint quotes gets --demo or --profile NAME once, as
// ctx.hedgeCommand gives them to hints written with a context at hand.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { describeFailure } from '../../src/platform/terminal/exit-codes.js';
import { CommandContext } from '../../src/platform/runtime/context.js';
import type { GlobalOptions } from '../../src/platform/runtime/globals.js';
import { makeChalk } from '../../src/platform/terminal/color.js';
import { Output } from '../../src/platform/terminal/output.js';

function context(globals: Partial<GlobalOptions>, origin: 'cli' | 'agent'): CommandContext {
  const io = {
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    stdin: new PassThrough(),
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
  };
  return new CommandContext({
    io,
    env: {},
    globals: {
      json: true,
      header: true,
      demo: false,
      yes: false,
      input: false,
      color: false,
      verbose: false,
      ...globals,
    },
    clock: { now: () => 0, sleep: async () => {} },
    signal: new AbortController().signal,
    output: new Output({ mode: 'json', chalk: makeChalk(false), streams: io, now: () => 0 }),
    origin,
  });
}

const failure = () =>
  new UsageError('refused', {
    hint: 'See `hedge journal`, then `hedge --demo resume a_1` or `hedge --profile desk whoami`.',
  });

describe('describeFailure', () => {
  it.each(['cli', 'agent'] as const)('puts --demo into every hedge command of the hint once (%s)', (origin) => {
    const ctx = context({ demo: true }, origin);
    expect([describeFailure(failure(), ctx.globals).hint, ctx.hedgeCommand('journal')]).toEqual([
      'See `hedge --demo journal`, then `hedge --demo resume a_1` or `hedge --profile desk whoami`.',
      'hedge --demo journal',
    ]);
  });

  it.each(['cli', 'agent'] as const)('puts --profile NAME in as hedgeCommand does (%s)', (origin) => {
    const ctx = context({ profile: 'ops' }, origin);
    expect([describeFailure(failure(), ctx.globals).hint, ctx.hedgeCommand('journal')]).toEqual([
      'See `hedge --profile ops journal`, then `hedge --demo resume a_1` or `hedge --profile desk whoami`.',
      'hedge --profile ops journal',
    ]);
  });

  it('leaves the hint alone when no flag chose the environment', () => {
    expect(describeFailure(failure(), context({}, 'agent').globals).hint).toBe(
      'See `hedge journal`, then `hedge --demo resume a_1` or `hedge --profile desk whoami`.',
    );
  });
});
