// The transport's way through a proxy from the environment: undici's EnvHttpProxyAgent (CONNECT
// tunnels, NO_PROXY). Its own file so that undici is loaded only when a request goes through a
// proxy: transport.ts imports it lazily (a named import here lets the bundler read undici's
// CommonJS exports, which a dynamic import of the package itself would hide behind `default`).
import { EnvHttpProxyAgent, request, type Dispatcher } from 'undici';

export type { Dispatcher };

export interface ProxyAgentSettings {
  httpsProxy?: string;
  httpProxy?: string;
  noProxy?: string;
  /** TLS to the proxy, and to the API inside the tunnel: the connect timeout and the CA list. */
  tls: { timeout: number; ca?: string[] };
}

export function proxyAgent(settings: ProxyAgentSettings): Dispatcher {
  // undici's own reading: a setting left undefined falls back on the environment, an empty one is none.
  // Through a proxy, the TLS session to the API runs inside the tunnel and takes its own options.
  const { httpsProxy, httpProxy, noProxy, tls } = settings;
  return new EnvHttpProxyAgent({ httpsProxy, httpProxy, noProxy, connect: tls, requestTls: tls });
}

export { request as requestThroughProxy };
