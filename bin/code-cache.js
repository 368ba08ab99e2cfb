// How dist/ is loaded (issue 31): with V8's code cache, and without Node's module resolution.
//
// Node 20 compiles every file it loads from source, on every start (Node >= 22.1 has
// module.enableCompileCache(); Node 20 does not). This compiles each dist/ file with vm.Script and
// the cached data an earlier run left behind, as v8-compile-cache does, so that a start
// deserialises compiled code instead of compiling it. bench/notes.md has what it saves.
//
// Where: <user cache dir>/hedge/code-<node version>-<arch>-<build id>/, one file per dist/ file
// (HEDGE_CACHE_DIR replaces <user cache dir>/hedge; HEDGE_CODE_CACHE=0 turns the cache off). The
// build id is dist/build.json's hash of every dist/ file, so another build never meets this one's
// code; each cache file also records the size and modification time of the file it was made from,
// and V8 itself refuses data made by another V8, under other flags or for another source length.
//
// What is cached is code that will run, so the folder must be this user's own: on POSIX it is used
// only when this user owns it and nobody else may write to it (it is made with mode 0700).
// Nothing here may fail a command: a cache that cannot be read, is refused or cannot be written is
// simply not used (the files compile as they would without it).
//
// When: a file compiled without usable cached data gets its cache written as the process exits,
// so that it holds every function the run compiled (V8 compiles most functions on first call).
//
// The single executable (scripts/sea.mjs) loads the same dist/ files, from its assets instead of
// the disk, through the same loader (`files`).
'use strict';

const Module = require('node:module');
const { Script, constants: vmConstants } = require('node:vm');
const fs = require('node:fs');
const path = require('node:path');

/** 'HDGC', then the source file's size and mtime (ms): checked before V8's data is offered. */
const MAGIC = 0x43474448;
const HEADER_BYTES = 16;
/** Cache folders of other builds unused for this long are removed when a new one is made. */
const STALE_MS = 30 * 24 * 60 * 60 * 1000;
/** `./chunk-X.js`: one dist/ file requiring another (bundled code names them literally). */
const LOCAL_FILE = /^\.\/[\w.-]+\.c?js$/;

