// The tarball declares no runtime dependency: dist/ bundles every package hedge uses (no dist/ file
// loads one at run time: test/build/startup-imports.test.ts). The install itself is checked end to
// end in test/build/pack-install.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/hedge-cli.js';

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies?: Record<string, string>;
  devDependencies: Record<string, string>;
  files: string[];
  man: string[];
};

describe('package.json', () => {
  it('declares no dependencies: what runs is bundled into dist/, which it ships with the manual page', () => {
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.files).toContain('dist');
    expect(manifest.man).toEqual(['./dist/hedge.1']);
  });
});
