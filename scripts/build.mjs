// Builds dist/ from src/ in two parts, chosen by measurement (bench/results.md):
//
//   dist/cli.cjs  the front door: argument parsing, --help and --version. CommonJS, with commander
//                 bundled in and nothing else: a CommonJS entry skips the start-up of Node's ESM
//                 loader, which on Node 20 costs about as much as everything else `hedge --help`
//                 does.
//   dist/*.js     what a command runs: one ESM entry per module the front imports lazily (the
//                 runner and each command), with every dependency bundled in and shared code split
//                 into chunk-*.js, so a command loads a few files instead of hundreds.
//   dist/hedge.1  the manual page, generated from the command specs (scripts/man-page.mjs).
//
// Nothing in dist/ loads a package at run time (checkNoPackageAtRunTime): the tarball declares no
// dependency, so `npm install -g` of it downloads nothing.
//
// Every local module exists exactly once in dist/: the ESM side reaches the front's few modules
// (the manifest, the vocabulary, the version) through dist/cli.cjs itself, so both halves share
// one instance, and the build fails if a module lands in both (checkNoModuleTwice). The front
// holds no state: error classes and the secret registry live on the ESM side only.
//
// `node scripts/build.mjs` builds dist/; bench/ imports buildDist() to rebuild variants.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { builtinModules } from 'node:module';
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
 * The slimming steps of issue 15 can each be turned off, so that bench/ can rebuild what each
 * bought (bench/lib/builds.mjs); `npm run build` uses the defaults.
 * @param {object} [options]
 * @param {string} [options.outdir]  relative to the repository, or absolute (default dist)
 * @param {boolean} [options.lazyChildProcess]  load node:child_process on commander's first use of it (default true)
 * @param {boolean} [options.slimUndici]  bundle only the pieces of undici hedge uses (default true)
 * @param {boolean} [options.zodLocales]  keep zod's 60-odd locales (default false: English only)
 * @param {import('esbuild').Plugin[]} [options.plugins]  more plugins for the ESM side (bench/ rebuilds earlier states of src/ with them)
 */
export async function buildDist({ outdir = 'dist', lazyChildProcess = true, slimUndici = true, zodLocales = false, plugins = [], manPage = true } = {}) {
  const target = isAbsolute(outdir) ? outdir : join(ROOT, outdir);
  // Built beside the target and swapped in at the end, so that a hedge process started meanwhile
  // (another test run, a shell) never finds dist/ half-written or missing.
  const out = `${target}.building-${process.pid}`;
  rmSync(out, { recursive: true, force: true });
  try {
    await buildInto(out, { lazyChildProcess, slimUndici, zodLocales, plugins });
    // In a process of its own: it loads the built front and exit-code table, which must not stay
    // cached here (bench/ builds several variants in one process).
    if (manPage) execFileSync(process.execPath, [join(ROOT, 'scripts', 'man-page.mjs'), out], { stdio: 'inherit' });
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

async function buildInto(out, { lazyChildProcess, slimUndici, zodLocales, plugins }) {
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
    plugins: [
      frontModulesFromFront(frontModules),
      ...(slimUndici ? [undiciSlice(), undiciHttp2OnFirstUse, undiciWithoutFormData, undiciAssertOnFailure] : []),
      ...(zodLocales ? [] : [zodEnglishOnly]),
      pgNativeNeverLoaded,
      ...plugins,
    ],
  });
  checkNoModuleTwice(frontModules, localInputs(lazy.metafile));
  checkNoPackageAtRunTime([front.metafile, lazy.metafile]);
  if (slimUndici && !zodLocales) checkNothingUnused(Object.keys(lazy.metafile.inputs));
}

/**
 * Every import or require left in the output (not bundled) names a Node built-in or a file of
 * dist/ itself: a package required at run time would need the tarball to declare it.
 */
