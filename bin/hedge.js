#!/usr/bin/env node
// Thin launcher (CommonJS: see bin/package.json and scripts/build.mjs): everything else lives in
// dist/, built from src/, and loaded through bin/code-cache.js. Chosen by measurement:
// bench/results.md and bench/notes.md. It is also the main of the single executable
// (scripts/sea.mjs), which carries dist/ inside it.
'use strict';

const argv = process.argv.slice(2);

/** Where dist/ is: the package's folder, or the single executable's assets. */
function locateDist() {
  const path = require('node:path');
  const sea = require('node:sea');
  if (!sea.isSea()) return { distDir: path.join(__dirname, '..', 'dist') };
  const read = (name) => {
    try {
      return sea.getAsset(`dist/${name}`, 'utf8');
    } catch {
      return undefined;
    }
  };
  return { distDir: path.join(process.execPath, 'dist'), files: { read } };
}

/**
 * Writes text that is the whole of a run's output. Off a terminal, straight to file descriptor 1:
 * making process.stdout (a stream over a pipe or file) costs ~2 ms that --version and a memoised
 * help need not pay. A reader that went away (EPIPE) is not an error.
 */
function printAll(text, terminal) {
  if (!terminal) {
    const fs = require('node:fs');
    const bytes = Buffer.from(text);
    let offset = 0;
    try {
      while (offset < bytes.length) offset += fs.writeSync(1, bytes, offset);
      return;
    } catch (error) {
      if (error.code === 'EPIPE') return;
      if (error.code !== 'EAGAIN') throw error;
      // A non-blocking pipe that is full: the rest goes through the stream, which waits for it.
      text = bytes.subarray(offset);
    }
  }
  process.stdout.on('error', () => {});
  process.stdout.write(text);
}

/** dist/cli.cjs, the front door, through bin/code-cache.js. */
function loadFront({ distDir, files }) {
  const codeCache = require('./code-cache.js');
  if (files) return codeCache.install({ distDir, files }).load('cli.cjs', module);
  // dist/ compiled from V8's code cache of an earlier run.
  codeCache.install({ distDir });
  try {
    return require('../dist/cli.cjs');
  } catch (error) {
    // A checkout that was never built: say what to do instead of a stack trace.
    if (error && error.code === 'MODULE_NOT_FOUND' && String(error.message).includes('dist/cli.cjs')) {
      process.stderr.write(`hedge is not built yet: run \`npm run build\` in ${require('node:path').resolve(__dirname, '..')} first.\n`);
      process.exit(1);
    }
    throw error;
  }
}

/** What main() prints, for the help memo: stdout's text, and whether anything went to stderr. */
function captureOutput() {
  const chunks = [];
  let stderr = false;
  const out = process.stdout.write;
  const err = process.stderr.write;
  process.stdout.write = function write(chunk, ...rest) {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return out.call(this, chunk, ...rest);
  };
  process.stderr.write = function write(...args) {
    stderr = true;
    return err.apply(this, args);
  };
  return () => {
    process.stdout.write = out;
    process.stderr.write = err;
    return stderr ? undefined : chunks.join('');
  };
}

function run(dist, memo) {
  // `hedge … | head` closes the pipe early: the reader has what it wanted, so leave quietly
  // instead of crashing with a stack trace, as Unix tools do.
  // Once a command runs, its runner (src/cli/run.ts) decides: a read ends with 0, a write goes on
  // to its outcome. Before that (help, a usage error) there is nothing to finish.
  process.stdout.on('error', (error) => {
    if (error.code === 'EPIPE') {
      if (process.stdout.listenerCount('error') > 1) return;
      process.exit(0);
    }
    throw error;
  });
  // A closed stderr (`2>&1 | head`, `2>&-`) never changes the exit code: messages are lost, not the outcome.
  process.stderr.on('error', () => {});
  const front = loadFront(dist);
  const captured = memo && captureOutput();
  front.main(argv).then(
    (code) => {
      process.exitCode = code;
      const text = captured?.();
      if (code === 0 && text) memo.keep(text);
    },
    // main() reports every failure itself; this is the last net, without the stack and the key.
    (error) => {
      captured?.();
      const message = String((error && error.message) || error).replace(/\b[A-Za-z][A-Za-z0-9]{1,15}_(live|test)_[A-Za-z0-9_-]{8,}/g, '[redacted key]');
      process.stderr.write(`hedge: unexpected failure: ${message}\n`);
      process.exitCode = 1;
    },
  );
}

/**
 * Whether stdout may be a terminal, without loading node:tty (it loads node:net: ~2.5 ms that
 * --version and a kept help need not pay): a character device. /dev/null is one too; that only
 * sends its output through process.stdout, as for a terminal.
 */
function maybeTerminal() {
  try {
    return require('node:fs').fstatSync(1).isCharacterDevice();
  } catch {
    return true;
  }
}

// Scripts ask for the version often; answer it before loading any code at all.
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  printAll(`${require('../package.json').version}\n`, maybeTerminal());
} else {
  const dist = locateDist();
  // Help already laid out at this width by this build is printed as it was (bin/code-cache.js).
  const memo = require('./code-cache.js').helpMemo({ argv, ...dist, terminal: maybeTerminal });
  const known = memo?.text();
  if (known !== undefined) printAll(known, memo.terminal);
  else run(dist, memo);
}
