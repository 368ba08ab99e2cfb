// Timing primitives: run a command as a child process and time it from spawn to exit; run
// several commands alternately (A B C A B C …) so that whatever the machine does meanwhile
// falls on all of them alike; summarise by the median.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const RSS_PROBE = fileURLToPath(new URL('./rss-probe.cjs', import.meta.url));

/**
 * @typedef {object} Command
 * @property {string} label
 * @property {string[]} argv   node arguments (script first), run with process.execPath
 * @property {Record<string, string>} env
 * @property {(run: RunResult) => string | undefined} [check]  returns a problem, or undefined if the run is right
 */

/**
 * @typedef {object} RunResult
 * @property {number} wallMs
 * @property {number | undefined} maxRssKiB
 * @property {number | null} code
 * @property {string} stdout
 * @property {string} stderr
 * @property {number | undefined} firstStdoutAt
 */

/**
 * Runs once. With `rssFile`, the child reports its own peak RSS there as it exits.
 * `firstStdoutAt` is the wall-clock time (Date.now) when the first bytes of stdout arrived.
 */
export function runOnce(command, { rssFile } = {}) {
  const argv = rssFile ? ['--require', RSS_PROBE, ...command.argv] : command.argv;
  const env = rssFile ? { ...command.env, BENCH_RSS_FILE: rssFile } : command.env;
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let firstStdoutAt;
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      firstStdoutAt ??= Date.now();
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      let maxRssKiB;
      if (rssFile) {
        maxRssKiB = Number(readFileSync(rssFile, 'utf8'));
        rmSync(rssFile, { force: true });
      }
      resolve({ wallMs, maxRssKiB, code, stdout, stderr, firstStdoutAt });
    });
  });
}

async function checkedRun(command, options) {
  const run = await runOnce(command, options);
  const problem = run.code !== 0 ? `exit ${run.code}` : command.check?.(run);
  if (problem) {
    throw new Error(`${command.label}: ${problem}\nstdout: ${run.stdout.slice(0, 500)}\nstderr: ${run.stderr.slice(0, 500)}`);
  }
  return run;
}

/**
 * Runs `commands` alternately: `warmup` rounds thrown away, then `runs` rounds kept.
 * Returns, per command, the kept wall times (and peak RSS with `rss`).
 */
export async function alternate(commands, { runs, warmup = 1, rss = false, tmpDir }) {
  const results = commands.map(() => ({ wallMs: [], maxRssKiB: [] }));
  for (let round = 0; round < warmup + runs; round++) {
    for (const [index, command] of commands.entries()) {
      const rssFile = rss ? join(tmpDir, `rss-${process.pid}-${index}`) : undefined;
      const run = await checkedRun(command, { rssFile });
      if (round < warmup) continue;
      results[index].wallMs.push(run.wallMs);
      if (rss) results[index].maxRssKiB.push(run.maxRssKiB);
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
