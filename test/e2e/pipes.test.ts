// `hedge … | head`: the reader closing the pipe early is not an error.
import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';
import { baseEnv, HEDGE_BIN, tempDir } from '../support/hedge-cli.js';

it('exits 0 without a stack trace when stdout is closed early', async () => {
  const config = tempDir();
  const child = spawn(process.execPath, [HEDGE_BIN, '--help'], { env: baseEnv(config.path), stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy();
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  config.remove();
  expect(stderr).not.toMatch(/EPIPE|at .*\(/);
  expect(code).toBe(0);
});