/** The platform's per-user cache folder for hedge. */
function defaultCacheRoot(env) {
  const home = env.HOME || env.USERPROFILE || require('node:os').homedir();
  if (process.platform === 'win32') return path.join(env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'), 'hedge', 'Cache');
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Caches', 'hedge');
  return path.join(env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(home, '.cache'), 'hedge');
}

/** Only a folder this user owns and nobody else can write into may hold code this process runs. */
function trusted(stat) {
  if (!stat.isDirectory()) return false;
  if (process.platform === 'win32' || typeof process.getuid !== 'function') return true;
  return stat.uid === process.getuid() && (stat.mode & 0o022) === 0;
}

/**
 * This build's cache folder: `dir` undefined when the cache is off (HEDGE_CODE_CACHE=0) or the
 * build has no id.
 */
function cacheFolder({ distDir, env, files }) {
  const root = env.HEDGE_CACHE_DIR && path.isAbsolute(env.HEDGE_CACHE_DIR) ? env.HEDGE_CACHE_DIR : defaultCacheRoot(env);
  if (env.HEDGE_CODE_CACHE === '0' || env.HEDGE_CODE_CACHE === 'off') return { root, dir: undefined };
  let buildId;
  try {
    buildId = JSON.parse(files ? files.read('build.json') : fs.readFileSync(path.join(distDir, 'build.json'), 'utf8')).id;
  } catch {
    return { root, dir: undefined };
  }
  if (typeof buildId !== 'string' || !/^[0-9a-f]{8,64}$/.test(buildId)) return { root, dir: undefined };
  // The executable's files have no modification time to check: its cache is kept apart.
  return { root, dir: path.join(root, `code-${process.version}-${process.arch}-${buildId}${files ? '-sea' : ''}`) };
}

/**
 * Installs the loader for the files directly under `distDir`. With `files`, they are read from
 * there instead of the disk (the single executable's assets; `distDir` is then a name only).
 * Returns what it did so far (`state`, for tests and the bench) and `load(name)` to load a dist/
 * file by name; undefined when there is nothing to do (npm package, cache off or no build id).
 * @param {{ distDir: string, env?: NodeJS.ProcessEnv, files?: { read(name: string): string | undefined } }} options
 */
function install({ distDir, env = process.env, files }) {
  const { root, dir } = cacheFolder({ distDir, env, files });
  // Without a cache, files on disk are left to Node; the executable's assets still need loading.
  if (dir === undefined && !files) return undefined;
  let readable = false;
  if (dir) {
    try {
      readable = trusted(fs.statSync(dir));
    } catch {
      // Not made yet: the first run makes it as it exits.
    }
  }

  const prefix = distDir.endsWith(path.sep) ? distDir : distDir + path.sep;
  const inDist = (filename) => filename.startsWith(prefix) && !filename.includes(path.sep, prefix.length);
  const pending = [];
  const state = { dir, read: 0, rejected: 0, compiled: 0, written: 0 };
  const originalCompile = Module.prototype._compile;

  /** What the cache file must say about its source: size and mtime on disk; an asset never changes within an executable. */
  const identity = (filename, content) => {
    if (files) return { size: Buffer.byteLength(content), mtimeMs: 0 };
    const stat = fs.statSync(filename);
    return { size: stat.size, mtimeMs: stat.mtimeMs };
  };

  Module.prototype._compile = function compileWithCache(content, filename) {
    if (!inDist(filename)) return originalCompile.call(this, content, filename);
    let source;
    try {
      source = identity(filename, content);
    } catch {
      return originalCompile.call(this, content, filename);
    }
    const cacheFile = dir && path.join(dir, `${path.basename(filename)}.v8`);
    let cachedData;
    if (readable) {
      try {
        const bytes = fs.readFileSync(cacheFile);
        if (bytes.length > HEADER_BYTES && bytes.readUInt32LE(0) === MAGIC && bytes.readUInt32LE(4) === source.size && bytes.readDoubleLE(8) === source.mtimeMs) {
          cachedData = bytes.subarray(HEADER_BYTES);
        }
      } catch {
        // No cache for this file yet.
      }
    }
    const script = new Script(Module.wrap(content), {
      filename,
      cachedData,
      importModuleDynamically: vmConstants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    if (cachedData && !script.cachedDataRejected) state.read += 1;
    else {
      if (cachedData) state.rejected += 1;
      state.compiled += 1;
      if (cacheFile) pending.push({ script, cacheFile, ...source });
    }
    const compiled = script.runInThisContext({ displayErrors: true });
    const module = this;
    const require = (id) => (typeof id === 'string' && LOCAL_FILE.test(id) ? requireLocal(module, id) : module.require(id));
    require.resolve = (request, options) => Module._resolveFilename(request, module, false, options);
    require.main = process.mainModule;
    require.cache = Module._cache;
    return compiled.call(module.exports, module.exports, require, module, filename, path.dirname(filename));
  };

  /**
   * Loads a dist/ file required by another one without Node's resolution (which stats,
   * normalises and looks up package scopes for each of the ~30 files a command loads: ~0.2 ms
   * each): it is the requiring file's sibling by construction. The result is Node's own: the same
   * Module in require.cache, compiled through Module.prototype._compile (and so the cache above).
   */
  function requireLocal(parent, id, filename = path.join(path.dirname(parent.filename), id)) {
    const known = Module._cache[filename];
    if (known) return known.exports;
    let source;
    try {
      source = files ? files.read(path.basename(filename)) : fs.readFileSync(filename, 'utf8');
    } catch {
      source = undefined;
    }
    if (source === undefined) {
      if (files) throw new Error(`${id} is missing from this executable; build it again (npm run build:sea).`);
      return parent.require(filename);
    }
    const child = new Module(filename, parent);
    child.filename = filename;
    child.paths = parent.paths;
    Module._cache[filename] = child;
    let loaded = false;
    try {
      child._compile(source, filename);
      loaded = true;
    } finally {
      if (!loaded) delete Module._cache[filename];
    }
    child.loaded = true;
    return child.exports;
  }

  process.once('exit', () => {
    writePending(root, dir, pending, state);
    // For tests and the bench: what the loader did in this run.
    if (env.HEDGE_CODE_CACHE_REPORT) {
      try {
        fs.writeFileSync(env.HEDGE_CODE_CACHE_REPORT, JSON.stringify(state));
      } catch {
        // Reporting only.
      }
    }
  });
  return { state, load: (name, parent) => requireLocal(parent, `./${name}`, prefix + name) };
}

function writePending(root, dir, pending, state) {
  if (pending.length === 0) return;
  try {
    // V8 refuses cached data made under other flags: what a command changed at run time (the
    // undici slice's --liftoff-only) is put back first, as it was when this process started.
    globalThis[Symbol.for('hedge.restoreV8Flags')]?.();
    if (!ensureDir(root, dir)) return;
    for (const { script, cacheFile, size, mtimeMs } of pending) {
      const data = script.createCachedData();
      const header = Buffer.alloc(HEADER_BYTES);
      header.writeUInt32LE(MAGIC, 0);
      header.writeUInt32LE(size, 4);
      header.writeDoubleLE(mtimeMs, 8);
      // Written beside and renamed into place: a process reading meanwhile sees all or nothing.
      const temporary = `${cacheFile}.${process.pid}.tmp`;
      fs.writeFileSync(temporary, Buffer.concat([header, data]), { mode: 0o600 });
      fs.renameSync(temporary, cacheFile);
      state.written += 1;
    }
  } catch {
    // A read-only home, a full disk: the next run compiles again, as it would without a cache.
  }
}

/** Makes the cache folder (mode 0700) and says whether it can be trusted; prunes stale builds' folders. */
function ensureDir(root, dir) {
  try {
    return trusted(fs.statSync(dir));
  } catch {
    // Made below.
  }
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!trusted(fs.statSync(dir))) return false;
  try {
    const now = Date.now();
    for (const name of fs.readdirSync(root)) {
      const other = path.join(root, name);
      if (!name.startsWith('code-') || other === dir) continue;
      if (now - fs.statSync(other).mtimeMs > STALE_MS) fs.rmSync(other, { recursive: true, force: true });
    }
  } catch {
    // Pruning is housekeeping only.
  }
  return true;
}

// ---- help, memoised ----------------------------------------------------------------------------
//
// `hedge --help`, `hedge quote --help`, `hedge help exit-codes`: what they print depends only on
// the build, the words typed and the width of the output (main.ts's helpWidth), and laying it out
// is most of what they cost (building commander's tree for every command, ~7 ms). The text one
// run printed is kept beside the cached code, under exactly those inputs, and printed as it is the
// next time. Any other argument (an option, a value) never comes here.

const HELP_FLAGS = new Set(['--help', '-h']);
const COMMAND_WORD = /^[a-z][a-z0-9-]{0,31}$/;

/** The words of a request for help (or the bare `hedge`), or undefined for anything else. */
function helpWords(argv) {
  if (argv.length === 0) return [];
  const last = argv[argv.length - 1];
  const words = HELP_FLAGS.has(last) ? argv.slice(0, -1) : argv[0] === 'help' ? argv.slice(1) : undefined;
  return words !== undefined && words.length <= 4 && words.every((word) => COMMAND_WORD.test(word)) ? words : undefined;
}

/** FNV-1a over the key, twice (two offsets): a file name; the file holds the whole key too. */
function keyName(key) {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let index = 0; index < key.length; index++) {
    const code = key.charCodeAt(index);
    a = Math.imul(a ^ code, 0x01000193) >>> 0;
    b = Math.imul(b ^ code, 0x811c9dc5) >>> 0;
  }
  return `help-${a.toString(16).padStart(8, '0')}${b.toString(16).padStart(8, '0')}.txt`;
}

/**
 * The memo for this invocation, or undefined when it is not a request for help or there is no
 * cache. `text()` is what an earlier run printed (undefined when none); `keep(text)` keeps it.
 * @param {{ argv: string[], distDir: string, env?: NodeJS.ProcessEnv, files?: { read(name: string): string | undefined }, terminal?: () => boolean }} options
 */
function helpMemo({ argv, distDir, env = process.env, files, terminal: maybeTerminal = () => require('node:tty').isatty(1) }) {
  if (helpWords(argv) === undefined) return undefined;
  const { root, dir } = cacheFolder({ distDir, env, files });
  if (dir === undefined) return undefined;
  // What main.ts's helpWidth reads: a terminal's width (HEDGE_FORCE_TTY decides whether it is
  // one), else COLUMNS. `maybeTerminal` may say yes for a character device that is no terminal:
  // the key then holds its width as unknown, a key of its own, whose help is what it printed.
  const forced = env.HEDGE_FORCE_TTY;
  const terminal = forced === '1' || (forced !== '0' && maybeTerminal());
  const columns = terminal ? (process.stdout.columns ?? null) : null;
  const key = JSON.stringify([argv, forced ?? null, terminal, columns, env.COLUMNS ?? null]);
  const file = path.join(dir, keyName(key));
  return {
    terminal,
    text() {
      try {
        if (!trusted(fs.statSync(dir))) return undefined;
        const stored = fs.readFileSync(file, 'utf8');
        const newline = stored.indexOf('\n');
        return stored.slice(0, newline) === key ? stored.slice(newline + 1) : undefined;
      } catch {
        return undefined;
      }
    },
    keep(text) {
      try {
        if (!ensureDir(root, dir)) return;
        const temporary = `${file}.${process.pid}.tmp`;
        fs.writeFileSync(temporary, `${key}\n${text}`, { mode: 0o600 });
        fs.renameSync(temporary, file);
      } catch {
        // Only a memo.
      }
    },
  };
}

module.exports = { install, helpMemo, defaultCacheRoot };
