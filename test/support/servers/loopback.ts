// What the test servers in front of (or beside) a simulator share: listening on a free loopback
// port, closing with the connections still open, and passing a request on to the sandbox.
import { request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';

/** Listens on a free port of `host`; `close` ends open (kept-alive) connections first. */
export async function listening(server: Server, host = '127.0.0.1') {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Sends `req` on to `target` at `path` with `body` (and `authorization` in place of its own, when given); the whole answer. */
export async function forward(target: URL, req: IncomingMessage, path: string, body: Buffer, authorization?: string) {
  const answer = await new Promise<IncomingMessage>((resolve, reject) =>
    request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path,
        headers: { ...req.headers, host: target.host, ...(authorization ? { authorization } : {}) },
      },
      resolve,
    )
      .on('error', reject)
      .end(body),
  );
  return { status: answer.statusCode ?? 502, headers: answer.headers, text: await text(answer) };
}
