// A module of src/ bundled with esbuild for child processes of a test (a CommonJS file a plain
// `node` child can require), in a scratch folder the test may use too; removed after the file's tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { ROOT } from '../hedge-cli.js';

/**
 * Bundles `entry` (a path from the project root) before the file's tests, for its children: the scratch
 * folder (set before the file's tests run) and the bundled module inside it.
 */
export function useChildBundle(entry: string, scratchPrefix: string) {
  const made = { scratch: '', bundle: '' };
  beforeAll(async () => {
    made.scratch = mkdtempSync(join(tmpdir(), scratchPrefix));
    made.bundle = join(made.scratch, 'bundle.cjs');
    await build({
      absWorkingDir: ROOT,
      entryPoints: [entry],
      outfile: made.bundle,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      logLevel: 'silent',
    });
  });
  afterAll(() => rmSync(made.scratch, { recursive: true, force: true }));
  return made;
}
