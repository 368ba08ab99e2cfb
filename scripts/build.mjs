// Builds dist/ from src/ in two parts, chosen by measurement (bench/results.md):
//
//   dist/cli.cjs  the front door: argument parsing, --help and --version. CommonJS, commander
//                 bundled in, nothing else: a CommonJS entry skips the start-up of Node's ESM
//                 loader, which on Node 20 costs about as much as everything else `hedge --help`
//                 does.
//   dist/*.js     what a command runs: one ESM entry per module the front imports lazily (the
//                 runner and each command), with every dependency bundled in and shared code
//                 split into chunk-*.js, so a command loads a few files instead of hundreds.
//
// The front only ever hands data (the parsed command, its input and globals) to the ESM side,
// so it is fine that the few small modules both sides use (errors, version) exist in each.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { basename, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = 'dist';
/** The only package the front may contain; anything else belongs behind a lazy import. */
const FRONT_PACKAGES = ['commander'];

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
  metafile: true,
};

rmSync(`${root}/${outdir}`, { recursive: true, force: true });

// Every `import('./x.js')` in the front becomes an entry of the ESM build, at dist/x.js.
const lazyEntries = new Set();
const lazyImportsStayOutside = {
  name: 'lazy-imports-stay-outside',
  setup(builder) {
    builder.onResolve({ filter: /^\.\.?\// }, async (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      const resolved = await builder.resolve(args.path, { kind: 'import-statement', resolveDir: args.resolveDir });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      lazyEntries.add(relative(root, resolved.path));
      return { path: `./${basename(resolved.path).replace(/\.ts$/, '.js')}`, external: true };
    });
  },
};

const front = await build({
  ...common,
  entryPoints: ['src/cli.ts'],
  outfile: `${outdir}/cli.cjs`,
  format: 'cjs',
  plugins: [lazyImportsStayOutside],
});
const frontPackages = new Set(
  Object.keys(front.metafile.inputs)
    .filter((input) => input.includes('node_modules/'))
    .map((input) => packageName(input)),
);
const strays = [...frontPackages].filter((name) => !FRONT_PACKAGES.includes(name));
if (strays.length > 0) {
  throw new Error(`dist/cli.cjs must stay small, but it bundles ${strays.join(', ')}: import these lazily.`);
}

await build({
  ...common,
  entryPoints: [...lazyEntries].sort(),
  outdir,
  entryNames: '[name]',
  chunkNames: 'chunk-[hash]',
  splitting: true,
  format: 'esm',
  // Bundled CommonJS dependencies call require(); in an ES module it has to be made.
  banner: {
    js: "import { createRequire as __hedgeCreateRequire } from 'node:module'; const require = __hedgeCreateRequire(import.meta.url);",
  },
});

function packageName(input) {
  const path = input.slice(input.lastIndexOf('node_modules/') + 'node_modules/'.length).split('/');
  return path[0].startsWith('@') ? `${path[0]}/${path[1]}` : path[0];
}
