// Types of scripts/build.mjs for the tests that import it.
import type { BuildOptions } from 'esbuild';

export const SHELLS: readonly ['bash', 'zsh', 'fish'];
export function esbuildOptions(outdir: string): BuildOptions;
export function buildDist(options?: { outdir?: string }): Promise<void>;
/** Throws, naming them, when an output of the build would import or require a package at run time. */
export function checkNoPackageAtRunTime(
  metafiles: Array<{ outputs: Record<string, { imports: Array<{ path: string; external?: boolean }> }> }>,
): void;
