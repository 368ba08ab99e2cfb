// `npm test`: the type check, the linter and the format check run beside the tests, so they use
// the cores the tests leave idle while they wait on simulated time. Vitest reports failures in
// full and a summary (its `minimal` reporter; `--reporter=…` among the arguments picks another).
// Each check's output is printed whole when it ends, each job's end is said with its time, and the
// last line says when the last one ended; the exit code is the first failure's, else 0.
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';

const PATHS = ['src', 'test', 'scripts', 'bench', 'bin'];
const given = process.argv.slice(2);
const reporter = given.some((arg) => arg.startsWith('--reporter')) ? [] : ['--reporter=minimal'];
const started = Date.now();
const seconds = () => `${Math.round((Date.now() - started) / 1000)} s`;
const jobs = [
  ['tsc', ['--noEmit']],
  ['eslint', PATHS],
  ['prettier', ['--check', '--log-level', 'warn', ...PATHS, 'vitest.config.ts', 'eslint.config.mjs']],
  ['node', ['scripts/layers.mjs']],
  ['vitest', ['run', ...reporter, ...given], 'inherit'],
];
/** A job as its lines name it: the tool, or the script node runs. */
const named = (tool, args) => (tool === 'node' ? args[0] : tool);
const running = new Set(jobs.map(([tool, args]) => named(tool, args)));
const runs = jobs.map(
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
        running.delete(named(tool, args));
        if (output.trim()) process.stdout.write(`\n── ${tool} ${args.join(' ')}\n${output}`);
        const still = running.size ? `; still running: ${[...running].join(', ')}` : '';
        const ended = code === 0 ? 'passed' : `failed (${signal ?? `exit ${code}`})`;
        process.stdout.write(`── ${named(tool, args)} ${ended} at ${seconds()}${still}\n`);
        settle(code ?? 1);
      });
    }),
);
const codes = await Promise.all(runs);
const failed = jobs.filter((_, index) => codes[index] !== 0).map(([tool, args]) => named(tool, args));
process.stdout.write(
  `── npm test: the last of its ${jobs.length} jobs ended at ${seconds()}; ${failed.length ? `failed: ${failed.join(', ')}` : 'all passed'}\n`,
);
process.exitCode = codes.find((code) => code !== 0) ?? 0;
