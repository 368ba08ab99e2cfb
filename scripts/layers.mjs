#!/usr/bin/env node
// The layer order (CONTRIBUTING.md, "The layer rules"), top to bottom, and the check that no import climbs back
// up it: a module may import its own layer and the layers below, never one above. The graph is
// madge's (.madgerc: type imports and lazy import() count), so `npm run cycles` and this check see
// the same edges. test/build/import-layers.test.ts runs it as part of `npm test`.
//
//   node scripts/layers.mjs          # prints the imports that climb, exit 1 when there is one
import madge from 'madge';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** Top to bottom. A path matches the first prefix that starts it; a file's layer is its rank. */
export const LAYERS = [
  { name: 'cli', paths: ['cli/'] },
  { name: 'commands', paths: ['cli/cmd/'] },
  { name: 'agent', paths: ['cli/agent/'] },
  { name: 'runner', paths: ['cli/runner/'] },
  { name: 'exposures', paths: ['features/exposures/'] },
  { name: 'acct', paths: ['features/acct/'] },
  { name: 'keeper', paths: ['features/keeper/'] },
  { name: 'plan', paths: ['features/plan/'] },
  { name: 'report', paths: ['features/report/'] },
  { name: 'setup', paths: ['features/setup/'] },
  { name: 'trade', paths: ['features/trade/'] },
  { name: 'write path', paths: ['features/write/'] },
  { name: 'book', paths: ['features/book/'] },
  { name: 'runtime', paths: ['platform/runtime/'] },
  { name: 'results', paths: ['platform/results/'] },
  { name: 'terminal', paths: ['platform/terminal/'] },
  { name: 'fields', paths: ['platform/fields/'] },
  { name: 'api', paths: ['platform/api/'] },
  { name: 'journal, config', paths: ['platform/journal/', 'platform/config/'] },
  { name: 'core', paths: ['core/'] },
  { name: 'security', paths: ['core/security/'] },
  // The simulator: apart from itself, only core/files/; its engine knows nothing of the HTTP over it.
  { name: 'sandbox http', paths: ['sandbox/http/'] },
  { name: 'sandbox', paths: ['sandbox/'] },
  // The one file lock waits with the one sleep and poll.
  { name: 'files', paths: ['core/files/', 'core/process/timers.ts'] },
  { name: 'errors', paths: ['core/errors.ts', 'core/version.ts', 'core/program.ts'] },
];

/** The layer of a path relative to src/; the most specific prefix wins. */
export function layerOf(path) {
  let best;
  LAYERS.forEach((layer, rank) => {
    for (const prefix of layer.paths) {
      if (path.startsWith(prefix) && (!best || prefix.length > best.prefix.length))
        best = { name: layer.name, rank, prefix };
    }
  });
  if (!best) throw new Error(`src/${path} is in no layer of scripts/layers.mjs: add its folder to LAYERS`);
  return { name: best.name, rank: best.rank };
}

const root = resolve(import.meta.dirname, '..');

/** madge's graph of src/ with the project's .madgerc (type imports and lazy import() included). */
export async function importGraph() {
  const config = JSON.parse(readFileSync(resolve(root, '.madgerc'), 'utf8'));
  const result = await madge(resolve(root, 'src'), { ...config, tsConfig: resolve(root, config.tsConfig) });
  return result;
}

/** Every import from a lower layer to a higher one, as `from -> to (layer up to layer)`. */
export function climbsIn(graph) {
  const climbs = [];
  for (const [from, targets] of Object.entries(graph)) {
    for (const to of targets) {
      if (to.startsWith('..')) continue; // package.json, read by version.ts
      const a = layerOf(from);
      const b = layerOf(to);
      if (b.rank < a.rank) climbs.push(`${from} -> ${to} (${a.name} up to ${b.name})`);
    }
  }
  return climbs.sort();
}

/**
 * Imports the layer order allows that a rule forbids: a feature's flows return outcomes and never
 * print, so in a feature room only its views (`*-view.ts`, `*-model.ts`, `report-html.ts`) use the
 * terminal kit, the field lists or the result views; a flow may import an outcome's type (`*-types.ts`).
 */
export const FORBIDDEN = [
  {
    from: /^features\/[a-z]+\/(?!.*-(view|model|html)\.ts$)/,
    to: /^platform\/(terminal|fields|results)\/(?!.*-types\.ts$)/,
    why: 'flows return outcomes; views and commands render them',
  },
];

/** Every import a FORBIDDEN rule names, as `from -> to (why)`. */
export function forbiddenIn(graph) {
  const found = [];
  for (const [from, targets] of Object.entries(graph)) {
    for (const to of targets) {
      for (const rule of FORBIDDEN)
        if (rule.from.test(from) && rule.to.test(to)) found.push(`${from} -> ${to} (${rule.why})`);
    }
  }
  return found.sort();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await importGraph();
  const climbs = climbsIn(result.obj());
  const forbidden = forbiddenIn(result.obj());
  const cycles = result.circular().map((cycle) => cycle.join(' > '));
  for (const line of [...climbs, ...forbidden, ...cycles]) console.log(line);
  console.log(
    `${climbs.length} imports climb back up a layer; ${forbidden.length} forbidden imports; ${cycles.length} import cycles.`,
  );
  process.exitCode = climbs.length + forbidden.length + cycles.length > 0 ? 1 : 0;
}
