// --dry-run: the exact request a write would send (method, URL, headers, JSON body), described and not sent
// (the command prints it).
import type { PlannedRequest } from '../../platform/api/client.js';
import type { ApiRequest } from '../../platform/api/transport.js';
import { redactKey } from '../../core/security/secrets.js';
import type { FlowPorts } from '../../platform/runtime/context.js';

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

/** The planned request as a dry run shows it (the key redacted); the command prints it (ui/dry-run-view.ts). */
export async function planDryRun(ports: FlowPorts, request: ApiRequest): Promise<RenderedDryRun> {
  const credentials = await ports.credentials();
  return describePlannedRequest(request, credentials.baseUrl, credentials.apiKey);
}
