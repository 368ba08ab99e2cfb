// --dry-run as shown: the request a write would send, never sent (flows/dry-run.ts describes it).
import type { Output } from '../terminal/output.js';

export interface DryRunView {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

export function renderDryRun(output: Output, planned: DryRunView) {
  // Said once, before the request: what it is and what to do next.
  output.warn(
    'Dry run: this request was NOT sent. Run the same command without --dry-run to send it (with its own key).',
  );
  // No advice to reuse the key: --idempotency-key resumes an earlier run, skipping the pre-trade checks.
  output.document(planned, () => requestText(planned));
}

/** A request as HTTP reads: the request line, the headers, a blank line and the body. */
export function requestText(request: DryRunView) {
  const lines = [`${request.method} ${request.url}`];
  for (const [name, value] of Object.entries(request.headers)) lines.push(`${name}: ${value}`);
  if (request.body !== null) lines.push('', JSON.stringify(request.body, null, 2));
  return lines.join('\n');
}
