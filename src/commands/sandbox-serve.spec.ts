// The declaration of `hedge sandbox serve`: its arguments, options, tier and examples (the
// manifest collects it; sandbox-serve.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';

export const DIALECT_VALUES = ['reference', 'alpha', 'beta', 'gamma', 'delta'] as const;

export const SANDBOX_SERVE = declare({
  name: 'serve',
  summary: 'Serve the simulator over HTTP(S) on loopback',
  description: 'Serve the simulator over HTTP(S) on loopback; prints HEDGE_BASE_URL and HEDGE_API_KEY first',
  tier: 'local',
  options: [
    { flags: '--port <n>', key: 'port', kind: 'value', description: 'port (default: any free port)' },
    {
      flags: '--host <host>',
      key: 'host',
      kind: 'value',
      description: 'loopback address to listen on (default 127.0.0.1)',
    },
    {
      flags: '--tls',
      key: 'tls',
      kind: 'flag',
      description: 'serve HTTPS with a fresh CA (printed as NODE_EXTRA_CA_CERTS)',
    },
    {
      flags: '--fill-delay <ms>',
      key: 'fillDelay',
      kind: 'value',
      description: 'time from submitted to filled (default 2000)',
    },
    {
      flags: '--fail-rate <share>',
      key: 'failRate',
      kind: 'value',
      description: 'share of opens that fail on-chain, 0 to 1',
    },
    {
      flags: '--clock-speed <x>',
      key: 'clockSpeed',
      kind: 'value',
      description: 'sandbox clock speed (e.g. 3600: an hour per second)',
    },
    { flags: '--seed <n>', key: 'seed', kind: 'value', description: 'seed of the price path and faults' },
    {
      flags: '--fault-5xx <share>',
      key: 'fault5xx',
      kind: 'value',
      description: 'share of requests answered 500/503, 0 to 1',
    },
    {
      flags: '--fault-429 <share>',
      key: 'fault429',
      kind: 'value',
      description: 'share of requests answered 429, 0 to 1',
    },
    {
      flags: '--drop-after-commit <share>',
      key: 'dropAfterCommit',
      kind: 'value',
      description: 'share of writes whose connection drops after they took effect',
    },
    { flags: '--latency <ms>', key: 'latency', kind: 'value', description: 'added latency per request' },
    {
      flags: '--rate-limit <n>',
      key: 'rateLimit',
      kind: 'value',
      description: 'requests per second per key before 429',
    },
    {
      flags: '--dialect <name>',
      key: 'dialect',
      kind: 'value',
      description: 'how the server answers what the spec leaves open: reference, alpha, beta, gamma or delta',
      values: DIALECT_VALUES,
    },
    {
      flags: '--clock-skew <seconds>',
      key: 'clockSkew',
      kind: 'value',
      description: "run the Date header this many seconds off this machine's clock (negative: behind)",
    },
    {
      flags: '--hostile-text',
      key: 'hostileText',
      kind: 'flag',
      description: 'seed names, references and messages with terminal escape sequences',
    },
    {
      flags: '--view-lag <seconds>',
      key: 'viewLag',
      kind: 'value',
      description: 'positions, history, account trail the records',
    },
    {
      flags: '--several-per-side',
      key: 'severalPerSide',
      kind: 'flag',
      description: 'several hedges per side, in any dialect',
    },
    {
      flags: '--settlement-delay <seconds>',
      key: 'settlementDelay',
      kind: 'value',
      description: 'hedges settle this many seconds past maturity',
    },
    { flags: '--day <seconds>', key: 'day', kind: 'value', description: "a tenor day's length (default 86400)" },
  ],
  examples: [
    'hedge sandbox serve',
    'hedge sandbox serve --port 4010 > sandbox.env & sleep 1; set -a; . ./sandbox.env; set +a',
    'hedge sandbox serve --tls --fault-5xx 0.2',
    'hedge sandbox serve --view-lag 3 --several-per-side --day 60',
  ],
});
