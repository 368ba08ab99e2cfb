// The builds the bench runs, each in a private directory so that a test run rebuilding dist/
// meanwhile cannot disturb it:
//   current      a copy of what `npm run build` just made (bin/, dist/, package.json);
//   earlier ones rebuilt from today's src/ with an earlier build configuration, to measure
//   what each step of issue 8 bought, side by side in the same run:
//     esm-external  the first build: ESM launcher, dist/cli.js + chunks, packages from node_modules;
//     esm-bundled   step 1: the same, with the dependencies bundled into the chunks;
//     cjs-front     step 2: the CommonJS front door (scripts/build.mjs), without the launcher's
//                   --version shortcut (step 3);
//     code-cache    tried, not adopted: the front door compiled through vm.Script with a V8 code
//                   cache (Node 20 has no module.enableCompileCache).
// Also the sandbox, bundled from src/sandbox/index.ts for bench/lib/sandbox-host.mjs.
import { build } from 'esbuild';
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const CREATE_REQUIRE_BANNER =
  "import { createRequire as __hedgeCreateRequire } from 'node:module'; const require = __hedgeCreateRequire(import.meta.url);";

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
 * @returns {Promise<Record<'current'|'esm-external'|'esm-bundled'|'cjs-front'|'code-cache', {dir: string, bin: string}> & {sandbox: string}>}
 */
export async function prepareBuilds(root, tmp, { variants = true } = {}) {
  const builds = {};
  const bin = (dir) => join(dir, 'bin', 'hedge.js');

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
    const front = join(tmp, 'cjs-front');
    packageDir(root, front);
    cpSync(join(root, 'bin', 'package.json'), join(front, 'bin', 'package.json'));
    cpSync(join(root, 'dist'), join(front, 'dist'), { recursive: true });
    writeFileSync(bin(front), CJS_LAUNCHER_WITHOUT_SHORTCUT);
    builds['cjs-front'] = { dir: front, bin: bin(front) };

    const cached = join(tmp, 'code-cache');
    packageDir(root, cached);
    cpSync(join(root, 'bin', 'package.json'), join(cached, 'bin', 'package.json'));
    cpSync(join(root, 'dist'), join(cached, 'dist'), { recursive: true });
    writeFileSync(bin(cached), codeCacheLauncher(join(cached, 'cli.cjs.v8-cache')));
    builds['code-cache'] = { dir: cached, bin: bin(cached) };
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
