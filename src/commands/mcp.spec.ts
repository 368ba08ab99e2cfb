// The declaration of `hedge mcp`: its arguments, options, tier and examples (the
// manifest collects it; mcp.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';

export const MCP = declare({
  name: 'mcp',
  summary: 'Serve the commands as MCP tools over stdio, for an AI agent',
  description: 'Serve the commands as Model Context Protocol tools over stdio, for an AI agent',
  group: 'setup',
  tier: 'local',
  options: [
    {
      flags: '--allow-live',
      key: 'allowLive',
      kind: 'flag',
      description: 'offer write tools on a live key too (each write then needs a confirmation token)',
    },
    {
      flags: '--root <dir>',
      key: 'root',
      kind: 'repeatable',
      description: 'a directory plan and apply may read target files from (repeatable; default the working directory)',
    },
    {
      flags: '--max-notional <usd>',
      key: 'maxNotional',
      kind: 'value',
      description: 'refuse a write tool call that trades more than this many USD (nothing sent)',
    },
    {
      flags: '--max-daily-notional <usd>',
      key: 'maxDailyNotional',
      kind: 'value',
      description:
        "refuse a write that would take the agent's trades of the last 24 h (journal, via agent) past this many USD",
    },
    {
      flags: '--markets <list>',
      key: 'markets',
      kind: 'value',
      description: 'the only markets write tools may trade, comma-separated: USDTNGN,USDTKES',
    },
  ],
  examples: [
    'hedge mcp --demo',
    'hedge mcp --profile desk --max-notional 25k --max-daily-notional 100k --markets USDTNGN',
    'hedge mcp --profile desk --root ~/books',
  ],
});
