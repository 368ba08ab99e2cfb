// The one esbuild configuration of dist/, shared by scripts/build.mjs (dist/) and
// scripts/sea.mjs (the single executable's main), so that neither script imports the other for it.
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Optional packages a dependency asks for inside a try, which hedge never uses (pg's libpq binding). */
const NEVER_LOADED = ['pg-native'];

/**
 * ES-module packages that neither main job runs (a prompt, a spinner, a redrawn screen, a write to the config store,
 * the MCP server): each is imported by src/ only through an `import()`, built apart into dist/lazy/ and read from
 * there when that import runs, so that the one script's start neither reads nor compiles them. Specifier → file.
 */
const APART = {
  ora: 'ora',
  'log-update': 'log-update',
  '@inquirer/prompts': 'prompts',
  conf: 'conf',
  '@modelcontextprotocol/sdk/server/index.js': 'mcp-server',
  '@modelcontextprotocol/sdk/server/stdio.js': 'mcp-stdio',
  '@modelcontextprotocol/sdk/types.js': 'mcp-types',
};

/**
 * The one esbuild configuration of dist/; `apart: false` keeps the packages of APART in the one script (the single
 * executable's main, which is one file).
 */
export function esbuildOptions(outdir, { apart = true } = {}) {
  return {
    absWorkingDir: ROOT,
    entryPoints: { cli: 'src/cli/main.ts', reference: 'src/cli/reference.ts' },
    outdir,
    bundle: true,
    // One script, not split at each import(): a module behind a loader's import() still runs only when that
    // import does, and a start reads one file and its compile cache instead of resolving a chain of chunks.
    splitting: false,
    // Fewer bytes to read, hash and decode at each start; names kept, for what shows a class's or function's name.
    minify: true,
    keepNames: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
    external: NEVER_LOADED,
    // Bundled CommonJS packages call require(); an ES module has to make one (without an ES import of node:module).
    banner: {
      js: 'const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);',
    },
    plugins: [cliTable3MeasuresLikeUs, builtinsOnFirstUse, ...(apart ? [packagesApart] : [])],
  };
}

/**
 * The second build of dist/: the packages of APART, each an entry of dist/lazy/ (what they share in chunks beside
 * them, so that each module has one instance), with the one script's minifying and built-ins.
 */
export function apartOptions(outdir) {
  const options = esbuildOptions(join(outdir, 'lazy'), { apart: false });
  return {
    ...options,
    entryPoints: Object.fromEntries(Object.entries(APART).map(([specifier, file]) => [file, specifier])),
    splitting: true,
    chunkNames: 'chunk-[hash]',
    plugins: [builtinsOnFirstUse],
  };
}

/** An `import()` of a package of APART loads its file of dist/lazy/; any other import of one fails the build. */
const packagesApart = {
  name: 'packages-apart',
  setup(builder) {
    const names = Object.keys(APART).map((name) => name.replace(/[./]/g, '\\$&'));
    builder.onResolve({ filter: new RegExp(`^(${names.join('|')})$`) }, (args) =>
      args.kind === 'dynamic-import'
        ? { path: `./lazy/${APART[args.path]}.js`, external: true }
        : { errors: [{ text: `${args.path} is kept apart in dist/lazy/: import it with import(), not ${args.kind}` }] },
    );
  },
};

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

/**
 * An ES import of a Node built-in is hoisted to the top of the one bundle, so every command would load every built-in
 * any module imports (node:crypto, node:child_process, …), and an ES import builds a facade that reads each export
 * (`node:process` loads fs/promises, readline and report). Each is taken instead by `process.getBuiltinModule` as a
 * CommonJS module of the bundle: loaded when the module that imports it first runs, its exports read when used.
 */
const builtinsOnFirstUse = {
  name: 'builtins-on-first-use',
  setup(builder) {
    const names = new Set(builtinModules.filter((name) => !name.startsWith('_')));
    builder.onResolve({ filter: /^(node:)?[a-z_/]+$/ }, (args) => {
      const name = args.path.replace(/^node:/, '');
      if (args.kind === 'require-call' || !(args.path.startsWith('node:') || names.has(name))) return undefined;
      return { path: `node:${name}`, namespace: 'node-builtin' };
    });
    builder.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => ({
      contents: `module.exports = process.getBuiltinModule(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};
