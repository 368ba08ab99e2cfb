#!/usr/bin/env node
// The launcher: everything else lives in dist/, built from src/ by scripts/build.mjs. CommonJS (see
// bin/package.json) so that it runs as a plain script before any ES module is loaded.
'use strict';

const path = require('node:path');

// Node >= 22.1 keeps V8's compiled code of the modules it loads (module.enableCompileCache), so a
// start deserialises dist/ instead of compiling it: docs/performance.md has what it saves. Kept
// in this user's cache folder; NODE_DISABLE_COMPILE_CACHE=1 turns it off. Node 20 has no such
// cache and runs without one.
function enableCompileCache() {
  const { enableCompileCache: enable } = require('node:module');
  if (typeof enable !== 'function') return;
  const env = process.env;
  const home = env.HOME || require('node:os').homedir();
  const cacheRoot = env.HEDGE_CACHE_DIR || path.join(env.XDG_CACHE_HOME || path.join(home, '.cache'), 'hedge');
  try {
    enable(path.join(cacheRoot, 'compile-cache'));
  } catch {
    // A cache that cannot be made never fails a command.
  }
}

const argv = process.argv.slice(2);

// hedge as the user can type it again: src/core/program.ts's invokedAs, which this launcher cannot load.
function invokedAs(script) {
  const fs = require('node:fs');
  const real = (file) => {
    try {
      // No exception for a name not there: PATH's folders mostly lack it, and each thrown error costs a stack trace.
      return fs.statSync(file, { throwIfNoEntry: false })?.isFile() ? fs.realpathSync(file) : undefined;
    } catch {
      return undefined;
    }
  };
  const self = real(script);
  if (self === undefined) return 'hedge';
  const dirs = (process.env.PATH || '').split(path.delimiter).filter(Boolean);
  for (const name of new Set([path.basename(script), 'hedge'])) {
    if (dirs.map((dir) => real(path.join(dir, name))).find((file) => file !== undefined) === self) return name;
  }
  const fromHere = path.relative(process.cwd(), script);
  const shown = path.isAbsolute(fromHere) || fromHere.startsWith('..') ? script : `./${fromHere}`;
  return /^[\w./:@%+=,-]+$/.test(shown) ? shown : `'${shown.replace(/'/g, `'\\''`)}'`;
}

// `hedge --help` where it is 80 columns wide (a pipe, a script, an 80-column terminal): the text the
// build wrote from the same specs (dist/help.txt), without loading dist/ (docs/performance.md has
// what that saves); run by another name, a first line says what `hedge` in it stands for, as the
// front door's help does. Any other width, or the single executable (it has no dist/), goes through dist/.
function printHelpAt80() {
  const env = process.env;
  const columns = process.stdout.isTTY ? process.stdout.columns : Number(env.COLUMNS) || 80;
  if (columns !== 80 || env.HEDGE_FORCE_TTY !== undefined || require('node:sea').isSea()) return false;
  try {
    const help = require('node:fs').readFileSync(path.join(__dirname, '..', 'dist', 'help.txt'), 'utf8');
    const name = invokedAs(process.argv[1]);
    process.stdout.write(name === 'hedge' ? help : `hedge below is ${name}\n${help}`);
    return true;
  } catch {
    return false;
  }
}

// `hedge … | head` (the launcher's own --help included) closes the pipe early: the reader has what
// it wanted, so leave quietly instead of crashing with a stack trace, as Unix tools do. Once a
// command runs, its runner (src/cli/run.ts) decides: a read ends with 0, a write goes on to its outcome.
// A stdout that takes nothing (a full disk) before then: one line and exit 1, never a stack trace.
process.stdout.on('error', (error) => {
  if (process.stdout.listenerCount('error') > 1) return;
  if (error.code === 'EPIPE') process.exit(0);
  process.stderr.write(`hedge: stdout could not be written (${error.code || error.message}).\n`);
  process.exit(1);
});
// A closed stderr (`2>&1 | head`, `2>&-`) never changes the exit code: messages are lost, not the outcome.
process.stderr.on('error', () => {});

// Scripts ask for the version often: it is answered before any of dist/ is loaded
// (docs/performance.md has what that saves). It also answers in a checkout never built.
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${require('../package.json').version}\n`);
} else if (!(argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h') && printHelpAt80())) {
  enableCompileCache();

  import('../dist/cli.js').then(
    (front) =>
      front.main(argv, { script: process.argv[1] }).then(
        (code) => {
          process.exitCode = code;
          // What is left for a terminal that stopped reading (Ctrl-S) does not keep the finished command: its output
          // has a moment to drain, then the process ends with the command's code.
          setTimeout(() => process.exit(code), 2000).unref();
        },
        // main() reports every failure itself; this is the last net, without the stack and the key.
        (error) => {
          const message = String((error && error.message) || error).replace(
            /\b[A-Za-z][A-Za-z0-9]{1,15}_(live|test)_[A-Za-z0-9_-]{8,}/g,
            '[redacted key]',
          );
          process.stderr.write(`hedge: unexpected failure: ${message}\n`);
          process.exitCode = 1;
        },
      ),
    (error) => {
      // A checkout that was never built: say what to do instead of a stack trace.
      if (
        error &&
        error.code === 'ERR_MODULE_NOT_FOUND' &&
        String(error.message).includes(path.join('dist', 'cli.js'))
      ) {
        process.stderr.write(
          `hedge is not built yet: run \`npm run build\` in ${path.resolve(__dirname, '..')} first.\n`,
        );
        process.exit(1);
      }
      throw error;
    },
  );
}
