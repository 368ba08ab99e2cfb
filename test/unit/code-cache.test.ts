// bin/code-cache.js on the built package (dist/ is built by the global set-up): what it writes,
// what it reads back, and that nothing about the cache can fail a command; and the help it keeps.
// Each run reports what the loader did (HEDGE_CODE_CACHE_REPORT); the command's own output is
// checked beside it.
// Structure only: nothing here measures time (that is `npm run bench`).
import { chmodSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runHedge, tempDir } from '../support/hedge-cli.js';

const work = tempDir('hedge-code-cache-');
afterAll(() => work.remove());

interface Report {
  dir: string;
  read: number;
  rejected: number;
  compiled: number;
  written: number;
}

let runs = 0;
async function run(args: string[], cacheDir: string, extra: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; report?: Report }> {
  const report = join(work.path, `report-${(runs += 1)}.json`);
  const result = await runHedge(args, { env: { HEDGE_CACHE_DIR: cacheDir, HEDGE_CODE_CACHE_REPORT: report, ...extra }, configDir: join(work.path, `config-${runs}`) });
  return { code: result.code, stdout: result.stdout, report: existsSync(report) ? (JSON.parse(readFileSync(report, 'utf8')) as Report) : undefined };
}

describe('the code cache', () => {
  it('is written by the first run and read by the next, also after a command that changed V8 flags for its request', async () => {
    const cacheDir = join(work.path, 'cache-a');
    // --demo markets makes a real request (undici sets --liftoff-only for it).
    const first = await run(['--demo', 'markets', '--json'], cacheDir);
    expect(first.code).toBe(0);
    expect(first.report).toMatchObject({ read: 0, rejected: 0 });
    expect(first.report!.written).toBe(first.report!.compiled);
    expect(first.report!.compiled).toBeGreaterThan(5);
    expect(readdirSync(first.report!.dir).filter((name) => name.endsWith('.v8'))).toHaveLength(first.report!.written);

    const second = await run(['--demo', 'markets', '--json'], cacheDir);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual(JSON.parse(first.stdout).map(() => expect.objectContaining({ market: expect.any(String) })));
    expect(second.report).toMatchObject({ read: first.report!.written, rejected: 0, compiled: 0, written: 0 });
  });

  it('keeps its folder private (mode 0700) and ignores one others may write to', async () => {
    const cacheDir = join(work.path, 'cache-b');
    const first = await run(['completion', 'bash'], cacheDir);
    expect(first.report!.written).toBeGreaterThan(0);
    const { dir } = first.report!;
    if (process.platform !== 'win32') expect((await import('node:fs')).statSync(dir).mode & 0o777).toBe(0o700);
    chmodSync(dir, 0o777);
    const shared = await run(['completion', 'bash'], cacheDir);
    expect(shared.code).toBe(0);
    expect(shared.stdout).toBe(first.stdout);
    // Neither read from nor written to.
    expect(shared.report).toMatchObject({ read: 0, written: 0 });
  });

  it('never fails a command: a cache folder that cannot be made, or cached data that is damaged', async () => {
    const blocked = join(work.path, 'not-a-folder');
    writeFileSync(blocked, 'a file where the cache folder would go');
    const unwritable = await run(['completion', 'bash'], blocked);
    expect(unwritable.code).toBe(0);
    expect(unwritable.stdout).toMatch(/bash completion for hedge/);
    expect(unwritable.report).toMatchObject({ read: 0, written: 0 });

    const cacheDir = join(work.path, 'cache-c');
    const first = await run(['completion', 'bash'], cacheDir);
    for (const name of readdirSync(first.report!.dir)) {
      const file = join(first.report!.dir, name);
      const bytes = readFileSync(file);
      // The header still matches its source; V8's own data is garbage.
      bytes.fill(0x5a, 16);
      writeFileSync(file, bytes);
    }
    const damaged = await run(['completion', 'bash'], cacheDir);
    expect(damaged.code).toBe(0);
    expect(damaged.stdout).toBe(first.stdout);
    expect(damaged.report!.read).toBe(0);
    expect(damaged.report!.rejected).toBe(first.report!.written);
    // Written again, and good from then on.
    const repaired = await run(['completion', 'bash'], cacheDir);
    expect(repaired.report).toMatchObject({ read: first.report!.written, rejected: 0, compiled: 0 });
  });

  it('is off with HEDGE_CODE_CACHE=0', async () => {
    const cacheDir = join(work.path, 'cache-d');
    const off = await run(['completion', 'bash'], cacheDir, { HEDGE_CODE_CACHE: '0' });
    expect(off.code).toBe(0);
    expect(off.report).toBeUndefined();
    expect(existsSync(cacheDir)).toBe(false);
  });
});

describe('help kept beside the cached code', () => {
  it('prints what the first run laid out, without loading any of dist/, at that width only', async () => {
    const cacheDir = join(work.path, 'cache-e');
    for (const args of [['--help'], ['quote', '--help'], ['help', 'exit-codes']]) {
      const first = await run(args, cacheDir);
      expect(first.code).toBe(0);
      // The first run loaded the front door and laid the help out.
      expect(first.report!.compiled + first.report!.read).toBeGreaterThan(0);
      const again = await run(args, cacheDir);
      expect(again.code).toBe(0);
      expect(again.stdout).toBe(first.stdout);
      // Nothing of dist/ was loaded: the loader never ran.
      expect(again.report).toBeUndefined();
    }
    // The help is laid out for at most 80 columns; a narrower terminal gets its own layout.
    const narrower = await run(['--help'], cacheDir, { COLUMNS: '50' });
    const usual = await run(['--help'], cacheDir);
    expect(narrower.report).toBeDefined();
    expect(narrower.stdout).not.toBe(usual.stdout);
    expect(Math.max(...narrower.stdout.split('\n').map((line) => line.length))).toBeLessThanOrEqual(50);
    expect(Math.max(...usual.stdout.split('\n').map((line) => line.length))).toBeGreaterThan(50);
  });

  it('keeps nothing for a run that said anything on stderr, nor for other arguments', async () => {
    const cacheDir = join(work.path, 'cache-f');
    // commander answers `help` of an unknown command with the help on stderr.
    for (const args of [['help', 'no-such-command'], ['quote', '--bogus', '--help']]) {
      const first = await run(args, cacheDir);
      const again = await run(args, cacheDir);
      expect(again.code).toBe(first.code);
      expect(again.stdout).toBe(first.stdout);
      expect(again.report).toBeDefined();
    }
    expect(readdirSync(cacheDir, { recursive: true }).filter((name) => String(name).includes('help-'))).toEqual([]);
  });
});
