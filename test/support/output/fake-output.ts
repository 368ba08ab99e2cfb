// An Output writing to strings instead of streams, on a fixed clock, for the output and format tests.
import { makeChalk } from '../../../src/platform/terminal/color.js';
import { csvText } from '../../../src/platform/terminal/csv.js';
import { Output, type OutputInit } from '../../../src/platform/terminal/output.js';
import type { OutputFormat } from '../../../src/core/vocabulary.js';

export const NOW = Date.parse('2026-03-02T10:00:00.000Z');

/** A stream that keeps what is written to it, as text. */
export function collector() {
  let text = '';
  return {
    stream: { write: (chunk: string) => ((text += chunk), true) } as unknown as NodeJS.WritableStream,
    text: () => text,
  };
}

/** An Output in `format` (and `init`): it, and what it printed on stdout and stderr. */
export function output(format: OutputFormat, init: Partial<OutputInit> = {}) {
  const stdout = collector();
  const stderr = collector();
  const out = new Output({
    format,
    chalk: makeChalk(false),
    streams: { stdout: stdout.stream, stderr: stderr.stream },
    now: () => NOW,
    csv: csvText,
    ...init,
  });
  return { out, stdout: stdout.text, stderr: stderr.text };
}
