// A command run to its end, for the build tests: its exit code (1 when it could not run or was
// stopped at its bound), stdout and stderr.
import { execFile } from 'node:child_process';

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export const run = (
  command: string,
  args: string[],
  {
    cwd,
    env = process.env,
    timeoutMs = 90_000,
  }: { cwd: string; env?: Record<string, string | undefined>; timeoutMs?: number },
) =>
  new Promise<Run>((resolve) =>
    execFile(command, args, { cwd, env, timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    ),
  );
