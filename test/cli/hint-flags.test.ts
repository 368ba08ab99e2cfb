// The one way a hint gets the flags that chose the environment: describeFailure (exit-codes.ts),
// which the CLI runner (cli/run.ts) and the agent's in-process runs (agent/toolbox.ts) both report
// through. Every `hedge …` command a hint quotes gets --demo or --profile NAME once, as
// ctx.hedgeCommand gives them to hints written with a context at hand.
import { UsageError } from '../../src/core/errors.js';
import { describeFailure } from '../../src/platform/terminal/exit-codes.js';
import { testContext } from '../support/client.js';
import type { GlobalOptions } from '../../src/platform/runtime/context.js';

function context(globals: Partial<GlobalOptions>, origin: 'cli' | 'agent') {
  return testContext({ globals: { json: true, input: false, ...globals }, origin, output: { format: 'json' } }).ctx;
}

it.each([
  ['--demo', { demo: true }, 'hedge --demo journal'],
  ['--profile NAME', { profile: 'ops' }, 'hedge --profile ops journal'],
  ['nothing (no flag chose the environment)', {}, 'hedge journal'],
] as const)(
  'describeFailure puts %s into every hedge command of the hint once, as hedgeCommand does (cli and agent)',
  (_flag, globals, journal) => {
    const failure = new UsageError('refused', {
      hint: 'See `hedge journal`, then `hedge --demo resume a_1` or `hedge --profile desk whoami`.',
    });
    for (const origin of ['cli', 'agent'] as const) {
      const ctx = context(globals, origin);
      expect([describeFailure(failure, ctx.globals).hint, ctx.hedgeCommand('journal')], origin).toEqual([
        `See \`${journal}\`, then \`hedge --demo resume a_1\` or \`hedge --profile desk whoami\`.`,
        journal,
      ]);
    }
  },
);
