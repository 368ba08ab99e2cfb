// The transport's way through a proxy from the environment: undici, loaded on the first request through a proxy (a
// module of its own: the bundle gives a package's named exports to a static import, not to a lazy import() of it).
export { EnvHttpProxyAgent, request as requestThroughProxy, type Dispatcher } from 'undici';
