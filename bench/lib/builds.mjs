// What the bench runs, each in a private directory made right after `npm run build`, so that a test
// run rebuilding dist/ meanwhile cannot disturb it:
//   current      a copy of what `npm run build` just made (bin/, dist/, package.json);
//   before-15    dist/ rebuilt from today's src/ the way it was built before issue 15: undici's
//                index.js whole (fetch, WebSocket, caches, cookies, mocks), zod imported as
//                `import { z }` (which bundles all of zod, its 60-odd locales too: restored by a
//                plugin in src/api/schemas.ts and src/config/store-schema.ts), and V8's
//                --liftoff-only set as the command starts (as src/cli/run.ts did, emulated by its
//                launcher) rather than at the first request. node:tls is still loaded lazily
//                (src/api/transport.ts): that change is in src/ and shows only in "now";
//   no-liftoff   the current build with v8.setFlagsFromString made a no-op by its launcher, to
//                show what --liftoff-only still buys;
//   sandbox      src/sandbox/index.ts bundled, for bench/lib/sandbox-host.mjs;
//   micro        small scripts bundled with and without each slimming step, to measure each on its
//                own: the same request with undici whole / undici's slice, the same zod schema
//                with `import { z }` (every locale) / `import * as z` and English only / zod/mini.
import { build } from 'esbuild';
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CREATE_REQUIRE_BANNER, buildDist, undiciAssertOnFailure, undiciHttp2OnFirstUse, undiciSlice, undiciWithoutFormData, zodEnglishOnly } from '../../scripts/build.mjs';

const LAUNCHER_HEAD = `#!/usr/bin/env node
'use strict';
`;
const LAUNCHER_TAIL = `require('../dist/cli.cjs').main(process.argv.slice(2)).then((code) => { process.exitCode = code; });
`;

/** Before issue 15, src/cli/run.ts set the flag as a command started, before the command's code loaded. */
const LAUNCHER_FLAG_AT_START = `${LAUNCHER_HEAD}const front = require('../dist/cli.cjs');
require('node:v8').setFlagsFromString('--liftoff-only');
front.main(process.argv.slice(2)).then((code) => { process.exitCode = code; });
`;

/** The current launcher's work, with v8.setFlagsFromString doing nothing (the build's undici slice calls it later). */
const LAUNCHER_WITHOUT_V8_FLAGS = `${LAUNCHER_HEAD}require('node:v8').setFlagsFromString = () => {};
${LAUNCHER_TAIL}`;

/** The same GET as bench/lib/min-request.mjs, printing the body. */
const MICRO_REQUEST = `import { request } from 'undici';
const response = await request(\`\${process.env.HEDGE_BASE_URL}/markets\`, {
  headers: { authorization: \`Bearer \${process.env.HEDGE_API_KEY}\`, accept: 'application/json' },
});
process.stdout.write(\`\${await response.body.text()}\\n\`);
`;

/** A market list checked with the shape of src/api/schemas.ts's marketSchema, in each zod style. */
const MARKETS = JSON.stringify(
  Array.from({ length: 3 }, (_, index) => ({ market: `USDT${index}`, status: 'open', price: 1.5, available_capacity_usd: { buy: 1, sell: 2 }, net_rate_daily_pct: { buy: 0.1, sell: 0.2 } })),
);
const ZOD_CLASSIC = (importLine) => `${importLine}
const perSide = z.looseObject({ buy: z.number().finite(), sell: z.number().finite() });
const market = z.looseObject({ market: z.string(), status: z.string(), price: z.number().finite(), available_capacity_usd: perSide, net_rate_daily_pct: perSide });
const result = market.array().safeParse(${MARKETS});
process.stdout.write(result.success ? 'ok\\n' : result.error.issues[0].message + '\\n');
`;
const ZOD_MINI = `import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
z.config(en());
const perSide = z.looseObject({ buy: z.number(), sell: z.number() });
const market = z.looseObject({ market: z.string(), status: z.string(), price: z.number(), available_capacity_usd: perSide, net_rate_daily_pct: perSide });
const result = z.array(market).safeParse(${MARKETS});
process.stdout.write(result.success ? 'ok\\n' : result.error.issues[0].message + '\\n');
`;

/** src/ as it imported zod before issue 15: `import { z }`, the namespace object of all of zod. */
const ZOD_AS_BEFORE = {
  name: 'zod-as-before',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]src[\\/](api[\\/]schemas|config[\\/]store-schema)\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes("import * as z from 'zod';")) throw new Error(`${args.path}: its zod import changed; update bench/lib/builds.mjs`);
      return { contents: source.replace("import * as z from 'zod';", "import { z } from 'zod';"), loader: 'ts' };
    });
  },
};

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
 * @returns {Promise<{current: {bin: string}, 'before-15'?: {bin: string}, 'no-liftoff'?: {bin: string}, sandbox: string, micro?: Record<string, string>}>}
 */
export async function prepareBuilds(root, tmp, { variants = true } = {}) {
  const builds = {};
  const bin = (dir) => join(dir, 'bin', 'hedge.js');

  const current = join(tmp, 'current');
  packageDir(root, current);
  cpSync(join(root, 'bin', 'hedge.js'), bin(current));
  copyDist(root, join(current, 'dist'));
  builds.current = { bin: bin(current) };

  if (variants) {
    const before = join(tmp, 'before-15');
    packageDir(root, before);
    writeFileSync(bin(before), LAUNCHER_FLAG_AT_START);
    await buildDist({ outdir: join(before, 'dist'), slimUndici: false, zodLocales: true, plugins: [ZOD_AS_BEFORE] });
    builds['before-15'] = { bin: bin(before) };

    const noLiftoff = join(tmp, 'no-liftoff');
    packageDir(root, noLiftoff);
    writeFileSync(bin(noLiftoff), LAUNCHER_WITHOUT_V8_FLAGS);
    copyDist(root, join(noLiftoff, 'dist'));
    builds['no-liftoff'] = { bin: bin(noLiftoff) };

    builds.micro = await buildMicro(root, join(tmp, 'micro'));
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

async function buildMicro(root, dir) {
  mkdirSync(dir, { recursive: true });
  const bundle = async (name, source, plugins = []) => {
    const entry = join(dir, `${name}.src.mjs`);
    writeFileSync(entry, source);
    const outfile = join(dir, `${name}.mjs`);
    await build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'error',
      nodePaths: [join(root, 'node_modules')],
      banner: { js: CREATE_REQUIRE_BANNER },
      plugins,
    });
    return outfile;
  };
  return {
    undiciWhole: await bundle('undici-whole', MICRO_REQUEST),
    undiciSlice: await bundle('undici-slice', MICRO_REQUEST, [undiciSlice(dir), undiciHttp2OnFirstUse, undiciWithoutFormData, undiciAssertOnFailure]),
    zodBefore: await bundle('zod-before', ZOD_CLASSIC("import { z } from 'zod';")),
    zodNow: await bundle('zod-now', ZOD_CLASSIC("import * as z from 'zod';"), [zodEnglishOnly]),
    zodMini: await bundle('zod-mini', ZOD_MINI),
  };
}
