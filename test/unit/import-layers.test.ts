// Issue 37: the import graph (madge, with type imports and lazy import() counted: .madgerc) has no
// cycle and no import from a lower layer back up to a higher one (the order of docs/architecture.md,
// written down in scripts/layers.mjs, which `npm run layers` also runs).
import { describe, expect, it } from 'vitest';

interface LayersModule {
  importGraph(): Promise<{ obj(): Record<string, string[]>; circular(): string[][] }>;
  climbsIn(graph: Record<string, string[]>): string[];
  layerOf(path: string): { name: string; rank: number };
}

// A non-literal specifier: the script is plain JavaScript, run by node as well.
const layers = (): Promise<LayersModule> => import(['..', '..', 'scripts', 'layers.mjs'].join('/')) as Promise<LayersModule>;

describe('the import graph', () => {
  it('has no import cycle and no import that climbs back up a layer', async () => {
    const { importGraph, climbsIn } = await layers();
    const graph = await importGraph();
    const cycles = graph.circular().map((cycle) => cycle.join(' > '));
    expect(cycles).toEqual([]);
    expect(climbsIn(graph.obj())).toEqual([]);
    // Every module of src/ is in a layer (layerOf throws for one that is not).
    expect(Object.keys(graph.obj()).length).toBeGreaterThan(200);
  }, 60_000);

  it('sees a climb and a cycle where there is one (the check can fail)', async () => {
    const { climbsIn, layerOf } = await layers();
    expect(layerOf('flows/write-flow.ts').rank).toBeGreaterThan(layerOf('commands/open.ts').rank);
    expect(layerOf('cli/run-command.ts').name).toBe('runner');
    expect(climbsIn({ 'agent/catalogue.ts': ['cli/manifest.ts'], 'cli/manifest.ts': ['commands/open.spec.ts'] })).toEqual([
      'agent/catalogue.ts -> cli/manifest.ts (agent up to cli)',
    ]);
  });
});
