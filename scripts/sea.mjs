// `npm run build:sea`: hedge as one executable file, for a desk machine without Node.
// Node's single executable applications: a CommonJS main (src/ bundled with the build's own esbuild
// options), made a blob by `node --experimental-sea-config` and injected into a copy of this Node with
// postject: this machine's OS and CPU only (docs/install.md). The main is src/cli/snapshot-main.ts
// and the blob a startup snapshot of the heap it leaves. On macOS the copy's signature is
// removed first and an ad-hoc one made after.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { esbuildOptions } from './esbuild-options.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Node's documented fuse for a single executable's blob. */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
export const SEA_EXECUTABLE = process.platform === 'win32' ? 'hedge.exe' : 'hedge';

/**
 * Builds `<outdir>/hedge` (hedge.exe on Windows) from src/ and dist/completions/ (build dist/ first).
 * `root`: the repository, this one by default. `snapshot`: false builds the
 * code cache's main instead, to measure one against the other (docs/performance.md).
 * @param {{ outdir: string, root?: string, snapshot?: boolean, log?: (line: string) => void }} options
 * @returns {Promise<{ executable: string, seconds: number }>}
 */
export async function buildSea({ outdir, root = ROOT, snapshot = true, log = () => {} }) {
  const started = Date.now();
  mkdirSync(outdir, { recursive: true });
  const work = join(outdir, 'sea-work');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    // 1. The main, one CommonJS script: the snapshot's, or bin/hedge.js with its `import('../dist/cli.js')` bundled from src/.
    const main = join(work, 'hedge.cjs');
    await build({
      ...esbuildOptions(work, { apart: false }),
      entryPoints: [snapshot ? 'src/cli/snapshot-main.ts' : 'bin/hedge.js'],
      outdir: undefined,
      outfile: main,
      splitting: false,
      format: 'cjs',
      sourcemap: false,
      banner: {},
      absWorkingDir: root,
      plugins: [...esbuildOptions(work, { apart: false }).plugins, frontFromSource(root)],
    });

    // 2. The preparation blob: the main's snapshot or code cache, and the completion scripts.
    const assets = Object.fromEntries(
      ['bash', 'zsh', 'fish'].map((shell) => [
        `completions/hedge.${shell}`,
        join(root, 'dist', 'completions', `hedge.${shell}`),
      ]),
    );
    const config = {
      main,
      output: join(work, 'sea.blob'),
      disableExperimentalSEAWarning: true,
      ...(snapshot ? { useSnapshot: true } : { useCodeCache: true }),
      assets,
    };
    const configFile = join(work, 'sea-config.json');
    writeFileSync(configFile, JSON.stringify(config, null, 2));
    execFileSync(process.execPath, ['--experimental-sea-config', configFile], { cwd: work, stdio: 'pipe' });

    // 3. A copy of this Node with the blob injected.
    const executable = join(outdir, SEA_EXECUTABLE);
    rmSync(executable, { force: true });
    copyFileSync(process.execPath, executable);
    chmodSync(executable, 0o755);
    if (process.platform === 'darwin') execFileSync('codesign', ['--remove-signature', executable]);
    const { inject } = createRequire(import.meta.url)('postject');
    // postject's ELF library warns (console.warn) about every note section it cannot name, which
    // says nothing about the result: those lines are dropped, anything else is shown.
    const warn = console.warn;
    console.warn = (...parts) => {
      if (!/^warning: Can't find string offset for section name/.test(String(parts[0]))) warn(...parts);
    };
    try {
      await inject(executable, 'NODE_SEA_BLOB', readFileSync(config.output), {
        sentinelFuse: SEA_FUSE,
        ...(process.platform === 'darwin' ? { machoSegmentName: 'NODE_SEA' } : {}),
      });
    } finally {
      console.warn = warn;
    }
    if (process.platform === 'darwin') execFileSync('codesign', ['--sign', '-', executable]);
    const seconds = (Date.now() - started) / 1000;
    log(`sea: ${executable} (${(statSync(executable).size / 1024 / 1024).toFixed(0)} MiB) in ${seconds.toFixed(1)} s`);
    return { executable, seconds };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The launcher's `import('../dist/cli.js')` bundled from src/cli/main.ts instead of a built dist/. */
function frontFromSource(root) {
  return {
    name: 'front-from-source',
    setup(builder) {
      builder.onResolve({ filter: /^\.\.\/dist\/cli\.js$/ }, () => ({ path: join(root, 'src', 'cli', 'main.ts') }));
    },
  };
}
