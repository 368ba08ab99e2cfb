// --dry-run as shown: the request a write would send, never sent (flows/dry-run.ts describes it).
import type { Output } from './output.js';

export interface DryRunView {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

/** The planned request: JSON under --json, otherwise an HTTP-like listing on stdout. */
export function renderDryRun(output: Output, planned: DryRunView): void {
  // Said once, before the request: what it is and what to do next (issue 40: not twice).
  output.note(output.chalk.yellow('Dry run: this request was NOT sent. Run the same command without --dry-run to send it (with its own key).'));
  if (output.isJson) {
    output.json(planned);
    return;
  }
  const lines = [`${planned.method} ${planned.url}`];
  for (const [name, value] of Object.entries(planned.headers)) lines.push(`${name}: ${value}`);
  if (planned.body !== null) lines.push('', JSON.stringify(planned.body, null, 2));
  // No advice to reuse the key: --idempotency-key means "resume an earlier run", which skips the
  // pre-trade checks; a real run makes its own key.
  output.write(lines.join('\n'));
}
