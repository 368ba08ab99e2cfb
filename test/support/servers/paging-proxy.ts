// A real HTTP server in front of a sandbox that pages `GET /hedges` the way a real service might
// (the spec shows no paging): pages of `limit` rows (default 2), the next one named by a cursor in
// `meta.next_cursor` (sent back as `cursor`), by one in the body beside the rows (`data: {items,
// next_cursor}`), or by a `Link: <…>; rel="next"` header — or, to test that a key never follows one,
// by a link to another host. Every other request passes through.
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SANDBOX_BASE_PATH, type RunningSandbox } from '../../../src/sandbox/index.js';

export type PagingStyle = 'cursor' | 'body-cursor' | 'link' | 'link-elsewhere';

export interface PagingProxy {
  baseUrl: string;
  apiKey: string;
  /** The list requests the proxy received: their query strings, in order. */
  pages: Array<Record<string, string>>;
  close(): Promise<void>;
}

function forward(
  target: URL,
  req: IncomingMessage,
  path: string,
  body: Buffer,
): Promise<{ status: number; headers: IncomingMessage['headers']; text: string }> {
  return new Promise((resolve, reject) => {
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path,
        headers: { ...req.headers, host: target.host },
      },
      (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => parts.push(chunk));
        answer.on('end', () =>
          resolve({
            status: answer.statusCode ?? 502,
            headers: answer.headers,
            text: Buffer.concat(parts).toString('utf8'),
          }),
        );
      },
    );
    upstream.on('error', reject);
    upstream.end(body);
  });
}

export async function startPagingProxy(sandbox: RunningSandbox, style: PagingStyle): Promise<PagingProxy> {
  const target = new URL(sandbox.baseUrl);
  const pages: Array<Record<string, string>> = [];
  let baseUrl = '';
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://proxy');
        const listing = req.method === 'GET' && url.pathname === `${SANDBOX_BASE_PATH}/hedges`;
        if (!listing) {
          const answer = await forward(target, req, req.url ?? '/', Buffer.concat(chunks));
          res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8' });
          res.end(answer.text);
          return;
        }
        const query = Object.fromEntries(url.searchParams);
        pages.push(query);
        const size = Number(query.limit ?? '2');
        const offset = Number(query.cursor ?? '0');
        const upstreamQuery = new URLSearchParams(url.searchParams);
        upstreamQuery.delete('cursor');
        upstreamQuery.set('limit', '500');
        const answer = await forward(target, req, `${url.pathname}?${upstreamQuery}`, Buffer.alloc(0));
        const envelope = JSON.parse(answer.text) as { data: unknown[]; error: unknown; meta: Record<string, unknown> };
        if (answer.status !== 200) {
          res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8' });
          res.end(answer.text);
          return;
        }
        const rows = envelope.data.slice(offset, offset + size);
        const more = offset + size < envelope.data.length;
        const nextQuery = new URLSearchParams(url.searchParams);
        nextQuery.set('cursor', String(offset + size));
        const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
        const meta: Record<string, unknown> = { ...envelope.meta };
        if (style === 'cursor')
          Object.assign(meta, { next_cursor: more ? String(offset + size) : null, has_more: more });
        else if (style === 'body-cursor') {
          res.writeHead(200, headers);
          res.end(
            JSON.stringify({
              data: { items: rows, next_cursor: more ? String(offset + size) : null },
              error: null,
              meta,
            }),
          );
          return;
        } else if (more && style === 'link') headers.link = `<${baseUrl}/hedges?${nextQuery}>; rel="next"`;
        else if (more) headers.link = `<https://elsewhere.example${SANDBOX_BASE_PATH}/hedges?${nextQuery}>; rel="next"`;
        res.writeHead(200, headers);
        res.end(JSON.stringify({ data: rows, error: null, meta }));
      })().catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  baseUrl = `http://127.0.0.1:${port}${SANDBOX_BASE_PATH}`;
  return {
    baseUrl,
    apiKey: sandbox.apiKey,
    pages,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
