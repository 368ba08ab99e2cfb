#!/usr/bin/env node
// Thin launcher (CommonJS: see bin/package.json and scripts/build.mjs): everything else lives in
// dist/, built from src/, and loaded through bin/code-cache.js. Chosen by measurement:
// bench/results.md. It is also the main of the single executable (scripts/sea.mjs).
'use strict';

const argv = process.argv.slice(2);

// `hedge … | head` closes the pipe early: the reader has what it wanted, so leave quietly
// instead of crashing with a stack trace, as Unix tools do.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

/** dist/cli.cjs, the front door: from the package's dist/, or from the single executable's assets. */
function loadFront() {
  const path = require('node:path');
  const codeCache = require('./code-cache.js');
  const sea = require('node:sea');
  if (sea.isSea()) {
    const read = (name) => {
      try {
        return sea.getAsset(`dist/${name}`, 'utf8');
      } catch {
        return undefined;
      }
    };
    return codeCache.install({ distDir: path.join(process.execPath, 'dist'), files: { read } }).load('cli.cjs', module);
  }
  // dist/ compiled from V8's code cache of an earlier run (bin/code-cache.js).
  codeCache.install({ distDir: path.join(__dirname, '..', 'dist') });
  try {
    return require('../dist/cli.cjs');
  } catch (error) {
    // A checkout that was never built: say what to do instead of a stack trace.
    if (error && error.code === 'MODULE_NOT_FOUND' && String(error.message).includes('dist/cli.cjs')) {
      process.stderr.write(`hedge is not built yet: run \`npm run build\` in ${path.resolve(__dirname, '..')} first.\n`);
      process.exit(1);
    }
    throw error;
  }
}

// Scripts ask for the version often; answer it before loading any code at all.
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${require('../package.json').version}\n`);
} else {
  loadFront()
    .main(argv)
    .then(
      (code) => {
        process.exitCode = code;
      },
      // main() reports every failure itself; this is the last net, without the stack and the key.
      (error) => {
        const message = String((error && error.message) || error).replace(/\b[A-Za-z][A-Za-z0-9]{1,15}_(live|test)_[A-Za-z0-9_-]{8,}/g, '[redacted key]');
        process.stderr.write(`error: unexpected failure: ${message}\n`);
        process.exitCode = 1;
      },
    );
}
