// How `hedge api` prints an answer: an error envelope as it came, so its `error` is never shaped away.
import { safeJson } from '../../core/security/safe-text.js';
import type { Output } from '../terminal/output.js';

interface PrintableAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

function statusAndHeaders(answer: PrintableAnswer) {
  // node:http's table by getBuiltinModule: its ES import costs Node >= 22 its undici (api/transport.ts).
  const lines = [
    `HTTP/1.1 ${answer.status} ${process.getBuiltinModule('node:http').STATUS_CODES[answer.status] ?? ''}`.trimEnd(),
  ];
  for (const [name, value] of Object.entries(answer.headers))
    for (const one of [value ?? []].flat()) lines.push(`${name}: ${one}`);
  return `${lines.join('\n')}\n\n`;
}

function mergedEnvelope(pages: readonly PrintableAnswer[]) {
  const bodies = pages.map((page) => page.body as { data?: unknown; meta?: unknown } | undefined);
  if (bodies.length === 1) return bodies[0];
  if (!bodies.every((body) => body && Array.isArray(body.data))) return bodies;
  return { data: bodies.flatMap((body) => body!.data as unknown[]), error: null, meta: bodies.at(-1)!.meta ?? {} };
}

export function printAnswers(
  output: Output,
  pages: readonly PrintableAnswer[],
  /** `include`: the status line and headers first; `failed`: the last answer alone, as it came. */
  options: { include?: boolean; failed?: boolean } = {},
) {
  if (options.include) for (const page of pages) output.write(statusAndHeaders(page));
  const printable = pages.filter((page) => page.body !== undefined);
  if (!printable.length) return;
  if (options.failed) return output.write(safeJson(printable.at(-1)!.body, 2));
  // Any endpoint, as it answered: hedge's one shape is for the commands that know their data. NDJSON: one envelope per line, as each page came.
  const pagesApart = output.format === 'ndjson' && printable.length > 1;
  output.json(pagesApart ? printable.map((page) => page.body) : mergedEnvelope(printable), [], { asSent: true });
}
