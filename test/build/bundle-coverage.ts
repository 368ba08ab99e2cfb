// What code of dist/ a process ran, by the src/ file or package it came from: V8's block coverage of
// a run (NODE_V8_COVERAGE, or the inspector's precise coverage taken after each run) mapped through the
// bundle's source map. A module loaded is one whose code ran: a bundle holds every module, and
// what a command pays for is the modules it evaluates and calls.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { decode } from '@jridgewell/sourcemap-codec';

interface Mapped {
  url: string;
  text: string;
  sources: string[];
  /** Each mapping of the generated code: its offset in the file and the index of its source. */
  offsets: Int32Array;
  sourceAt: Int32Array;
}

/** A dist/ script and its source map, decoded. */
export function mappedScript(file: string): Mapped {
  const text = readFileSync(file, 'utf8');
  const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[]; mappings: string };
  const lineStarts = [0];
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lineStarts.push(at + 1);
  const offsets: number[] = [];
  const sourceAt: number[] = [];
  decode(map.mappings).forEach((segments, line) => {
    for (const [column, source] of segments) {
      if (source === undefined) continue;
      offsets.push(lineStarts[line] + column);
      sourceAt.push(source);
    }
  });
  return {
    url: pathToFileURL(file).href,
    text,
    sources: map.sources.map((name) => name.replace(/^(\.\.\/)+/, '')),
    offsets: Int32Array.from(offsets),
    sourceAt: Int32Array.from(sourceAt),
  };
}

interface Range {
  startOffset: number;
  endOffset: number;
  count: number;
}

/**
 * The sources whose code ran inside a function of the scripts, in one coverage file: each function's
 * and block's count painted outermost first, so the innermost range decides. The script's own top
 * level is left out: it also holds what the bundler hoisted out of every lazily run module (the
 * object of its exports), so only code in a function counts; a module run lazily runs in its wrapper.
 */
export function sourcesRan(scripts: readonly Mapped[], coverageFile: string) {
  const coverage = JSON.parse(readFileSync(coverageFile, 'utf8')) as {
    result: Array<{ url: string; functions: Array<{ ranges: Range[] }> }>;
  };
  const ran = new Set<string>();
  for (const script of scripts) {
    const entry = coverage.result.find((each) => each.url === script.url);
    if (entry) paint(script, entry.functions, ran);
  }
  return ran;
}

/** Adds to `ran` the sources of `script` whose code ran inside a function, by the functions' ranges. */
function paint(script: Mapped, functions: Array<{ ranges: Range[] }>, ran: Set<string>) {
  const ranges = functions
    .flatMap((fn) => fn.ranges)
    .filter((range) => range.startOffset > 0 || range.endOffset < script.text.length)
    .sort((a, b) => a.startOffset - b.startOffset || b.endOffset - a.endOffset);
  const painted = new Uint8Array(script.text.length);
  for (const range of ranges) painted.fill(range.count > 0 ? 1 : 0, range.startOffset, range.endOffset);
  for (let index = 0; index < script.offsets.length; index++)
    if (painted[script.offsets[index]]) ran.add(script.sources[script.sourceAt[index]]);
}

/** The coverage files a process wrote into `dir` (NODE_V8_COVERAGE). */
export const coverageFiles = (dir: string) =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => join(dir, name));

/** The package a source belongs to (`@scope/name` or `name`), or undefined for hedge's own. */
export const packageOf = (source: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source)?.[1];
