import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedClusterFolder } from './servers/postgres-server.js';

// End-to-end tests spawn bin/hedge.js, which runs dist/: build it from the current source first.
// The runs share one cache folder (on Node >= 22.1 bin/hedge.js keeps Node's compile cache
// there), as one user's runs do: without it, each run in its private HOME would write its own.
// A spawned run finds `hedge` on its PATH as this checkout's launcher, as a desk does once hedge is
// installed: its hints name `hedge`, as an in-process run's do (test/cli/program-name.test.ts runs
// it without). The team-store files share one PostgreSQL cluster, started by the first that needs
// it (test/support/servers/postgres-server.ts) and stopped here after the run.
export default function setup(): () => Promise<void> {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  const codeCache = mkdtempSync(join(tmpdir(), 'hedge-test-cache-'));
  process.env.HEDGE_TEST_CODE_CACHE_DIR = codeCache;
  const installed = join(codeCache, 'bin');
  mkdirSync(installed);
  symlinkSync(join(process.cwd(), 'bin', 'hedge.js'), join(installed, 'hedge'));
  process.env.HEDGE_TEST_INSTALLED_BIN = installed;
  const stopPostgres = sharedClusterFolder();
  return async () => {
    rmSync(codeCache, { recursive: true, force: true });
    await stopPostgres();
  };
}
