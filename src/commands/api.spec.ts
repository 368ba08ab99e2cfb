// The declaration of `hedge api`: its arguments, options, tier and examples (the
// manifest collects it; api.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';
import { WRITE_OPTIONS, UNTIL_OPTION } from './spec-parts.js';

export const API_METHOD_VALUES = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export const API = declare({
  name: 'api',
  group: 'automation',
  summary: "Call any endpoint with the profile's key (as gh api)",
  description:
    "Call any endpoint with the profile's key, as `gh api` does; prints the whole envelope; writes are journaled",
  // Not an agent tool: agents get the typed tools, which the caps and the market allowlist govern.
  tier: 'local',
  args: [{ name: 'path', required: true, description: 'relative to the base URL: /hedges, /hedges?status=filled' }],
  options: [
    {
      flags: '-X, --method <method>',
      key: 'method',
      kind: 'value',
      description: 'GET (default), POST, PUT, PATCH or DELETE; all but GET are journaled writes',
      values: API_METHOD_VALUES,
    },
    {
      flags: '-f, --raw-field <key=value>',
      key: 'rawField',
      kind: 'repeatable',
      description: 'a string parameter: query string of a GET, JSON body otherwise',
    },
    {
      flags: '-F, --field <key=value>',
      key: 'field',
      kind: 'repeatable',
      description: 'a typed parameter: numbers, true, false, null, @file; key[sub]= nests',
    },
    {
      flags: '-H, --header <name:value>',
      key: 'header',
      kind: 'repeatable',
      description: 'an extra request header (never Authorization)',
    },
    {
      flags: '--input <file>',
      key: 'input',
      kind: 'value',
      description: 'the JSON body from this file (- for stdin); -f/-F then go in the query string',
    },
    {
      flags: '--paginate',
      key: 'paginate',
      kind: 'flag',
      description: 'GET every page of a list and print one envelope of all its rows',
    },
    {
      flags: '-i, --include',
      key: 'include',
      kind: 'flag',
      description: 'print the HTTP status line and the response headers before the body',
    },
    WRITE_OPTIONS[1],
    WRITE_OPTIONS[2],
    WRITE_OPTIONS[3],
    WRITE_OPTIONS[4],
    UNTIL_OPTION,
  ],
  examples: [
    'hedge api /markets',
    'hedge api /hedges -f status=filled -F limit=5 --query "data[].id"',
    'hedge api -X POST /hedges/close -f market=USDTNGN -f side=buy',
    'hedge api /hedges --paginate --query "length(data)"',
  ],
});