export function checkNoPackageAtRunTime(metafiles) {
  const strays = new Set();
  for (const metafile of metafiles) {
    for (const output of Object.values(metafile.outputs)) {
      for (const { path, external } of output.imports) {
        if (!external || path.startsWith('node:') || path.startsWith('./') || path.startsWith('../') || builtinModules.includes(path)) continue;
        strays.add(path);
      }
    }
  }
  if (strays.size > 0) throw new Error(`dist/ would load these packages at run time instead of bundling them: ${[...strays].join(', ')}.`);
}

/**
 * pg (the team store's client) offers a libpq binding behind its `native` getter, which requires
 * the optional package pg-native inside a try. hedge never asks for it: the bundle gets a stand-in
 * that fails the way a missing package would, so nothing is left to load at run time.
 */
const pgNativeNeverLoaded = {
  name: 'pg-native-never-loaded',
  setup(builder) {
    builder.onResolve({ filter: /^pg-native$/ }, () => ({ path: 'pg-native', namespace: 'absent' }));
    builder.onLoad({ filter: /.*/, namespace: 'absent' }, () => ({
      contents: "throw Object.assign(new Error('pg-native is not part of hedge'), { code: 'MODULE_NOT_FOUND' });",
      loader: 'js',
    }));
  },
};

/** Local source files the front may contain: stateless data and the argument parsing. */
const FRONT_MODULES = [
  'src/cli/main.ts',
  'src/cli/manifest.ts',
  'src/cli/command-spec.ts',
  'src/cli/globals.ts',
  'src/cli/help.ts',
  'src/domain/vocabulary.ts',
  'src/version.ts',
  // Each command's declaration, beside its code (the code itself is loaded lazily).
  'src/commands/spec-parts.ts',
  'src/commands/account.spec.ts',
  'src/commands/add.spec.ts',
  'src/commands/api.spec.ts',
  'src/commands/apply.spec.ts',
  'src/commands/close.spec.ts',
  'src/commands/completion.spec.ts',
  'src/commands/demo-reset.spec.ts',
  'src/commands/doctor.spec.ts',
  'src/commands/hedges.spec.ts',
  'src/commands/history.spec.ts',
  'src/commands/journal-list.spec.ts',
  'src/commands/journal-migrate.spec.ts',
  'src/commands/journal-resolve.spec.ts',
  'src/commands/journal-show.spec.ts',
  'src/commands/keep.spec.ts',
  'src/commands/login.spec.ts',
  'src/commands/logout.spec.ts',
  'src/commands/markets.spec.ts',
  'src/commands/maturities.spec.ts',
  'src/commands/mcp.spec.ts',
  'src/commands/open.spec.ts',
  'src/commands/plan.spec.ts',
  'src/commands/positions.spec.ts',
  'src/commands/price.spec.ts',
  'src/commands/profile-list.spec.ts',
  'src/commands/profile-remove.spec.ts',
  'src/commands/profile-reset-wire.spec.ts',
  'src/commands/profile-use.spec.ts',
  'src/commands/quote.spec.ts',
  'src/commands/reduce.spec.ts',
  'src/commands/report.spec.ts',
  'src/commands/resume.spec.ts',
  'src/commands/roll.spec.ts',
  'src/commands/sandbox-serve.spec.ts',
  'src/commands/tools.spec.ts',
  'src/commands/whoami.spec.ts',
];

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

// ---- issue 15: load only what is used ----------------------------------------------------------

const UNDICI_DIR = join(ROOT, 'node_modules', 'undici');

/**
 * `import … from 'undici'` in src/ gets this slice of undici instead of its index.js, which loads
 * everything the package offers: fetch, WebSocket, EventSource, the cache and cookie APIs, the mock
 * agents, every interceptor. hedge uses `request` and `EnvHttpProxyAgent` (with the Agent, Pool,
 * Client and ProxyAgent behind it). The same GET in a script costs ~3× the CPU of a `node:http`
 * one with undici whole, ~1.5× with this slice (bench/results.md); and undici's cookies module
 * reads `globalThis.Headers`, which makes Node load its own internal copy of undici too.
 *
 * `request` is index.js's `makeDispatcher(api.request)` rewritten here (it is not exported on its
 * own). The named exports are explicit: importing anything else from 'undici' in src/ fails the
 * build ("No matching export") instead of quietly getting undefined. The files named here are
 * undici's own; an update that moves them fails the build too, never a run.
 *
 * It also sets V8's `--liftoff-only` just before the first request: undici parses HTTP with a
 * WebAssembly build of llhttp, compiled on the first connection, which V8 would compile a second
 * time with its optimising compiler in background threads (~60 ms of CPU and ~35 MiB of peak
 * memory, and the exit waits for it). Set any earlier, the flag costs more than it saves: V8
 * rejects Node's cached code for its own modules once a flag has changed, so every Node module
 * loaded after it is compiled from source (~30 ms for those undici needs).
 */
