// What `hedge --version` and `hedge --help` load, checked on the built binary (dist/ is built by the
// global setup): neither may load zod, @inquirer/prompts, ora, undici or conf. Two views:
//   - the bundle: dist/cli.cjs (the front door) bundles only commander, requires only Node
//     built-ins, and reaches everything else through import() of dist/ files;
//   - a real run: a loader hook records every file the process loads, and each dist/ file is
//     mapped to the packages bundled in it (esbuild marks each bundled file with a comment).
// A positive control proves the recording sees lazily imported chunks and their packages.
// Structure only: nothing here measures time (that is `npm run bench`).
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { HEDGE_BIN, ROOT, baseEnv, tempDir } from '../support/hedge-cli.js';

const DIST = join(ROOT, 'dist');
// @inquirer/prompts itself only re-exports, so its code in a bundle is that of @inquirer/*.
const HEAVY = ['zod', '@inquirer/*', 'ora', 'undici', 'conf'];
const has = (packages: Set<string>, name: string): boolean =>
  name.endsWith('/*') ? [...packages].some((found) => found.startsWith(name.slice(0, -1))) : packages.has(name);
const work = tempDir('hedge-startup-');
afterAll(() => work.remove());

/** The packages whose files esbuild bundled into a dist/ file, from its `// …/node_modules/x/…` markers. */
function bundledPackages(file: string): Set<string> {
  const packages = new Set<string>();
  for (const match of readFileSync(file, 'utf8').matchAll(/^\/\/ .*?node_modules\/((?:@[^/\s]+\/)?[^/\s]+)\//gm)) {
    packages.add(match[1]);
  }
  return packages;
}

// Records every module the child loads: ES modules through a resolve hook (Node >= 20.6),
// CommonJS ones from require.cache when the process exits.
const hooksFile = join(work.path, 'hooks.mjs');
const registerFile = join(work.path, 'register.mjs');
writeFileSync(
  hooksFile,
  `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.HEDGE_LOAD_LOG, result.url + '\\n');
  return result;
}
`,
);
writeFileSync(
  registerFile,
  `import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
register(${JSON.stringify(pathToFileURL(hooksFile).href)});
const cache = createRequire(import.meta.url).cache;
process.on('exit', () => appendFileSync(process.env.HEDGE_LOAD_LOG, Object.keys(cache).join('\\n') + '\\n'));
`,
);

interface Loaded {
  code: number | null;
  stdout: string;
  /** dist/ files loaded, by name. */
  distFiles: string[];
  /** Packages bundled into the dist/ files loaded, plus any loaded from node_modules directly. */
  packages: Set<string>;
}

let runs = 0;
function loadedBy(args: string[]): Loaded {
  const log = join(work.path, `load-${(runs += 1)}.log`);
  writeFileSync(log, '');
  const env = { ...baseEnv(work.path), HEDGE_LOAD_LOG: log };
  const child = spawnSync(process.execPath, ['--import', pathToFileURL(registerFile).href, HEDGE_BIN, ...args], {
    env,
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 20_000,
  });
  const files = new Set(
    readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((entry) => (entry.startsWith('file:') ? new URL(entry).pathname : entry)),
  );
  const distFiles = [...files].filter((file) => file.startsWith(`${DIST}/`)).map((file) => file.slice(DIST.length + 1));
  const packages = new Set<string>();
  for (const file of distFiles) for (const name of bundledPackages(join(DIST, file))) packages.add(name);
  for (const file of files) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
    if (match) packages.add(match[1]);
  }
  return { code: child.status, stdout: child.stdout, distFiles: distFiles.sort(), packages };
}

describe('the bundle', () => {
  const front = readFileSync(join(DIST, 'cli.cjs'), 'utf8');

  it('keeps the front door to commander and Node built-ins', () => {
    expect([...bundledPackages(join(DIST, 'cli.cjs'))]).toEqual(['commander']);
    const required = [...front.matchAll(/\brequire\("([^"]+)"\)/g)].map((match) => match[1]);
    expect(required.length).toBeGreaterThan(0);
    expect(required.filter((name) => !name.startsWith('node:'))).toEqual([]);
  });

  it('reaches each command only through import() of a dist/ file', () => {
    const imported = [...front.matchAll(/\bimport\("([^"]+)"\)/g)].map((match) => match[1]);
    expect(imported).toContain('./cli-run.js');
    expect(imported).toContain('./commands-markets.js');
    const distFiles = new Set(readdirSync(DIST));
    for (const specifier of imported) expect(distFiles.has(specifier.slice(2)), specifier).toBe(true);
  });

  it('bundles the heavy packages into dist/ chunks (so that the recording below can see them)', () => {
    const all = new Set(readdirSync(DIST).filter((file) => file.endsWith('.js')).flatMap((file) => [...bundledPackages(join(DIST, file))]));
    for (const name of HEAVY) expect(has(all, name), name).toBe(true);
  });
});

describe('a real start', () => {
  it.each([['--version'], ['-V'], ['--help'], ['quote', '--help'], ['sandbox', 'serve', '--help']].map((args) => [args.join(' '), args]))(
    'hedge %s loads the front door only',
    (_name, args) => {
      const loaded = loadedBy(args);
      expect(loaded.code).toBe(0);
      expect(loaded.stdout).toMatch(/^(\d+\.\d+\.\d+\n|Usage: hedge)/);
      expect(loaded.distFiles.filter((file) => file !== 'cli.cjs')).toEqual([]);
      for (const name of HEAVY) expect(has(loaded.packages, name), name).toBe(false);
    },
  );

  it('sees what a command loads lazily (positive control)', () => {
    const exitCodes = loadedBy(['help', 'exit-codes']);
    expect(exitCodes.code).toBe(0);
    expect(exitCodes.distFiles).toContain('ui-exit-code-table.js');

    // No key anywhere: the command fails on credentials, after loading the runner and zod.
    const markets = loadedBy(['markets', '--json']);
    expect(markets.code).not.toBe(0);
    expect(markets.distFiles).toContain('cli-run.js');
    expect(has(markets.packages, 'zod')).toBe(true);
  });
});
