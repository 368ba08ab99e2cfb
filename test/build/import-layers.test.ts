// The rules of the import graph (scripts/layers.mjs, which `npm test` runs over src/ beside the type
// check): no cycle, no import from a lower room back up to a higher one, and a feature's flows never
// import the terminal kit or a result view. Here: each rule sees a breach where there is one.

it('the import graph: sees a climb and a cycle where there is one, the simulator engine importing its HTTP layer, and a flow that imports the terminal kit or a result view, a type import included, and lets a view and a flow import outcome types (each rule can fail)', async () => {
  // A non-literal specifier: the script is plain JavaScript, run by node as well.
  const { climbsIn, forbiddenIn, layerOf } = await import(['..', '..', 'scripts', 'layers.mjs'].join('/'));
  expect(layerOf('features/write/write-flow.ts').rank).toBeGreaterThan(layerOf('cli/cmd/trade/open.ts').rank);
  expect(layerOf('features/keeper/keep.ts').rank).toBeLessThan(layerOf('features/trade/roll.ts').rank);
  expect(layerOf('cli/runner/run-command.ts').name).toBe('runner');
  expect(climbsIn({ 'cli/agent/catalogue.ts': ['cli/manifest.ts'], 'cli/manifest.ts': ['cli/cmd/specs.ts'] })).toEqual([
    'cli/agent/catalogue.ts -> cli/manifest.ts (agent up to cli)',
  ]);
  expect(climbsIn({ 'features/book/watch.ts': ['features/keeper/keep.ts'] })).toEqual([
    'features/book/watch.ts -> features/keeper/keep.ts (book up to keeper)',
  ]);
  expect(
    climbsIn({
      'sandbox/engine.ts': ['sandbox/http/routes.ts', 'sandbox/book.ts'],
      'sandbox/http/http-engine.ts': ['sandbox/engine.ts'],
      'sandbox/http/serve.ts': ['sandbox/http/server.ts'],
    }),
  ).toEqual(['sandbox/engine.ts -> sandbox/http/routes.ts (sandbox up to sandbox http)']);
  // madge lists a type import as an edge like any other (.madgerc: skipTypeImports false).
  const graph = {
    'features/trade/roll.ts': [
      'platform/results/roll-view.ts',
      'platform/results/roll-outcome-types.ts',
      'platform/terminal/output.ts',
    ],
    'features/book/positions-view.ts': ['platform/terminal/table.ts', 'platform/fields/fields.ts'],
    'platform/results/roll-view.ts': ['platform/results/roll-outcome-types.ts'],
    'cli/cmd/trade/roll.ts': ['platform/results/roll-view.ts'],
  };
  expect(forbiddenIn(graph)).toEqual([
    'features/trade/roll.ts -> platform/results/roll-view.ts (flows return outcomes; views and commands render them)',
    'features/trade/roll.ts -> platform/terminal/output.ts (flows return outcomes; views and commands render them)',
  ]);
  expect(climbsIn(graph)).toEqual([]);
});