const UNDICI_SLICE = `
import Dispatcher from './lib/dispatcher/dispatcher.js';
import api from './lib/api/index.js';
import util from './lib/core/util.js';
import errors from './lib/core/errors.js';
import EnvHttpProxyAgent from './lib/dispatcher/env-http-proxy-agent.js';
import { setFlagsFromString } from 'node:v8';

// As undici's index.js does: dispatchers get request/stream/pipeline/connect/upgrade as methods
// (ProxyAgent tunnels HTTPS through a proxy with \`connect\`).
Object.assign(Dispatcher.prototype, api);

let liftoffOnly = false;

export function request(url, opts, handler) {
  if (!liftoffOnly) {
    liftoffOnly = true;
    setFlagsFromString('--liftoff-only');
  }
  if (typeof opts === 'function') {
    handler = opts;
    opts = null;
  }
  if (!url || (typeof url !== 'string' && typeof url !== 'object' && !(url instanceof URL))) {
    throw new errors.InvalidArgumentError('invalid url');
  }
  if (opts != null && typeof opts !== 'object') throw new errors.InvalidArgumentError('invalid opts');
  if (opts && opts.path != null) {
    if (typeof opts.path !== 'string') throw new errors.InvalidArgumentError('invalid opts.path');
    const path = opts.path.startsWith('/') ? opts.path : '/' + opts.path;
    url = new URL(util.parseOrigin(url).origin + path);
  } else {
    if (!opts) opts = typeof url === 'object' ? url : {};
    url = util.parseURL(url);
  }
  if (opts.agent) throw new errors.InvalidArgumentError('unsupported opts.agent. Did you mean opts.client?');
  const dispatcher = opts.dispatcher ?? require('./lib/global.js').getGlobalDispatcher();
  return api.request.call(
    dispatcher,
    { ...opts, origin: url.origin, path: url.search ? url.pathname + url.search : url.pathname, method: opts.method || (opts.body ? 'PUT' : 'GET') },
    handler,
  );
}

export { EnvHttpProxyAgent };
`;

/** For `import … from 'undici'` in files under `importers` (src/; bench/ builds scripts of its own with it). */
export function undiciSlice(importers = join(ROOT, 'src')) {
  return {
    name: 'undici-slice',
    setup(builder) {
      builder.onResolve({ filter: /^undici$/ }, (args) => (args.importer.startsWith(importers) ? { path: 'undici', namespace: 'undici-slice' } : undefined));
      builder.onLoad({ filter: /.*/, namespace: 'undici-slice' }, () => ({ contents: UNDICI_SLICE, loader: 'js', resolveDir: UNDICI_DIR }));
    },
  };
}

/**
 * undici's HTTP/2 client requires node:http2 (which loads tls and crypto) as it loads, for
 * servers that speak HTTP/2 when `allowH2` is set, which hedge never sets. Its one export (a
 * function) is handed over as a stand-in that loads the real module when it is first called.
 */
