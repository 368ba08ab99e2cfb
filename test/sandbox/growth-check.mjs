#!/usr/bin/env node
// Self-check of the simulator's speed as it grows (not a test: it prints, it asserts nothing).
//   node test/sandbox/growth-check.mjs [hedges=10000] [dialect=reference]
// Bundles src/sandbox/ with esbuild into a temp dir, warms the JIT on a scratch engine, then grows
// a fresh engine through real writes (growHedges) and prints, at 10, 100 and the target count,
// writes/s and `GET /hedges` one-item pages/s, with the ratios the issue sets goals for:
// writes at the target ≥ 0.8 × writes at 100; a one-item page at the target ≤ 2 × its cost at 10.
import { build } from 'esbuild';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const hedges = Number(process.argv[2] ?? 10_000);
const dialect = process.argv[3] ?? 'reference';
const KEY = 'hpk_test_GrowthCheckGrowthCheck0001';
const START = Date.UTC(2026, 10, 22, 8);

const dir = await mkdtemp(join(tmpdir(), 'hedge-growth-check-'));
try {
  const outfile = join(dir, 'sandbox.mjs');
  await build({
    entryPoints: [join(ROOT, 'src/sandbox/index.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'error',
  });
  const { SandboxEngine, growHedges } = await import(pathToFileURL(outfile).href);
  const fresh = () => new SandboxEngine({ apiKeys: [KEY], fillDelayMs: 1000, seed: 'growth-check', dialect });

  growHedges(fresh(), { apiKey: KEY, hedges: 2_000, startMs: START });
  const checkpoints = [10, 100, hedges].filter((count, index, all) => count <= hedges && all.indexOf(count) === index);
  const engine = fresh();
  const started = performance.now();
  const result = growHedges(engine, { apiKey: KEY, hedges, startMs: START, checkpoints });
  const seconds = (performance.now() - started) / 1000;

  console.log(`${dialect} dialect: ${result.hedgeIds.length} hedges through ${result.writes} writes in ${seconds.toFixed(2)} s`);
  for (const point of result.checkpoints) {
    console.log(
      `  at ${String(point.hedges).padStart(6)} hedges: ${point.writesPerSecond.toFixed(0).padStart(7)} writes/s, ` +
        `${point.listOnePerSecond.toFixed(0).padStart(7)} one-item pages/s`,
    );
  }
  const at = (count) => result.checkpoints.find((point) => point.hedges === count);
  const [ten, hundred, target] = [at(10), at(100), at(hedges)];
  if (hundred && target) {
    const ratio = target.writesPerSecond / hundred.writesPerSecond;
    console.log(`  writes/s at ${hedges} ÷ at 100: ${ratio.toFixed(2)} (goal ≥ 0.80)`);
  }
  if (ten && target) {
    const ratio = ten.listOnePerSecond / target.listOnePerSecond;
    console.log(`  one-item page cost at ${hedges} ÷ at 10: ${ratio.toFixed(2)} (goal ≤ 2.00)`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
