// The declaration of `hedge keep`: its arguments, options, tier and examples (the
// manifest collects it; keep.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';

export const KEEP = declare({
  name: 'keep',
  group: 'automation',
  summary: 'Hold a target book through maturities',
  description:
    'Hold the book at a target file through maturities: roll what matures, re-open what settled, report drift',
  // A long-running process, not an agent's tool: started by a person, cron or systemd.
  tier: 'local',
  args: [
    {
      name: 'file',
      required: true,
      description: 'the target file of plan/apply, with optional until and roll_before columns',
    },
  ],
  options: [
    { flags: '--once', key: 'once', kind: 'flag', description: 'run one cycle and exit (for cron or a systemd timer)' },
    {
      flags: '--interval <seconds>',
      key: 'interval',
      kind: 'value',
      description: 'seconds between cycles (default 60, at least 2)',
    },
    {
      flags: '--converge',
      key: 'converge',
      kind: 'flag',
      description: 'bring a drifted side back to its target (add, reduce or close); default: report only',
    },
    {
      flags: '--tolerance <usd>',
      key: 'tolerance',
      kind: 'value',
      description: 'treat differences up to this many USD as at target (default 0)',
    },
    {
      flags: '--alert-cmd <command>',
      key: 'alertCmd',
      kind: 'value',
      description: 'run this shell command with each alert (started, recovered) as JSON on its stdin',
    },
    {
      flags: '--alert-url <url>',
      key: 'alertUrl',
      kind: 'value',
      description: 'POST each alert (started, recovered) as JSON with a Slack-compatible text field',
    },
    {
      flags: '--alert-headroom <usd>',
      key: 'alertHeadroom',
      kind: 'value',
      description: "alert when a row's market capacity or the exposure headroom is below this",
    },
    {
      flags: '--metrics <addr>',
      key: 'metrics',
      kind: 'value',
      description: 'serve Prometheus /metrics and /healthz on PORT or HOST:PORT (127.0.0.1 by default)',
    },
    { flags: '--dry-run', key: 'dryRun', kind: 'flag', description: 'print what one cycle would do, and send nothing' },
    {
      flags: '--exposures',
      key: 'exposures',
      kind: 'flag',
      description:
        'FILE is an exposures file: hold the moving target it implies (docs/exposures.md), converging within the band',
    },
    {
      flags: '--policy <file>',
      key: 'policy',
      kind: 'value',
      description: 'with --exposures: the policy file (JSON: ratios, band_pct, sizing, functional, netting)',
    },
  ],
  // A checkout's sample target (docs/examples/): the examples run as written from its root.
  examples: [
    'hedge keep docs/examples/target.csv',
    'hedge keep docs/examples/target.csv --once --json',
    'hedge keep docs/examples/target.csv --interval 300 --alert-cmd "notify-desk"',
  ],
});
