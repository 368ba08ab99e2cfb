// Types of scripts/build.mjs for the tests that import it (test/unit/startup-imports.test.ts).
import type { Plugin } from 'esbuild';

export const CREATE_REQUIRE_BANNER: string;
export function buildDist(options?: { outdir?: string; layout?: 'cjs' | 'esm'; pack?: boolean; lazyChildProcess?: boolean; slimUndici?: boolean; zodLocales?: boolean; plugins?: Plugin[]; manPage?: boolean }): Promise<void>;
export function entryName(path: string): string;
export function checkNoModuleTwice(front: Set<string>, lazy: Set<string>): void;
/** Throws, naming them, when an output of the build would import or require a package at run time. */
export function checkNoPackageAtRunTime(metafiles: Array<{ outputs: Record<string, { imports: Array<{ path: string; external?: boolean }> }> }>): void;
/** Throws, naming them, when esbuild inputs include what the build leaves out (fetch, WebSocket, caches, cookies, mocks, zod's other locales). */
export function checkNothingUnused(inputs: string[]): void;
export function undiciSlice(importers?: string): Plugin;
export const undiciHttp2OnFirstUse: Plugin;
export const undiciWithoutFormData: Plugin;
export const undiciAssertOnFailure: Plugin;
export const zodEnglishOnly: Plugin;
