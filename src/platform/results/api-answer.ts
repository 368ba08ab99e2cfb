// How `hedge api` prints an answer: an error envelope as it came, so its `error` is never shaped away.
import { safeJson } from '../../core/security/safe-text.js';
import type { Output } from '../terminal/output.js';

export function printAnswers(
  output: Output,
  pages: ReadonlyArray<{ status: number; headers: Record<string, string | string[] | undefined>; body: unknown }>,
  /** The status line and headers first. */
  include = false,
  /** The last answer alone, as it came. */
  failed = false,
) {
  // The status line and headers; node:http's table by getBuiltinModule: its ES import costs Node >= 22 its undici (api/transport.ts).
  if (include)
    for (const { status, headers } of pages) {
      const lines = [
        `HTTP/1.1 ${status} ${process.getBuiltinModule('node:http').STATUS_CODES[status] ?? ''}`.trimEnd(),
      ];
      for (const [name, value] of Object.entries(headers))
        for (const one of [value ?? []].flat()) lines.push(`${name}: ${one}`);
      output.write(`${lines.join('\n')}\n\n`);
    }
  const printable = pages.filter((page) => page.body !== undefined);
  if (!printable.length) return;
  if (failed) return output.write(safeJson(printable.at(-1)!.body, 2));
  // Any endpoint, as it answered: hedge's one shape is for the commands that know their data. NDJSON: one envelope per line, as each page came.
  // Pages of lists merged into one envelope (the last page's meta); anything else, the bodies as they came.
  const bodies = printable.map((page) => page.body as { data?: unknown; meta?: unknown } | null);
  const merged =
    bodies.length === 1
      ? bodies[0]
      : output.format === 'ndjson' || !bodies.every((body) => Array.isArray(body?.data))
        ? bodies
        : { data: bodies.flatMap((body) => body!.data as unknown[]), error: null, meta: bodies.at(-1)!.meta ?? {} };
  output.json(merged, [], { asSent: true });
}
