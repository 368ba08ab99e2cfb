// Set-up as a new user meets it: `npm pack` (for a user its prepack is the one build; here the
// suite's global set-up has just run that same build, and `--ignore-scripts` keeps npm pack from
// rebuilding dist/ under the test files running beside this one), then
// `npm install -g ./hedge-*.tgz` into a temporary prefix gives a working `hedge` on that prefix's
// bin/; and an unbuilt checkout run as `node bin/hedge.js` says to run the build instead of a stack
// trace. Nothing here changes a tracked file: the tarball and the prefix live in a temp folder.
//
// dist/ bundles every dependency and the package declares none, so the install needs nothing from
// a registry: it runs --offline, and installs exactly one package (hedge itself, with its manual page).
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { baseEnv, ROOT, tempDir } from '../support/hedge-cli.js';
import { run, type Run } from './run-process.js';
import { exits } from '../support/cli-runs.js';
import { readStore, writeStore } from '../support/config-store.js';

/**
 * What git sees of the paths npm pack could touch: the manifest and lockfile, what the package
 * ships (bin/; dist/ is built and ignored), and a tarball left in the checkout. The
 * rest of the tree is not compared, so that someone editing it while the suite runs does not read
 * as a change made by npm pack.
 */
async function workTreeStatus() {
  const paths = ['package.json', 'package-lock.json', 'bin', 'dist', '*.tgz'];
  const status = await run('git', ['status', '--porcelain', '--untracked-files=all', '--', ...paths], { cwd: ROOT });
  expect(status.code).toBe(0);
  return status.stdout;
}

const MANIFEST = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const VERSION = MANIFEST.version;

// One install, in steps that each have the test bound: the tarball, the install, each command of it.
describe('installing from the packed tarball', () => {
  const dir = tempDir('hedge-pack-');
  const prefix = join(dir.path, 'prefix');
  let statusBefore = '';
  let pack: Run;
  let env: Record<string, string> = {};
  beforeAll(async () => {
    statusBefore = await workTreeStatus();
    pack = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', dir.path, '--json'], { cwd: ROOT });
    // Real work (npm starts, reads and gzips dist/), which a loaded machine stretches: run()'s own 90 s bound, and room.
  }, 120_000);
  afterAll(() => dir.remove());

  it('npm pack writes the tarball in the temp folder, with bin/, dist/ (man page, completions, every script of it: those loaded on first use too) and no sources or source maps', () => {
    exits(pack, 0);
    const [packed] = JSON.parse(pack.stdout);
    const files: string[] = packed.files.map((file: { path: string }) => file.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'bin/hedge.js',
        'dist/cli.js',
        'dist/hedge.1',
        ...['bash', 'zsh', 'fish'].map((shell) => `dist/completions/hedge.${shell}`),
        ...readdirSync(join(ROOT, 'dist'), { recursive: true, encoding: 'utf8' })
          .filter((file) => file.endsWith('.js'))
          .map((file) => `dist/${file}`),
      ]),
    );
    expect(files).toContain('dist/lazy/conf.js'); // the scan above sees the files kept apart
    expect(files.filter((path) => /^(src|test|scripts|bench)\//.test(path) || path.endsWith('.map'))).toEqual([]);
    expect(existsSync(join(dir.path, packed.filename))).toBe(true);
    expect(existsSync(join(ROOT, packed.filename))).toBe(false);
  });

  it('npm install -g of the tarball into a temp prefix, offline, installs hedge alone, its man page, and `hedge` on the prefix bin/', async () => {
    const [packed] = JSON.parse(pack.stdout);
    // The manifest declares no dependency (dist/ bundles them) and ships the manual page.
    expect([MANIFEST.dependencies, MANIFEST.man]).toEqual([undefined, ['./dist/hedge.1']]);
    const install = await run(
      'npm',
      [
        'install',
        '--global',
        '--prefix',
        prefix,
        '--offline',
        '--no-audit',
        '--no-fund',
        join(dir.path, packed.filename),
      ],
      { cwd: dir.path },
    );
    exits(install, 0);
    // Nothing but hedge: no dependency fetched, none installed beside it.
    expect(install.stdout).toMatch(/\badded 1 package\b/);
    const installed = join(prefix, 'lib', 'node_modules');
    expect(readdirSync(installed)).toEqual(['hedge']);
    expect(existsSync(join(installed, 'hedge', 'node_modules'))).toBe(false);
    // npm links the manual page where `man` looks under the prefix.
    expect(readFileSync(join(prefix, 'share', 'man', 'man1', 'hedge.1'), 'utf8')).toMatch(/^\.TH HEDGE 1 /m);

    // The command a user gets on PATH is the installed copy, not this checkout.
    const hedge = join(prefix, 'bin', 'hedge');
    expect(realpathSync(hedge)).toBe(join(realpathSync(prefix), 'lib', 'node_modules', 'hedge', 'bin', 'hedge.js'));
    const configDir = join(dir.path, 'config');
    mkdirSync(configDir);
    env = { ...baseEnv(configDir), PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}` };
    // As npm pack: real work, which a loaded machine stretches; run()'s own 90 s bound, and room.
  }, 120_000);

  it("the installed `hedge --version` and `hedge --demo markets --json` work; the team store's client (bundled, loaded on first use) runs from the installed copy: a store nobody listens on is exit 13, not a missing module; a write to the config store (conf, a file of dist/lazy/) lands", async () => {
    const version = await run('hedge', ['--version'], { cwd: dir.path, env });
    expect(version).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });

    const markets = await run('hedge', ['--demo', 'markets', '--json'], { cwd: dir.path, env });
    exits(markets, 0);
    expect(JSON.parse(markets.stdout)).toEqual([expect.objectContaining({ market: 'USDTNGN', status: 'open' })]);
    const store = await run('hedge', ['journal', '--json'], {
      cwd: dir.path,
      env: { ...env, HEDGE_JOURNAL_URL: 'postgres://desk@127.0.0.1:9/hedge' },
    });
    exits(store, 13);
    expect(JSON.parse(store.stderr).error).toMatchObject({
      code: 'state',
      message: expect.stringContaining('postgres://desk@127.0.0.1:9/hedge cannot be reached'),
    });
    const profile = { base_url: 'http://127.0.0.1:9/v2', api_key: 'hk_test_unused' };
    writeStore(env.HEDGE_CONFIG_DIR!, { current: 'desk', profiles: { desk: profile, spare: profile } });
    exits(await run('hedge', ['profile', 'use', 'spare'], { cwd: dir.path, env }), 0);
    expect(readStore(env.HEDGE_CONFIG_DIR!).current).toBe('spare');
  });

  it('npm pack and the install changed nothing git tracks', async () => {
    expect(await workTreeStatus()).toBe(statusBefore);
  });
});

it('an unbuilt checkout: `node bin/hedge.js` says to run the build (exit 1, no stack trace); --version still answers', async () => {
  const dir = tempDir('hedge-unbuilt-');
  try {
    cpSync(join(ROOT, 'bin'), join(dir.path, 'bin'), { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(dir.path, 'package.json'));
    const env = baseEnv(dir.path);
    const markets = await run(process.execPath, ['bin/hedge.js', 'markets'], { cwd: dir.path, env });
    expect(markets).toEqual({
      code: 1,
      stdout: '',
      stderr: `hedge is not built yet: run \`npm run build\` in ${dir.path} first.\n`,
    });
    const version = await run(process.execPath, ['bin/hedge.js', '--version'], { cwd: dir.path, env });
    expect(version).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  } finally {
    dir.remove();
  }
});
