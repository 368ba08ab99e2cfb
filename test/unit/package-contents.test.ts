// The tarball declares no runtime dependency: dist/ bundles every package hedge uses, and the
// build fails when an output would still load one at run time (scripts/build.mjs). The install
// itself is checked end to end in test/e2e/pack-install.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkNoPackageAtRunTime } from '../../scripts/build.mjs';
import { ROOT } from '../support/hedge-cli.js';

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies?: Record<string, string>;
  devDependencies: Record<string, string>;
  files: string[];
  man: string[];
};

const outputs = (...paths: string[]) => [{ outputs: { 'dist/x.js': { imports: paths.map((path) => ({ path, external: true })) } } }];

describe('package.json', () => {
  it('declares no dependencies: what runs is bundled into dist/, which it ships with the manual page', () => {
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.files).toContain('dist');
    expect(manifest.man).toEqual(['./dist/hedge.1']);
  });
});

describe('the build check that nothing in dist/ loads a package at run time', () => {
  it('passes Node built-ins and files of dist/', () => {
    expect(() => checkNoPackageAtRunTime(outputs('node:fs', 'fs', 'child_process', './cli.js', './chunk-ABC.js'))).not.toThrow();
  });

  it('names a package an output would load', () => {
    expect(() => checkNoPackageAtRunTime(outputs('node:fs', 'zod', '@inquirer/prompts'))).toThrow(
      'dist/ would load these packages at run time instead of bundling them: zod, @inquirer/prompts.',
    );
  });
});
