// --dry-run: the exact request a write would send (method, URL, headers, JSON body), printed and
// not sent. The key is redacted like everywhere else; the Idempotency-Key is the one the real run
// would use, so `--dry-run --idempotency-key K` followed by `--idempotency-key K` sends this request.
import type { PlannedRequest } from '../api/client.js';
import type { ApiRequest } from '../api/transport.js';
import { redactKey } from '../security/secrets.js';
import type { CommandContext } from '../runtime/context.js';

export interface RenderedDryRun {
  dry_run: true;
  method: string;
  url: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
  idempotency_key?: string;
}

export function describePlannedRequest(request: ApiRequest, baseUrl: string, apiKey: string): RenderedDryRun {
  const planned: PlannedRequest = { ...request, url: baseUrl + request.path };
  const headers: Record<string, string> = { Authorization: `Bearer ${redactKey(apiKey)}` };
  if (planned.body !== undefined) headers['Content-Type'] = 'application/json';
  if (planned.idempotencyKey) headers['Idempotency-Key'] = planned.idempotencyKey;
  return {
    dry_run: true,
    method: planned.method,
    url: planned.url,
    path: planned.path,
    headers,
    body: planned.body ?? null,
    idempotency_key: planned.idempotencyKey,
  };
}

/** Prints the planned request: JSON under --json, otherwise an HTTP-like listing on stdout. */
export async function printDryRun(ctx: CommandContext, request: ApiRequest): Promise<void> {
  const credentials = await ctx.credentials();
  const rendered = describePlannedRequest(request, credentials.baseUrl, credentials.apiKey);
  // Said once, before the request: what it is and what to do next (issue 40: not twice).
  ctx.output.note(ctx.output.chalk.yellow('Dry run: this request was NOT sent. Run the same command without --dry-run to send it (with its own key).'));
  if (ctx.output.isJson) {
    ctx.output.json(rendered);
    return;
  }
  const lines = [`${rendered.method} ${rendered.url}`];
  for (const [name, value] of Object.entries(rendered.headers)) lines.push(`${name}: ${value}`);
  if (rendered.body !== null) lines.push('', JSON.stringify(rendered.body, null, 2));
  // No advice to reuse the key: --idempotency-key means "resume an earlier run", which skips the
  // pre-trade checks; a real run makes its own key.
  ctx.output.write(lines.join('\n'));
}
