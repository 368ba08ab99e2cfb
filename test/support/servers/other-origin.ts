// A second HTTP server for the origin tests: on 127.0.0.2 (another loopback address, so another
// origin than a simulator on 127.0.0.1), answering every request with an envelope and recording
// it — what a key sent off-origin would reach. Stopped by the test that started it.
import { createServer } from 'node:http';
import { listening } from './loopback.js';

export async function startOtherOrigin() {
  // Every request it received: method, path, whether it carried an Authorization header.
  const seen: Array<{ method?: string; url?: string; authorization: boolean }> = [];
  const server = createServer((request, response) => {
    seen.push({ method: request.method, url: request.url, authorization: request.headers.authorization !== undefined });
    request.resume();
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ data: { received: true }, error: null, meta: {} }));
  });
  return { ...(await listening(server, '127.0.0.2')), seen };
}
