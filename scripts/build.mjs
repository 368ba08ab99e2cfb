// Builds dist/ from src/ in two parts, chosen by measurement (bench/results.md, bench/notes.md):
//
//   dist/cli.cjs  the front door: argument parsing, --help and --version, with commander bundled
//                 in and nothing else.
//   dist/*.js     what a command runs: one entry per module the front loads lazily (the runner and
//                 each command), every dependency bundled in and shared code split into
//                 chunk-*.js, so a command loads a few files instead of hundreds.
//   dist/hedge.1  the manual page, generated from the command specs (scripts/man-page.mjs).
//
// Nothing in dist/ loads a package at run time (checkNoPackageAtRunTime): the tarball declares no
// dependency, so `npm install -g` of it downloads nothing.
//
// Everything in dist/ is CommonJS (issue 31). esbuild splits shared code only for ES modules, so
// the lazy side is bundled as ES modules in memory and each file is then turned into CommonJS
// (`import()` of a dist/ file becomes a `require` in a resolved promise). CommonJS because that
// is what V8's code cache can serve on Node 20: bin/code-cache.js compiles every dist/ file with
// `vm.Script` and the cached data of an earlier run, so a start compiles almost nothing; an ES
// module cannot be compiled that way without --experimental-vm-modules. It also skips the start
// of Node's ES module loader (~4 ms). dist/build.json names the build (a hash of every file), so a
// new build never meets an old build's cached code.
//
// Every local module exists exactly once in dist/: the lazy side reaches the front's few modules
// (the manifest, the vocabulary, the version) through dist/cli.cjs itself, so both halves share
// one instance, and the build fails if a module lands in both (checkNoModuleTwice). The front
// holds no state: error classes and the secret registry live on the lazy side only.
//
// `node scripts/build.mjs` builds dist/; `node scripts/build.mjs --sea` builds the single
// executable too (buildSea, scripts/sea.mjs); bench/ imports buildDist() to rebuild variants.
import { build, transform } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { builtinModules } from 'node:module';
import { mkdirSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { copyNativeBindings } from './native-bindings.mjs';

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
 * @param {'cjs' | 'esm'} [options.layout]  'cjs' (default): every file CommonJS, for the code cache;
 *   'esm': the lazy side as ES modules, the layout before issue 31 (bench/ measures it)
 * @param {boolean} [options.pack]  with layout 'cjs': one file per lazily loaded module, its chunks packed in (default true; packFiles)
 * @param {boolean} [options.lazyChildProcess]  load node:child_process on commander's first use of it (default true)
 * @param {boolean} [options.slimUndici]  bundle only the pieces of undici hedge uses (default true)
 * @param {boolean} [options.zodLocales]  keep zod's 60-odd locales (default false: English only)
 * @param {import('esbuild').Plugin[]} [options.plugins]  more plugins for the lazy side (bench/ rebuilds earlier states of src/ with them)
 */
export async function buildDist({ outdir = 'dist', layout = 'cjs', pack = true, lazyChildProcess = true, slimUndici = true, zodLocales = false, plugins = [], manPage = true } = {}) {
  const target = isAbsolute(outdir) ? outdir : join(ROOT, outdir);
  // Built beside the target and swapped in at the end, so that a hedge process started meanwhile
  // (another test run, a shell) never finds dist/ half-written or missing.
  const out = `${target}.building-${process.pid}`;
  rmSync(out, { recursive: true, force: true });
  try {
    await buildInto(out, { layout, pack, lazyChildProcess, slimUndici, zodLocales, plugins });
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

async function buildInto(out, { layout, pack, lazyChildProcess, slimUndici, zodLocales, plugins }) {
  const common = {
    absWorkingDir: ROOT,
    bundle: true,
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
    metafile: true,
  };

  const lazyEntries = new Set();
  const front = await build({
    ...common,
    entryPoints: ['src/cli/main.ts'],
    outfile: join(out, 'cli.cjs'),
    format: 'cjs',
    sourcemap: 'linked',
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
  const cjs = layout === 'cjs';
  const lazy = await build({
    ...common,
    entryPoints: Object.fromEntries([...lazyEntries].sort().map((path) => [entryName(path), path])),
    outdir: out,
    chunkNames: 'chunk-[hash]',
    splitting: true,
    format: 'esm',
    // The CommonJS files get no source maps: esbuild cannot carry a map through the conversion below.
    sourcemap: cjs ? false : 'linked',
    write: !cjs,
    banner: cjs ? {} : { js: CREATE_REQUIRE_BANNER },
    plugins: [
      frontModulesFromFront(frontModules),
      cliTable3MeasuresLikeUs,
      ...(slimUndici ? [undiciSlice(), undiciHttp2OnFirstUse, undiciWithoutFormData, undiciAssertOnFailure] : []),
      ...(zodLocales ? [] : [zodEnglishOnly]),
      pgNativeNeverLoaded,
      ...plugins,
    ],
  });
  checkNoModuleTwice(frontModules, localInputs(lazy.metafile));
  checkNoPackageAtRunTime([front.metafile, lazy.metafile]);
  if (slimUndici && !zodLocales) checkNothingUnused(Object.keys(lazy.metafile.inputs));
  const frontFile = join(out, 'cli.cjs');
  writeFileSync(frontFile, requireLazily(readFileSync(frontFile, 'utf8'), cjs ? lazyEntries.size : 0));
  if (cjs) {
    checkOnlyLocalDynamicImports(lazy.metafile);
    const files = new Map();
    for (const file of lazy.outputFiles) files.set(relative(out, file.path), await commonJsOf(file.text));
    const packed = pack ? packFiles(files, readFileSync(frontFile, 'utf8')) : files;
    for (const [name, code] of packed) writeFileSync(join(out, name), code);
    writeFileSync(join(out, 'package.json'), '{ "type": "commonjs" }\n');
  }
  copyNativeBindings(ROOT, out); // the OS keyring's binding, opened lazily by src/config/os-keyring.ts
  writeBuildId(out);
}

/**
 * A lazy `import('./x.js')` of a dist/ file as a `require` in a resolved promise: the same promise
 * of the module's exports, without Node's ES module loader. `expected` is how many the front has
 * (0 leaves the ES module layout as it is).
 */
function requireLazily(code, expected) {
  if (expected === 0) return code;
  let count = 0;
  const converted = code.replace(/\bimport\((["'])(\.\/[\w.-]+\.js)\1\)/g, (_, quote, path) => {
    count += 1;
    return `Promise.resolve().then(() => require(${quote}${path}${quote}))`;
  });
  if (expected !== undefined && count < expected) throw new Error(`expected at least ${expected} lazy imports to turn into require, found ${count}`);
  return converted;
}

/** `import.meta.url` in a file turned into CommonJS: the file's own URL, as it was. */
const META_URL = '__hedgeImportMetaUrl';

/** One ES module output of esbuild as a CommonJS file (its imports become requires, its exports `module.exports` getters). */
async function commonJsOf(code) {
  const usesMeta = code.includes('import.meta');
  // esbuild marks where each bundled file starts (`// node_modules/undici/lib/…`); the transform
  // keeps only legal comments, so the marks travel as such and are put back after.
  const marked = code.replace(/^(\s*)\/\/ ((?:\.\.\/)*(?:src|node_modules)\/\S+)$/gm, '$1//! hedge-source $2');
  const result = await transform(marked, {
    format: 'cjs',
    loader: 'js',
    platform: 'node',
    target: 'node20',
    logLevel: 'error',
    define: usesMeta ? { 'import.meta.url': META_URL } : {},
    banner: usesMeta ? `var ${META_URL} = require("node:url").pathToFileURL(__filename).href;` : '',
    legalComments: 'inline',
  });
  result.code = result.code
    .replace(/^(\s*)\/\/! hedge-source /gm, '$1// ')
    // esbuild's ES module output calls require through a `__require` shim (a stand-in for when
    // there is none): in CommonJS it is require itself, and a literal require is what a bundler
    // (the single executable's, scripts/sea.mjs) can follow.
    .replace(/\(0, import_chunk_\w+\.__require\)\((?=["'])/g, 'require(')
    .replace(/(?<![\w$.])__require\((?=["'])/g, 'require(');
  if (/\bimport\.meta\b/.test(result.code.replace(/^\s*(\/\/|\*).*$/gm, ''))) throw new Error('import.meta is left in a CommonJS file of dist/');
  return requireLazily(result.code);
}

// ---- packs: one file per lazily loaded module ----------------------------------------------------

/** A static `require("./x.js")` of one dist/ file by another (not a lazy one in a resolved promise). */
const STATIC_LOCAL_REQUIRE = /(?<!then\(\(\) => )\brequire\("\.\/([\w.-]+\.js)"\)/g;
const LAZY_LOCAL_REQUIRE = /then\(\(\) => require\("\.\/([\w.-]+\.js)"\)\)/g;

/**
 * esbuild splits the lazy side into ~100 chunks, and a command loads ~30 of them: each a file to
 * read, a cache to read and a module to make (~0.2 ms apiece, bench/notes.md). Here every module
 * loaded lazily (the runner, each command, each `import()` target) becomes one file, a "pack", that
 * holds the chunks it needs as module factories; a chunk is made once per process however many
 * packs hold it (a registry on globalThis, keyed by chunk name). The runner's pack holds what the
 * runner needs; every other pack leaves those out (the runner is always loaded first: commands run
 * through it), and finds them, should it ever come first, by loading the runner's pack. The
 * front (dist/cli.cjs) is not packed. Returns the files to write, by name.
 */
function packFiles(files, front) {
  const staticDeps = (code) => [...code.matchAll(STATIC_LOCAL_REQUIRE)].map((match) => match[1]).filter((name) => files.has(name));
  const deps = new Map([...files].map(([name, code]) => [name, staticDeps(code)]));
  const entries = new Set(['cli-run.js']);
  for (const code of [front, ...files.values()]) for (const match of code.matchAll(LAZY_LOCAL_REQUIRE)) entries.add(match[1]);
  const closure = (name, seen = new Set()) => {
    if (seen.has(name)) return seen;
    seen.add(name);
    for (const dep of deps.get(name) ?? []) closure(dep, seen);
    return seen;
  };
  const runner = closure('cli-run.js');
  // Loaded by the front itself rather than through the runner: their packs hold everything.
  const beforeRunner = new Set([...front.matchAll(LAZY_LOCAL_REQUIRE)].map((match) => match[1]).filter((name) => !name.startsWith('commands-')));
  const membersOf = (entry) => [...closure(entry)].filter((name) => entry === 'cli-run.js' || beforeRunner.has(entry) || !runner.has(name));
  // A large chunk that several packs would hold (undici, zod) stays a file of its own, read once
  // whichever pack needs it first; a small one is copied into each pack that needs it.
  const holders = new Map();
  for (const entry of entries) for (const name of membersOf(entry)) holders.set(name, (holders.get(name) ?? 0) + 1);
  const alone = new Set([...holders].filter(([name, count]) => count > 1 && !entries.has(name) && files.get(name).length >= SHARED_ALONE_BYTES).map(([name]) => name));
  const packs = new Map();
  const names = [...new Set([...entries, ...alone])].sort();
  for (const entry of names) {
    if (!files.has(entry)) throw new Error(`packFiles: ${entry} is loaded lazily but was not built`);
    const members = alone.has(entry) ? [entry] : membersOf(entry).filter((name) => name === entry || !alone.has(name));
    // Every module the entry needs, its own files' included, is in this pack, in the runner's, or
    // a file of its own (whose needs are this pack's: a file of its own is always required from one).
    if (!alone.has(entry)) {
      for (const needed of closure(entry)) {
        for (const dep of deps.get(needed)) {
          if (!members.includes(dep) && !runner.has(dep) && !alone.has(dep)) throw new Error(`packFiles: ${needed} (for ${entry}) requires ${dep}, which no pack holds`);
        }
      }
    }
    // The entry first; then the rest in name order (the registry makes each when first required).
    const ordered = [entry, ...members.filter((name) => name !== entry).sort()];
    packs.set(entry, packText(entry, ordered, files, names));
  }
  return packs;
}

/** A chunk at least this large that several packs need is not copied into them (packFiles). */
const SHARED_ALONE_BYTES = 64 * 1024;

/** The registry every pack shares (one per process), and the require a packed module gets. */
const packRuntime = (packs) => `var __hedgePacks = globalThis[Symbol.for("hedge.packs")] ??= (() => {
  const PACKS = new Set(${JSON.stringify(packs)});
  const factories = new Map();
  const made = new Map();
  const load = (name, outer, home) => {
    const known = made.get(name);
    if (known) return known.exports;
    const factory = factories.get(name);
    if (factory === undefined) {
      // Kept in the runner's pack: loading that pack defines it.
      if (home === undefined) throw new Error("dist/: " + name + " is in no pack loaded (rebuild with npm run build)");
      outer("./" + home);
      return load(name, outer, undefined);
    }
    const module = { exports: {} };
    made.set(name, module);
    const local = (id) => {
      if (!(typeof id === "string" && id.startsWith("./") && id.endsWith(".js"))) return outer(id);
      const wanted = id.slice(2);
      // Another pack (a module loaded lazily) is its own file; a chunk is in this pack or the runner's.
      if (!made.has(wanted) && !factories.has(wanted) && PACKS.has(wanted)) return outer(id);
      return load(wanted, outer, factory.home);
    };
    factory.make.call(module.exports, module, module.exports, local);
    return module.exports;
  };
  return {
    define(name, make, home) {
      if (!factories.has(name)) factories.set(name, { make, home });
    },
    load,
  };
})();
`;

function packText(entry, members, files, entries) {
  const parts = [`// ${entry}: a pack of ${members.length} module${members.length === 1 ? '' : 's'} (scripts/build.mjs, packFiles)\n"use strict";\n`, packRuntime(entries)];
  // Chunks the runner's pack holds are found there when a pack does not hold them.
  const home = entry === 'cli-run.js' ? undefined : '"cli-run.js"';
  for (const name of members) {
    parts.push(`__hedgePacks.define(${JSON.stringify(name)}, function (module, exports, require) {\n${files.get(name)}\n}, ${home ?? 'undefined'});\n`);
  }
  parts.push(`module.exports = __hedgePacks.load(${JSON.stringify(entry)}, require, undefined);\n`);
  return parts.join('');
}

/**
 * bin/code-cache.js compiles dist/ files with vm.Script: an `import()` left in them would need
 * Node's ES module loader. Every dynamic import must be of a dist/ file (turned into a require).
 */
function checkOnlyLocalDynamicImports(metafile) {
  const external = Object.values(metafile.outputs).flatMap((output) =>
    output.imports.filter((entry) => entry.kind === 'dynamic-import' && entry.external && !/^\.\/[\w.-]+\.js$/.test(entry.path)).map((entry) => entry.path),
  );
  if (external.length > 0) throw new Error(`dist/ must load only its own files with import(), but it imports ${[...new Set(external)].join(', ')}.`);
}

/**
 * dist/build.json: a hash of every file, the key of bin/code-cache.js's cached code (code cached
 * for one build is never offered to another).
 */
function writeBuildId(out) {
  const hash = createHash('sha256');
  for (const name of readdirSync(out).sort()) {
    if (name.endsWith('.map')) continue;
    hash.update(name).update('\0').update(readFileSync(join(out, name))).update('\0');
  }
  writeFileSync(join(out, 'build.json'), `${JSON.stringify({ id: hash.digest('hex').slice(0, 16) })}\n`);
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
  'src/commands/exposures.spec.ts',
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

/**
 * cli-table3 (src/ui/table.ts draws every terminal table with it) measures each cell with
 * string-width@4, which builds a new RegExp on every call and follows older rules than
 * src/ui/width.ts. In dist/ it measures with width.ts's displayWidth instead, so the Table's layout
 * (ours) and its drawing (cli-table3's) agree on every width, and a cell costs one measure, not a
 * regular expression's construction.
 */
const cliTable3MeasuresLikeUs = {
  name: 'cli-table3-measures-like-us',
  setup(builder) {
    builder.onResolve({ filter: /^string-width$/ }, (args) =>
      args.importer.includes('/node_modules/cli-table3/') ? { path: 'string-width', namespace: 'cli-table3-width' } : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: 'cli-table3-width' }, () => ({
      contents: `module.exports = require(${JSON.stringify(join(ROOT, 'src', 'ui', 'width.ts'))}).displayWidth;`,
      loader: 'js',
      resolveDir: ROOT,
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
import Agent from './lib/dispatcher/agent.js';
import apiRequest from './lib/api/api-request.js';
import apiConnect from './lib/api/api-connect.js';
import util from './lib/core/util.js';
import errors from './lib/core/errors.js';
import { setFlagsFromString } from 'node:v8';

// As undici's index.js does, for the two hedge uses: dispatchers get \`request\`, and \`connect\`
// (ProxyAgent tunnels HTTPS through a proxy with it). stream, pipeline and upgrade (and the
// stream machinery they load) stay out.
Object.assign(Dispatcher.prototype, { request: apiRequest, connect: apiConnect });

/**
 * undici's EnvHttpProxyAgent, its module (ProxyAgent, SOCKS5, the tunnel) loaded when one is made:
 * src/api/transport.ts makes one only when a proxy is configured, and a plain Agent otherwise.
 */
export function EnvHttpProxyAgent(opts) {
  const Loaded = require('./lib/dispatcher/env-http-proxy-agent.js');
  return new Loaded(opts);
}

let liftoffOnly = false;

export function request(url, opts, handler) {
  if (!liftoffOnly) {
    liftoffOnly = true;
    setFlagsFromString('--liftoff-only');
    // Put back before bin/code-cache.js writes cached code as the process exits: V8 refuses data
    // made under other flags. --liftoff-only also turned off the two tier-up flags.
    globalThis[Symbol.for('hedge.restoreV8Flags')] = () => {
      setFlagsFromString('--no-liftoff-only');
      setFlagsFromString('--wasm-tier-up');
      setFlagsFromString('--wasm-dynamic-tiering');
    };
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
  return apiRequest.call(
    dispatcher,
    { ...opts, origin: url.origin, path: url.search ? url.pathname + url.search : url.pathname, method: opts.method || (opts.body ? 'PUT' : 'GET') },
    handler,
  );
}

export { Agent };
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

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  await buildDist();
  if (process.argv.includes('--sea')) {
    const { buildSea } = await import('./sea.mjs');
    await buildSea({ outdir: join(ROOT, 'dist-sea'), log: (line) => process.stderr.write(`${line}\n`) });
  }
}
