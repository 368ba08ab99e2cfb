// Issue 37: flows return outcomes; commands and ui print them and choose the exit code. A grep-level
// check that no file of src/flows/ writes to an output, prompts or picks an exit code.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const FLOWS = join(import.meta.dirname, '..', '..', 'src', 'flows');

/**
 * What a flow must not touch: the process's streams or exit, the console, the context's output and
 * streams, exit codes. A flow that must ask does it through the injected prompter port (ContextInit.prompter).
 */
const SAYS_OR_ENDS = [
  /process\.(stdout|stderr|exit)/,
  /\bconsole\./,
  /\.io\.(stdout|stderr)\b/,
  /\bctx\.output\b/,
  /\bEXIT_CODES\b/,
  /\bexitCode\b/,
  /\bExitCode\b/,
];

/**
 * Flows that still print or choose an exit code, each to be emptied by the branch that owns it (the
 * lead removes a line when its branch is merged). keep.ts and roll.ts: branch w38a (the keeper).
 * The others: what issue 37's outcomes branch (w37o) did not reach in its session — see
 * docs/architecture.md "Outcomes".
 */
const STILL_PRINTING = new Set([
  'keep.ts',
  'roll.ts',
  'open-wizard.ts',
  'until.ts',
]);

function offences(text: string): string[] {
  return text.split('\n').filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line) && SAYS_OR_ENDS.some((pattern) => pattern.test(line)));
}

describe('flows say nothing and choose no exit code', () => {
  const files = readdirSync(FLOWS).filter((name) => name.endsWith('.ts'));

  it('no flow outside the short allow-list writes to an output or picks an exit code', () => {
    const found = Object.fromEntries(files.filter((name) => !STILL_PRINTING.has(name)).map((name) => [name, offences(readFileSync(join(FLOWS, name), 'utf8'))]).filter(([, lines]) => lines.length > 0));
    expect(found).toEqual({});
  });

  it('the allow-list names only files that still need it (an emptied file leaves the list)', () => {
    const clean = [...STILL_PRINTING].filter((name) => !files.includes(name) || offences(readFileSync(join(FLOWS, name), 'utf8')).length === 0);
    expect(clean).toEqual([]);
  });

  it('the check sees a print and an exit code (it can fail)', () => {
    expect(offences("  ctx.output.note('x');\n  return exitCode;\n  // ctx.output in a comment\n")).toHaveLength(2);
  });
});
