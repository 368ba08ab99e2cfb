// A forward proxy that only tunnels (HTTP CONNECT), as a desk's outbound proxy does for HTTPS:
// what the client and the binary are tested through when HTTPS_PROXY is set. It records each
// tunnel's target, so a test can tell whether a request went through it.
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { listening } from './loopback.js';

/** `hosts`: names the proxy resolves itself (as a desk's proxy resolves names its clients cannot). */
export async function startConnectProxy(hosts: Record<string, string> = {}) {
  const tunnels: string[] = [];
  const proxy = createServer();
  // A plain request through the proxy (http:// via HTTP_PROXY) is recorded and refused.
  proxy.on('request', (req, res) => {
    tunnels.push(`${req.method} ${req.url}`);
    res.writeHead(502).end();
  });
  proxy.on('connect', (req, client, head) => {
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), hosts[host] ?? host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  const { port, close } = await listening(proxy);
  // tunnels: `host:port` of every tunnel asked for, in order.
  return { url: `http://127.0.0.1:${port}`, tunnels, close };
}
