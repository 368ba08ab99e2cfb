// Measuring primitives: run a command as a child process, with its wall time from spawn to exit
// and its own CPU time (user + system, from bench/lib/usage-probe.cjs); run several commands
// alternately (A B C A B C …) so that whatever the machine does meanwhile falls on all of them
// alike; summarise by the median.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const USAGE_PROBE = fileURLToPath(new URL('./usage-probe.cjs', import.meta.url));

/**
 * @typedef {object} Command
 * @property {string} label
 * @property {string[]} argv   node arguments (script first), run with process.execPath, or the executable's arguments
 * @property {string} [executable]  another program than node (hedge's single executable); the usage probe goes in through NODE_OPTIONS
 * @property {Record<string, string>} env
 * @property {(run: RunResult) => string | undefined} [check]  returns a problem, or undefined if the run is right
 * @property {() => Promise<() => Promise<number>>} [around]  called before each run; what it returns is called after it, and its number kept (results[i].extra)
 */

/**
 * @typedef {object} RunResult
 * @property {number} wallMs
 * @property {number} cpuMs     user + system of the child
 * @property {number} maxRssKiB
 * @property {number | null} code
 * @property {string} stdout
 * @property {string} stderr
 */

/** Runs once, the usage probe preloaded: it writes the child's own resource usage to `usageFile` as it exits. */
export function runOnce(command, { usageFile }) {
  // Node takes the probe as an option; another executable (hedge's single executable, which is
  // Node inside) gets it through NODE_OPTIONS, which it honours like node does.
  const viaOptions = command.executable !== undefined;
  const argv = viaOptions ? command.argv : ['--require', USAGE_PROBE, ...command.argv];
  const env = { ...command.env, BENCH_USAGE_FILE: usageFile };
  if (viaOptions) env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ''} --require ${USAGE_PROBE}`.trim();
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command.executable ?? process.execPath, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      let usage = { userMs: NaN, systemMs: NaN, maxRssKiB: NaN };
      try {
        usage = JSON.parse(readFileSync(usageFile, 'utf8'));
      } catch {
        // A process killed before its exit handlers ran: reported by checkedRun as a failed run.
      }
      rmSync(usageFile, { force: true });
      resolve({ wallMs, cpuMs: usage.userMs + usage.systemMs, maxRssKiB: usage.maxRssKiB, code, stdout, stderr });
    });
  });
}

async function checkedRun(command, options) {
  // `around`: work measured beside the command (the server's CPU over the run), given the run.
  const around = await command.around?.();
  const run = await runOnce(command, options);
  if (around) run.extra = await around();
  const problem = run.code !== 0 ? `exit ${run.code}` : Number.isNaN(run.cpuMs) ? 'no resource usage written' : command.check?.(run);
  if (problem) {
    throw new Error(`${command.label}: ${problem}\nstdout: ${run.stdout.slice(0, 500)}\nstderr: ${run.stderr.slice(0, 500)}`);
  }
  return run;
}

/**
 * Runs `commands` alternately: `warmup` rounds thrown away, then `runs` rounds kept. The order
 * within a round turns by one each round, so that no command always runs right after another.
 * @returns {Array<{wallMs: number[], cpuMs: number[], maxRssKiB: number[]}>} per command
 */
export async function alternate(commands, { runs, warmup = 1, tmpDir }) {
  const results = commands.map(() => ({ wallMs: [], cpuMs: [], maxRssKiB: [], extra: [] }));
  const usageFile = join(tmpDir, `usage-${process.pid}.json`);
  for (let round = 0; round < warmup + runs; round++) {
    for (let step = 0; step < commands.length; step++) {
      const index = (step + round) % commands.length;
      const run = await checkedRun(commands[index], { usageFile });
      if (round < warmup) continue;
      results[index].wallMs.push(run.wallMs);
      results[index].cpuMs.push(run.cpuMs);
      results[index].maxRssKiB.push(run.maxRssKiB);
      if (run.extra !== undefined) results[index].extra.push(run.extra);
    }
  }
  return results;
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Spread as the interquartile range, to show how noisy a median is. */
export function quartiles(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (share) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(share * (sorted.length - 1))))];
  return [at(0.25), at(0.75)];
}
