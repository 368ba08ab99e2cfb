// The import graph (madge, with type imports and lazy import() counted: .madgerc) has no
// cycle and no import from a lower layer back up to a higher one (the order of docs/architecture.md,
// written down in scripts/layers.mjs, which `npm run layers` also runs). No module of
// flows/ imports ui/ either (flows return outcomes, whose types live in outcomes/).
import { describe, expect, it } from 'vitest';

interface LayersModule {
  importGraph(): Promise<{ obj(): Record<string, string[]>; circular(): string[][] }>;
  climbsIn(graph: Record<string, string[]>): string[];
  forbiddenIn(graph: Record<string, string[]>): string[];
  layerOf(path: string): { name: string; rank: number };
}

// A non-literal specifier: the script is plain JavaScript, run by node as well.
const layers = (): Promise<LayersModule> =>
  import(['..', '..', 'scripts', 'layers.mjs'].join('/')) as Promise<LayersModule>;

describe('the import graph', () => {
  it('has no import cycle and no import that climbs back up a layer', async () => {
    const { importGraph, climbsIn, forbiddenIn } = await layers();
    const graph = await importGraph();
    const cycles = graph.circular().map((cycle) => cycle.join(' > '));
    expect(cycles).toEqual([]);
    expect(climbsIn(graph.obj())).toEqual([]);
    expect(forbiddenIn(graph.obj())).toEqual([]);
    // Every module of src/ is in a layer (layerOf throws for one that is not).
    expect(Object.keys(graph.obj()).length).toBeGreaterThan(200);
  });

  it('sees a climb and a cycle where there is one (the check can fail)', async () => {
    const { climbsIn, layerOf } = await layers();
    expect(layerOf('flows/write-flow.ts').rank).toBeGreaterThan(layerOf('commands/open.ts').rank);
    expect(layerOf('runner/run-command.ts').name).toBe('runner');
    expect(
      climbsIn({ 'agent/catalogue.ts': ['cli/manifest.ts'], 'cli/manifest.ts': ['commands/open.spec.ts'] }),
    ).toEqual(['agent/catalogue.ts -> cli/manifest.ts (agent up to cli)']);
  });

  it('sees a flow that imports ui/, a type import included, and lets ui import the outcomes (the rule can fail)', async () => {
    const { climbsIn, forbiddenIn, layerOf } = await layers();
    // madge lists a type import as an edge like any other (.madgerc: skipTypeImports false).
    const graph = {
      'flows/roll.ts': ['ui/roll-view.ts', 'outcomes/roll.ts'],
      'ui/roll-view.ts': ['outcomes/roll.ts'],
      'commands/roll.ts': ['ui/roll-view.ts'],
    };
    expect(forbiddenIn(graph)).toEqual([
      'flows/roll.ts -> ui/roll-view.ts (flows return outcomes; the command renders them)',
    ]);
    expect(climbsIn(graph)).toEqual([]);
    expect(layerOf('outcomes/roll.ts').rank).toBeGreaterThan(layerOf('ui/roll-view.ts').rank);
    expect(climbsIn({ 'outcomes/roll.ts': ['ui/roll-view.ts'] })).toEqual([
      'outcomes/roll.ts -> ui/roll-view.ts (flow outcomes up to ui)',
    ]);
  });
});
