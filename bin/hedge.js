#!/usr/bin/env node
// Thin launcher: everything lives in the bundle built from src/ (npm run build).
import module from 'node:module';

// Node >= 22.1 can cache compiled code between runs; Node 20 simply skips this.
module.enableCompileCache?.();

const { main } = await import('../dist/cli.js');
process.exitCode = await main(process.argv.slice(2));
