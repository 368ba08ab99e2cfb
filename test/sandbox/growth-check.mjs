#!/usr/bin/env node
// Self-check of the simulator's speed as it grows (not a test: it prints, it asserts nothing).
//   node test/sandbox/growth-check.mjs [hedges=10000] [dialect=reference]
// Bundles src/sandbox/ and test/sandbox/growth.ts with esbuild into a temp dir and warms the JIT on a scratch engine. Then,
// for 10, 100 and the target count, it grows fresh engines to that many hedges through real
// writes (growHedges) and times, on each, the next 1,000 writes (500 more hedges opened and
// closed) and 5,000 `GET /hedges` one-item pages. It prints the medians over several engines
// (a busy machine makes single runs noisy) and the ratios the issue sets goals for: writes/s at
// the target ≥ 0.8 × at 100; a one-item page at the target costs ≤ 2 × what it costs at 10.
import { build } from 'esbuild';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const target = Number(process.argv[2] ?? 10_000);
const dialect = process.argv[3] ?? 'reference';
const KEY = 'hpk_test_GrowthCheckGrowthCheck0001';
const START = Date.UTC(2026, 10, 22, 8);
const RUNS = 5;
const BURST_HEDGES = 500;
const PAGE_READS = 5_000;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const dir = await mkdtemp(join(tmpdir(), 'hedge-growth-check-'));
try {
  const outfile = join(dir, 'sandbox.mjs');
  // The simulator and its grower (test support) in one bundle, so both use the same engine.
  await build({
    stdin: {
      contents:
        "export { wireDialect } from './src/sandbox/dialects.ts'; export { createHttpEngine } from './src/sandbox/http/http-engine.ts'; export { growHedges } from './test/sandbox/growth.ts';",
      resolveDir: ROOT,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'error',
  });
  const { createHttpEngine, growHedges, wireDialect } = await import(pathToFileURL(outfile).href);
  const pageSize = wireDialect(dialect).pageSizeParameter;
  const fresh = () => createHttpEngine({ apiKeys: [KEY], fillDelayMs: 1000, seed: 'growth-check', dialect });

  /** One engine grown to `hedges`, then timed: writes/s and one-item pages/s at that size. */
  function measureAt(hedges) {
    const engine = fresh();
    const grown = growHedges(engine, { apiKey: KEY, hedges, startMs: START });
    let started = performance.now();
    const burst = growHedges(engine, { apiKey: KEY, hedges: BURST_HEDGES, startMs: grown.nowMs, keyPrefix: 'burst' });
    const writesPerSecond = burst.writes / ((performance.now() - started) / 1000);
    const request = {
      method: 'GET',
      path: '/hedges',
      query: { [pageSize]: '1' },
      headers: { authorization: `Bearer ${KEY}` },
    };
    started = performance.now();
    for (let read = 0; read < PAGE_READS; read++) engine.handle(request, burst.nowMs);
    return { writesPerSecond, pagesPerSecond: PAGE_READS / ((performance.now() - started) / 1000) };
  }

  measureAt(2_000);
  const sizes = [...new Set([10, 100, target])].sort((a, b) => a - b);
  const samples = new Map(sizes.map((size) => [size, []]));
  // Sizes interleaved, so a slow patch of the machine does not land on one size only.
  for (let run = 0; run < RUNS; run++) for (const size of sizes) samples.get(size).push(measureAt(size));
  const results = new Map(
    sizes.map((size) => {
      const runs = samples.get(size);
      return [
        size,
        {
          writes: median(runs.map((one) => one.writesPerSecond)),
          pages: median(runs.map((one) => one.pagesPerSecond)),
        },
      ];
    }),
  );

  console.log(`${dialect} dialect, medians of ${RUNS} engines each (engine calls, no HTTP):`);
  for (const [size, { writes, pages }] of results) {
    console.log(
      `  at ${String(size).padStart(6)} hedges: ${writes.toFixed(0).padStart(7)} writes/s, ${pages.toFixed(0).padStart(7)} one-item pages/s`,
    );
  }
  const at = (size) => results.get(size);
  if (at(100) && at(target)) {
    console.log(`  writes/s at ${target} ÷ at 100: ${(at(target).writes / at(100).writes).toFixed(2)} (goal ≥ 0.80)`);
  }
  if (at(10) && at(target)) {
    console.log(
      `  one-item page cost at ${target} ÷ at 10: ${(at(10).pages / at(target).pages).toFixed(2)} (goal ≤ 2.00)`,
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
