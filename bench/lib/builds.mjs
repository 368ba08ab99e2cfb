// What the bench runs, each in a private directory made right after `npm run build`, so that a test
// run rebuilding dist/ meanwhile cannot disturb it:
//   current     a copy of what `npm run build` just made (bin/, dist/, package.json);
//   before-31   dist/ rebuilt from today's src/ the way it was built before issue 31: the lazy side
//               as ES modules, loaded by Node's module loaders (no code cache, no help kept), with
//               the launcher of then. Today's src/ otherwise (the simulator's and the report's
//               changes are in src/ and show in both);
//   sea         the single executable (`npm run build:sea`, scripts/sea.mjs) of the current dist/;
//   sandbox     src/sandbox/index.ts bundled, for bench/lib/sandbox-host.mjs and the state files.
import { build } from 'esbuild';
import { cpSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CREATE_REQUIRE_BANNER, buildDist } from '../../scripts/build.mjs';
import { buildSea } from '../../scripts/sea.mjs';

/** bin/hedge.js as it was before issue 31 (its dist/cli.cjs reaches the lazy ES modules through import()). */
const LAUNCHER_BEFORE_31 = `#!/usr/bin/env node
'use strict';
const argv = process.argv.slice(2);
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(\`\${require('../package.json').version}\\n\`);
} else {
  require('node:module').enableCompileCache?.();
  require('../dist/cli.cjs').main(argv).then((code) => { process.exitCode = code; });
}
`;

/**
 * dist/ copied whole: a build running meanwhile (another test run) swaps dist/ for a new one, and a
 * copy caught in between misses files, so it is tried again.
 */
function copyDist(root, dest) {
  for (let attempt = 1; ; attempt++) {
    try {
      rmSync(dest, { recursive: true, force: true });
      cpSync(join(root, 'dist'), dest, { recursive: true });
      return;
    } catch (error) {
      if (attempt >= 5 || error.code !== 'ENOENT') throw error;
    }
  }
}

/** A directory shaped like the package: package.json, bin/, node_modules → the repo's. */
function packageDir(root, dir) {
  mkdirSync(join(dir, 'bin'), { recursive: true });
  cpSync(join(root, 'package.json'), join(dir, 'package.json'));
  cpSync(join(root, 'bin', 'package.json'), join(dir, 'bin', 'package.json'));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
}

/**
 * @returns {Promise<{current: {bin: string}, 'before-31'?: {bin: string}, sea?: {executable: string, seconds: number}, sandbox: string}>}
 */
export async function prepareBuilds(root, tmp, { variants = true, sea = true } = {}) {
  const builds = {};
  const bin = (dir) => join(dir, 'bin', 'hedge.js');

  const current = join(tmp, 'current');
  packageDir(root, current);
  for (const file of ['hedge.js', 'code-cache.js']) cpSync(join(root, 'bin', file), join(current, 'bin', file));
  copyDist(root, join(current, 'dist'));
  builds.current = { bin: bin(current) };

  if (variants) {
    const before = join(tmp, 'before-31');
    packageDir(root, before);
    writeFileSync(bin(before), LAUNCHER_BEFORE_31);
    await buildDist({ outdir: join(before, 'dist'), layout: 'esm' });
    builds['before-31'] = { bin: bin(before) };
  }

  if (sea) {
    // From the copy of dist/ above, so that it is the same build as `current`.
    const seaRoot = join(tmp, 'sea-root');
    mkdirSync(seaRoot, { recursive: true });
    for (const name of ['bin', 'dist', 'package.json']) cpSync(join(current, name), join(seaRoot, name), { recursive: true, dereference: true });
    cpSync(join(root, 'completions'), join(seaRoot, 'completions'), { recursive: true });
    symlinkSync(join(root, 'node_modules'), join(seaRoot, 'node_modules'), 'dir');
    builds.sea = await buildSea({ outdir: join(tmp, 'sea'), root: seaRoot });
  }

  builds.sandbox = join(tmp, 'sandbox.mjs');
  await build({
    absWorkingDir: root,
    entryPoints: ['src/sandbox/index.ts'],
    outfile: builds.sandbox,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'error',
    banner: { js: CREATE_REQUIRE_BANNER },
  });
  return builds;
}
