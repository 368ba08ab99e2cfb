// Builds dist/ from src/ with one esbuild configuration (scripts/esbuild-options.mjs):
//
//   dist/cli.js          the program (src/cli/main.ts) and the packages it uses (but dist/lazy/'s), one minified
//                        script: a module reached through a lazy `import()` (the runner, each
//                        command) runs only when that import does, so a command runs what it uses
//                        and no more (test/build/startup-imports.test.ts); one file is read and
//                        compiled (from Node's compile cache) instead of a chain of chunks
//                        the functions the main jobs run are in parentheses, so that V8 compiles them with the
//                        script and Node's compile cache keeps them (scripts/eager-functions.mjs)
//   dist/lazy/           the ES-module packages no main job runs (the prompts, ora, log-update, conf, the MCP SDK),
//                        each a file read only when src/'s `import()` of it runs, so that the one script's start
//                        neither reads nor compiles them (scripts/esbuild-options.mjs, APART)
//   dist/reference.js    the specs and the exit codes (src/cli/reference.ts), for the two below
//   dist/hedge.1         the manual page, from the specs (scripts/man-page.mjs)
//   dist/help.txt        `hedge --help` at 80 columns, which bin/hedge.js prints without loading dist/
//   dist/completions/    hedge.bash, hedge.zsh, hedge.fish, from the specs (src/cli/completion-scripts.ts)
//   completions/         the same three files at the top of the project, committed to git (the
//                        design's layout; a packager's or a checkout's copy): rewritten only when
//                        they differ, and test/cli/completion-sync.test.ts fails when what git
//                        holds is not what the specs generate
//
// No package loaded at run time (the tarball declares none), and every Node built-in taken when first
// used (test/build/startup-imports.test.ts checks both on the built dist/); what every command prints
// is what the plain build of the same src/ prints (test/build/bundle-output.test.ts).
// Start-up machinery: bin/hedge.js (docs/performance.md). `--sea`: the single executable too.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { renderManPage } from './man-page.mjs';
import { copyNativeBindings } from './native-bindings.mjs';
import { apartOptions, esbuildOptions } from './esbuild-options.mjs';
import { compileRunFunctionsEagerly } from './eager-functions.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SHELLS = ['bash', 'zsh', 'fish'];

/**
 * Builds into `outdir` (default dist/). Built beside the target and swapped in at the end, so that
 * a hedge process started meanwhile (a test run, a shell) never finds dist/ half-written.
 */
export async function buildDist({ outdir = 'dist' } = {}) {
  const target = isAbsolute(outdir) ? outdir : join(ROOT, outdir);
  const out = `${target}.building-${process.pid}`;
  rmSync(out, { recursive: true, force: true });
  try {
    await build(esbuildOptions(out));
    await build(apartOptions(out));
    await writeReference(out);
    copyNativeBindings(ROOT, out); // the OS keyring's binding, opened lazily by src/platform/config/os-keyring.ts
    const eager = compileRunFunctionsEagerly(join(out, 'cli.js'));
    if (eager.reason) process.stderr.write(`build: dist/cli.js left as esbuild wrote it (${eager.reason})\n`);
    const old = `${target}.old-${process.pid}`;
    try {
      renameSync(target, old);
    } catch (error) {
      if (error.code !== 'ENOENT') throw error;
    }
    renameSync(out, target);
    rmSync(old, { recursive: true, force: true });
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** The manual page and the completion scripts, from the specs the build just bundled. */
async function writeReference(out) {
  const reference = await import(pathToFileURL(join(out, 'reference.js')).href);
  writeFileSync(join(out, 'hedge.1'), renderManPage(reference.manPageInput()));
  writeFileSync(join(out, 'help.txt'), reference.rootHelp(80));
  mkdirSync(join(out, 'completions'));
  for (const shell of SHELLS) {
    const script = reference.completionScript(shell);
    writeFileSync(join(out, 'completions', `hedge.${shell}`), script);
    writeProjectFile(join(ROOT, 'completions', `hedge.${shell}`), script);
  }
}

/**
 * A generated file of the project itself (committed): written only when its text changes, and
 * swapped in whole, so that a build beside a running test or a reading shell never leaves it half
 * written, and an unchanged one keeps its time.
 */
function writeProjectFile(path, text) {
  let now;
  try {
    now = readFileSync(path, 'utf8');
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
  }
  if (now === text) return;
  mkdirSync(join(path, '..'), { recursive: true });
  const temporary = `${path}.building-${process.pid}`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  await buildDist();
  if (process.argv.includes('--sea')) {
    const { buildSea } = await import('./sea.mjs');
    await buildSea({ outdir: join(ROOT, 'dist-sea'), log: (line) => process.stderr.write(`${line}\n`) });
  }
}
