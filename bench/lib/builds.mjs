// The builds the bench runs, each in a private directory so that a test run rebuilding dist/
// meanwhile cannot disturb it:
//   current        a copy of what `npm run build` just made (bin/, dist/, package.json);
//   and, rebuilt from today's src/ with earlier build configurations, the steps of issue 8, to
//   measure what each bought side by side in the same run:
//     esm-external   the first build: ESM launcher, dist/cli.js + chunks, packages from node_modules;
//     esm-bundled    step 1: the same with the dependencies bundled into the chunks;
//     cjs-front      step 2: the CommonJS front door dist/cli.cjs (scripts/build.mjs), commander
//                    loading node:child_process itself;
//     cjs-front-lazy step 3: + node:child_process loaded on first use (the current dist/);
//     (current       step 4: + `--version` answered by the launcher;)
//     no-liftoff     the current build with src/run.ts's V8 flag --liftoff-only made a no-op, to
//                    measure what that flag buys;
//     code-cache     tried, not adopted: the current front door compiled through vm.Script with a
//                    V8 code cache (Node 20 has no module.enableCompileCache).
// Also the sandbox, bundled from src/sandbox/index.ts for bench/lib/sandbox-host.mjs.
import { build } from 'esbuild';
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CREATE_REQUIRE_BANNER, buildDist } from '../../scripts/build.mjs';

/** The launcher as it was before issue 8 (an ES module importing dist/cli.js). */
const ESM_LAUNCHER = `#!/usr/bin/env node
import module from 'node:module';
module.enableCompileCache?.();
const { main } = await import('../dist/cli.js');
process.exitCode = await main(process.argv.slice(2));
`;

const CJS_LAUNCHER_WITHOUT_SHORTCUT = `#!/usr/bin/env node
'use strict';
require('../dist/cli.cjs').main(process.argv.slice(2)).then((code) => { process.exitCode = code; });
`;

/** The current launcher, but v8.setFlagsFromString does nothing (src/run.ts imports it later). */
const LAUNCHER_WITHOUT_V8_FLAGS = `#!/usr/bin/env node
'use strict';
require('node:v8').setFlagsFromString = () => {};
require('../dist/cli.cjs').main(process.argv.slice(2)).then((code) => { process.exitCode = code; });
`;

function codeCacheLauncher(cacheFile) {
  return `#!/usr/bin/env node
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');
const file = path.join(__dirname, '../dist/cli.cjs');
const cacheFile = ${JSON.stringify(cacheFile)};
let cachedData;
try { cachedData = fs.readFileSync(cacheFile); } catch {}
const script = new vm.Script(Module.wrap(fs.readFileSync(file, 'utf8')), {
  filename: file,
  cachedData,
  importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
});
const module_ = { exports: {} };
script.runInThisContext()(module_.exports, require, module_, file, path.dirname(file));
module_.exports.main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
  if (!cachedData || script.cachedDataRejected) fs.writeFileSync(cacheFile, script.createCachedData());
});
`;
}

/** A directory shaped like the package: package.json, bin/, dist/, node_modules → the repo's. */
function packageDir(root, dir) {
  mkdirSync(join(dir, 'bin'), { recursive: true });
  cpSync(join(root, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
}

async function esmBuild(root, dir, bundleDependencies) {
  packageDir(root, dir);
  writeFileSync(join(dir, 'bin', 'hedge.js'), ESM_LAUNCHER);
  await build({
    absWorkingDir: root,
    entryPoints: ['src/cli.ts'],
    outdir: join(dir, 'dist'),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'error',
    ...(bundleDependencies ? { banner: { js: CREATE_REQUIRE_BANNER } } : { packages: 'external' }),
  });
}

/**
 * @returns {Promise<Record<string, {dir: string, bin: string}> & {sandbox: string}>}
 */
export async function prepareBuilds(root, tmp, { variants = true } = {}) {
  const builds = {};
  const bin = (dir) => join(dir, 'bin', 'hedge.js');
  /** A package directory with bin/hedge.js = `launcher`, and dist/ copied from the repository's. */
  const withLauncher = (name, launcher, dist = join(root, 'dist')) => {
    const dir = join(tmp, name);
    packageDir(root, dir);
    cpSync(join(root, 'bin', 'package.json'), join(dir, 'bin', 'package.json'));
    if (dist) cpSync(dist, join(dir, 'dist'), { recursive: true });
    writeFileSync(bin(dir), launcher);
    builds[name] = { dir, bin: bin(dir) };
    return dir;
  };

  const current = join(tmp, 'current');
  packageDir(root, current);
  cpSync(join(root, 'bin'), join(current, 'bin'), { recursive: true });
  cpSync(join(root, 'dist'), join(current, 'dist'), { recursive: true });
  builds.current = { dir: current, bin: bin(current) };

  if (variants) {
    for (const [name, bundled] of [
      ['esm-external', false],
      ['esm-bundled', true],
    ]) {
      const dir = join(tmp, name);
      await esmBuild(root, dir, bundled);
      builds[name] = { dir, bin: bin(dir) };
    }
    const front = withLauncher('cjs-front', CJS_LAUNCHER_WITHOUT_SHORTCUT, null);
    await buildDist({ outdir: join(front, 'dist'), lazyChildProcess: false });
    withLauncher('cjs-front-lazy', CJS_LAUNCHER_WITHOUT_SHORTCUT);
    withLauncher('no-liftoff', LAUNCHER_WITHOUT_V8_FLAGS);
    const cached = join(tmp, 'code-cache');
    withLauncher('code-cache', codeCacheLauncher(join(cached, 'cli.cjs.v8-cache')));
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
