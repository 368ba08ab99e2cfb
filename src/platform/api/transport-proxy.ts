// The transport's way through a proxy from the environment: undici's EnvHttpProxyAgent (CONNECT tunnels, NO_PROXY).
import { EnvHttpProxyAgent, request, type Dispatcher } from 'undici';

export type { Dispatcher };

export function proxyAgent({
  tls,
  ...proxy
}: {
  httpsProxy?: string;
  httpProxy?: string;
  noProxy?: string;
  /** TLS to the proxy, and to the API inside the tunnel: the connect timeout and the CA list. */
  tls: { timeout: number; ca?: string[] };
}) {
  // undici's own reading: a setting left undefined falls back on the environment, an empty one is none.
  return new EnvHttpProxyAgent({ ...proxy, connect: tls, requestTls: tls });
}

export { request as requestThroughProxy };