export const undiciHttp2OnFirstUse = {
  name: 'undici-http2-on-first-use',
  setup(builder) {
    builder.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) =>
      args.importer === join(UNDICI_DIR, 'lib/dispatcher/client.js')
        ? { path: join(UNDICI_DIR, 'lib/dispatcher/client-h2.js'), namespace: 'undici-h2-stand-in' }
        : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: 'undici-h2-stand-in' }, () => ({
      contents: "let real; module.exports = function connectH2(...args) { return (real ??= require('./client-h2.js'))(...args); };",
      loader: 'js',
      resolveDir: join(UNDICI_DIR, 'lib/dispatcher'),
    }));
    // The stand-in's own require is the real file.
    builder.onResolve({ filter: /^\.\/client-h2\.js$/, namespace: 'undici-h2-stand-in' }, () => ({ path: join(UNDICI_DIR, 'lib/dispatcher/client-h2.js') }));
  },
};

/**
 * undici checks its invariants with `assert(value)` (the only form it uses), and loading node:assert
 * costs ~2 ms (its error classes, diffing and colours). The stand-in loads it only when a check fails,
 * to throw the very same AssertionError.
 */
export const undiciAssertOnFailure = {
  name: 'undici-assert-on-failure',
  setup(builder) {
    builder.onResolve({ filter: /^(node:)?assert$/ }, (args) =>
      args.importer.startsWith(join(UNDICI_DIR, 'lib/')) ? { path: 'assert', namespace: 'undici-assert-on-failure' } : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: 'undici-assert-on-failure' }, () => ({
      contents: "module.exports = function assert(value, message) { if (!value) require('node:assert')(value, message); };",
      loader: 'js',
    }));
  },
};

/**
 * The HTTP/1 and HTTP/2 clients reach into fetch's body code only to send a FormData body, which
 * hedge never sends (its bodies are JSON strings); bundled, it would bring fetch's machinery along.
 */
export const undiciWithoutFormData = {
  name: 'undici-without-form-data',
  setup(builder) {
    builder.onResolve({ filter: /^\.\.\/web\/fetch\/body\.js$/ }, (args) =>
      args.importer.startsWith(join(UNDICI_DIR, 'lib/dispatcher/')) ? { path: 'form-data-body', namespace: 'undici-no-form-data' } : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: 'undici-no-form-data' }, () => ({
      contents: "exports.extractBody = () => { throw new Error('hedge sends no FormData bodies (scripts/build.mjs)'); };",
      loader: 'js',
    }));
  },
};

/**
 * zod ships 60-odd locales of its error messages (~370 KB, ~7 ms per run) and `import { z }`
 * bundles every one of them. hedge's messages are English: only `en` is kept, which zod itself
 * installs as it loads. `z.locales.de` and the like are undefined in the build.
 */
export const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(builder) {
    builder.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes('/node_modules/zod/') ? { path: 'locales', namespace: 'zod-english-only', pluginData: args.resolveDir } : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, (args) => ({
      contents: "export { default as en } from '../locales/en.js';",
      loader: 'js',
      resolveDir: args.pluginData,
    }));
  },
};

/** What the slimming above leaves out; the build fails if any of it comes back. */
const UNUSED_INPUTS = [
  /node_modules\/undici\/lib\/web\//,
  /node_modules\/undici\/lib\/mock\//,
  /node_modules\/undici\/lib\/cache\//,
  /node_modules\/undici\/lib\/interceptor\//,
  /node_modules\/undici\/index\.js$/,
  /node_modules\/zod\/v4\/locales\/(?!en\.js$)/,
];

/** The build check for issue 15: fetch, WebSocket, caches, cookies, mocks and zod's other locales stay out. */
export function checkNothingUnused(inputs) {
  const back = inputs.filter((input) => UNUSED_INPUTS.some((pattern) => pattern.test(input)));
  if (back.length > 0) {
    throw new Error(`dist/ must not bundle what hedge does not use, but it bundles ${back.slice(0, 5).join(', ')}${back.length > 5 ? ` and ${back.length - 5} more` : ''}: see scripts/build.mjs.`);
  }
}

function packageOf(input) {
  const at = input.lastIndexOf('node_modules/');
  if (at < 0) return [];
  const path = input.slice(at + 'node_modules/'.length).split('/');
  return [path[0].startsWith('@') ? `${path[0]}/${path[1]}` : path[0]];
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) await buildDist();
