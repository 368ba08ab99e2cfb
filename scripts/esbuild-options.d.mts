// Types of scripts/esbuild-options.mjs for the test that builds the plain bundle beside the shipped one (test/build/bundle-output.test.ts).
import type { BuildOptions, Plugin } from 'esbuild';
export function esbuildOptions(outdir: string, options?: { apart?: boolean }): BuildOptions & { plugins: Plugin[] };
