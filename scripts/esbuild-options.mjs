// The one esbuild configuration of dist/, shared by scripts/build.mjs (dist/) and
// scripts/sea.mjs (the single executable's main), so that neither script imports the other for it.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Optional packages a dependency asks for inside a try, which hedge never uses (pg's libpq binding). */
const NEVER_LOADED = ['pg-native'];

/** The one esbuild configuration of dist/. */
export function esbuildOptions(outdir) {
  return {
    absWorkingDir: ROOT,
    entryPoints: { cli: 'src/cli/main.ts', reference: 'src/cli/reference.ts' },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    chunkNames: 'chunk-[hash]',
    sourcemap: 'linked',
    logLevel: 'warning',
    external: NEVER_LOADED,
    // Bundled CommonJS packages call require(); an ES module has to make one.
    banner: {
      js: "import { createRequire as __hedgeRequire } from 'node:module'; const require = __hedgeRequire(import.meta.url);",
    },
    plugins: [cliTable3MeasuresLikeUs],
  };
}

/**
 * cli-table3 (src/platform/terminal/table.ts draws every terminal table with it) measures each cell with its own
 * string-width@4, which follows older rules than src/platform/terminal/width.ts. In dist/ it measures with
 * width.ts's displayWidth, so the table's layout (ours) and its drawing (cli-table3's) agree on
 * every width. A public package name, resolved for one importer: no file of cli-table3 is named.
 */
const cliTable3MeasuresLikeUs = {
  name: 'cli-table3-measures-like-us',
  setup(builder) {
    builder.onResolve({ filter: /^string-width$/ }, (args) =>
      /[\\/]node_modules[\\/]cli-table3[\\/]/.test(args.importer)
        ? { path: 'string-width', namespace: 'cli-table3-width' }
        : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: 'cli-table3-width' }, () => ({
      contents: `module.exports = require(${JSON.stringify(join(ROOT, 'src', 'platform', 'terminal', 'width.ts'))}).displayWidth;`,
      loader: 'js',
      resolveDir: ROOT,
    }));
  },
};
