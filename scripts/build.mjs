// Builds dist/ from src/ in two parts, chosen by measurement (bench/results.md):
//
//   dist/cli.cjs  the front door: argument parsing, --help and --version. CommonJS, with commander
//                 bundled in and nothing else: a CommonJS entry skips the start-up of Node's ESM
//                 loader, which on Node 20 costs about as much as everything else `hedge --help`
//                 does.
//   dist/*.js     what a command runs: one ESM entry per module the front imports lazily (the
//                 runner and each command), with every dependency bundled in and shared code split
//                 into chunk-*.js, so a command loads a few files instead of hundreds.
//
// Every local module exists exactly once in dist/: the ESM side reaches the front's few modules
// (the manifest, the vocabulary, the version) through dist/cli.cjs itself, so both halves share
// one instance, and the build fails if a module lands in both (checkNoModuleTwice). The front
// holds no state: error classes and the secret registry live on the ESM side only.
//
// `node scripts/build.mjs` builds dist/; bench/ imports buildDist() to rebuild variants.
import { build } from 'esbuild';
import { realpathSync, renameSync, rmSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The only package the front may contain; anything else belongs behind a lazy import. */
const FRONT_PACKAGES = ['commander'];
/** Bundled CommonJS dependencies call require(); in an ES module it has to be made. */
export const CREATE_REQUIRE_BANNER =
  "import { createRequire as __hedgeCreateRequire } from 'node:module'; const require = __hedgeCreateRequire(import.meta.url);";

/**
 * @param {object} [options]
 * @param {string} [options.outdir]  relative to the repository, or absolute (default dist)
 * @param {boolean} [options.lazyChildProcess]  load node:child_process on commander's first use of it (default true)
 */
export async function buildDist({ outdir = 'dist', lazyChildProcess = true } = {}) {
  const target = isAbsolute(outdir) ? outdir : join(ROOT, outdir);
  // Built beside the target and swapped in at the end, so that a hedge process started meanwhile
  // (another test run, a shell) never finds dist/ half-written or missing.
  const out = `${target}.building-${process.pid}`;
  rmSync(out, { recursive: true, force: true });
  try {
    await buildInto(out, lazyChildProcess);
    const old = `${target}.old-${process.pid}`;
    try {
      renameSync(target, old);
    } catch (error) {
      if (error.code !== 'ENOENT') throw error;
    }
    renameSync(out, target);
    rmSync(old, { recursive: true, force: true });
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

async function buildInto(out, lazyChildProcess) {
  const common = {
    absWorkingDir: ROOT,
    bundle: true,
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
    metafile: true,
  };

  const lazyEntries = new Set();
  const front = await build({
    ...common,
    entryPoints: ['src/cli/main.ts'],
    outfile: join(out, 'cli.cjs'),
    format: 'cjs',
    plugins: [lazyImportsStayOutside(lazyEntries), ...(lazyChildProcess ? [childProcessOnFirstUse] : [])],
  });
  const strays = [...new Set(Object.keys(front.metafile.inputs).flatMap(packageOf))].filter((name) => !FRONT_PACKAGES.includes(name));
  if (strays.length > 0) {
    throw new Error(`dist/cli.cjs must stay small, but it bundles ${strays.join(', ')}: import these lazily.`);
  }

  const frontModules = localInputs(front.metafile);
  const strayLocals = [...frontModules].filter((path) => !FRONT_MODULES.some((allowed) => path.startsWith(allowed)));
  if (strayLocals.length > 0) {
    throw new Error(`dist/cli.cjs must hold no state, but it bundles ${strayLocals.join(', ')}: import these lazily.`);
  }
  const lazy = await build({
    ...common,
    entryPoints: Object.fromEntries([...lazyEntries].sort().map((path) => [entryName(path), path])),
    outdir: out,
    chunkNames: 'chunk-[hash]',
    splitting: true,
    format: 'esm',
    banner: { js: CREATE_REQUIRE_BANNER },
    plugins: [frontModulesFromFront(frontModules)],
  });
  checkNoModuleTwice(frontModules, localInputs(lazy.metafile));
}

/** Local source files the front may contain: stateless data and the argument parsing. */
const FRONT_MODULES = ['src/cli/main.ts', 'src/cli/manifest.ts', 'src/cli/command-spec.ts', 'src/cli/globals.ts', 'src/domain/vocabulary.ts', 'src/version.ts'];

/** `src/commands/login.ts` → `commands-login`: flat in dist/ (so `./cli.cjs` resolves from every file) and unique. */
export function entryName(path) {
  return relative('src', path).replace(/\.ts$/, '').split(/[\\/]/).join('-');
}

function localInputs(metafile) {
  return new Set(Object.keys(metafile.inputs).filter((input) => input.startsWith('src/')));
}

/** The build check: a module in both halves would exist twice at run time (two registries, two classes). */
export function checkNoModuleTwice(front, lazy) {
  const twice = [...lazy].filter((path) => front.has(path));
  if (twice.length > 0) throw new Error(`These modules would exist twice in dist/ (front and chunks): ${twice.join(', ')}.`);
}

/**
 * An ESM module importing one of the front's modules gets it from the loaded dist/cli.cjs (which
 * re-exports them), through `require` so that it is the very instance the launcher loaded.
 */
function frontModulesFromFront(frontModules) {
  return {
    name: 'front-modules-from-front',
    setup(builder) {
      builder.onResolve({ filter: /^\.\.?\// }, async (args) => {
        // The inner resolve below comes back through here: let esbuild answer it.
        if (args.pluginData === 'front-check' || args.namespace === 'front') return undefined;
        if (args.path === './cli.cjs') return { path: './cli.cjs', external: true };
        const resolved = await builder.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'front-check' });
        if (resolved.errors.length > 0) return undefined;
        const path = relative(ROOT, resolved.path);
        return frontModules.has(path) ? { path, namespace: 'front' } : undefined;
      });
      builder.onLoad({ filter: /.*/, namespace: 'front' }, () => ({ contents: "module.exports = require('./cli.cjs');", loader: 'js' }));
      builder.onResolve({ filter: /^\.\/cli\.cjs$/, namespace: 'front' }, () => ({ path: './cli.cjs', external: true }));
    },
  };
}

/** Every `import('./x.js')` in the front becomes an entry of the ESM build, at dist/x.js. */
function lazyImportsStayOutside(entries) {
  return {
    name: 'lazy-imports-stay-outside',
    setup(builder) {
      builder.onResolve({ filter: /^\.\.?\// }, async (args) => {
        if (args.kind !== 'dynamic-import') return undefined;
        const resolved = await builder.resolve(args.path, { kind: 'import-statement', resolveDir: args.resolveDir });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        const path = relative(ROOT, resolved.path);
        entries.add(path);
        return { path: `./${entryName(path)}.js`, external: true };
      });
    },
  };
}

/**
 * commander requires node:child_process at load, for executable subcommands, which hedge does
 * not have; loading it costs ~2 ms of every `hedge --help`. This hands commander a stand-in
 * that loads the real module the first time anything on it is used.
 */
const childProcessOnFirstUse = {
  name: 'child-process-on-first-use',
  setup(builder) {
    builder.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      args.importer.includes('node_modules/commander/') ? { path: 'child_process', namespace: 'on-first-use' } : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: 'on-first-use' }, () => ({
      contents: "let real; module.exports = new Proxy({}, { get: (_, key) => (real ??= require('node:child_process'))[key] });",
      loader: 'js',
    }));
  },
};

function packageOf(input) {
  const at = input.lastIndexOf('node_modules/');
  if (at < 0) return [];
  const path = input.slice(at + 'node_modules/'.length).split('/');
  return [path[0].startsWith('@') ? `${path[0]}/${path[1]}` : path[0]];
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) await buildDist();
