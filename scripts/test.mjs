// `npm test`: the type check, the linter and the format check run beside the tests, so they use
// the cores the tests leave idle while they wait on simulated time. Each check's output is
// printed whole when it ends; the exit code is the first failure's, else 0.
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';

const PATHS = ['src', 'test', 'scripts', 'bench', 'bin'];
const runs = [
  ['tsc', ['--noEmit']],
  ['eslint', PATHS],
  ['prettier', ['--check', '--log-level', 'warn', ...PATHS, 'vitest.config.ts', 'eslint.config.mjs']],
  ['node', ['scripts/layers.mjs']],
  ['vitest', ['run', ...process.argv.slice(2)], 'inherit'],
].map(
  ([tool, args, stdio = 'pipe']) =>
    new Promise((settle) => {
      const child = spawn(tool === 'node' ? process.execPath : `node_modules/.bin/${tool}`, args, {
        stdio: ['ignore', stdio, stdio],
      });
      // The checks take what the tests leave: the tests' waits are what makes the run long.
      if (tool !== 'vitest') setPriority(child.pid, 19);
      let output = '';
      child.stdout?.on('data', (chunk) => (output += chunk));
      child.stderr?.on('data', (chunk) => (output += chunk));
      child.on('close', (code, signal) => {
        if (output.trim()) process.stdout.write(`\n── ${tool} ${args.join(' ')}\n${output}`);
        if (code !== 0) process.stdout.write(`── ${tool} failed (${signal ?? `exit ${code}`})\n`);
        settle(code ?? 1);
      });
    }),
);
process.exitCode = (await Promise.all(runs)).find((code) => code !== 0) ?? 0;
