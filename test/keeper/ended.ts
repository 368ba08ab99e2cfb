// One check for a finished run of the CLI: its exit code, and what its stderr says.
import { expect } from 'vitest';
import type { RunResult } from '../support/hedge-cli.js';

/** `run` exited with `code` and its stderr says each of `said`; gives the run back. */
export function ended(run: RunResult, code: number | null, ...said: string[]): RunResult {
  expect(run.code, run.stderr).toBe(code);
  for (const text of said) expect(run.stderr).toContain(text);
  return run;
}
