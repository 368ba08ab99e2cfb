// A real HTTP server in front of a sandbox that pages `GET /hedges` the way a real service might
// (the spec shows no paging): pages of `limit` rows (default 2), the next one named by a cursor in
// `meta.next_cursor` (sent back as `cursor`), by one in the body beside the rows (`data: {items,
// next_cursor}`), or by a `Link: <…>; rel="next"` header — or, to test that a key never follows one,
// by a link to another host. Every other request passes through.
import { createServer } from 'node:http';
import { buffer } from 'node:stream/consumers';
import { SANDBOX_BASE_PATH, type RunningSandbox } from '../../../src/sandbox/http/server.js';
import { forward, listening } from './loopback.js';

export type PagingStyle = 'cursor' | 'body-cursor' | 'link' | 'link-elsewhere';

export type PagingProxy = Awaited<ReturnType<typeof startPagingProxy>>;

export async function startPagingProxy(sandbox: RunningSandbox, style: PagingStyle) {
  const target = new URL(sandbox.baseUrl);
  // The list requests the proxy received: their query strings, in order.
  const pages: Array<Record<string, string>> = [];
  let baseUrl = '';
  const server = createServer((req, res) => {
    const send = (status: number, text: string, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(text);
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://proxy');
      if (req.method !== 'GET' || url.pathname !== `${SANDBOX_BASE_PATH}/hedges`) {
        const answer = await forward(target, req, req.url ?? '/', await buffer(req));
        return send(answer.status, answer.text);
      }
      const query = Object.fromEntries(url.searchParams);
      pages.push(query);
      const size = Number(query.limit ?? '2');
      const offset = Number(query.cursor ?? '0');
      const upstreamQuery = new URLSearchParams(url.searchParams);
      upstreamQuery.delete('cursor');
      upstreamQuery.set('limit', '500');
      const answer = await forward(target, req, `${url.pathname}?${upstreamQuery}`, Buffer.alloc(0));
      if (answer.status !== 200) return send(answer.status, answer.text);
      const { data, meta } = JSON.parse(answer.text);
      const rows = data.slice(offset, offset + size);
      const next = offset + size < data.length ? String(offset + size) : null;
      if (style === 'body-cursor')
        return send(200, JSON.stringify({ data: { items: rows, next_cursor: next }, error: null, meta }));
      if (style === 'cursor') Object.assign(meta, { next_cursor: next, has_more: next !== null });
      const nextQuery = new URLSearchParams(url.searchParams);
      nextQuery.set('cursor', String(next));
      const origin = style === 'link' ? baseUrl : `https://elsewhere.example${SANDBOX_BASE_PATH}`;
      const link: Record<string, string> =
        next !== null && style !== 'cursor' ? { link: `<${origin}/hedges?${nextQuery}>; rel="next"` } : {};
      send(200, JSON.stringify({ data: rows, error: null, meta }), link);
    })().catch(() => res.destroy());
  });
  const { port, close } = await listening(server);
  baseUrl = `http://127.0.0.1:${port}${SANDBOX_BASE_PATH}`;
  return { baseUrl, apiKey: sandbox.apiKey, pages, close };
}
