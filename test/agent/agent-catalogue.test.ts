// The agent's catalogue as data: tools generated from the manifest (names, JSON Schemas, tiers),
// which tools each key is offered, how a call's JSON arguments become the command's input (and
// how a wrong one is refused, naming it), and the one-time confirmation tokens on an injected clock.
import {
  agentTools,
  catalogueEntry,
  inputSchema,
  namedArgument,
  rawInputFor,
  writeAccess,
} from '../../src/cli/agent/catalogue.js';
import { ConfirmationTokens } from '../../src/cli/agent/toolbox.js';
import { COMMANDS } from '../../src/cli/manifest.js';
import { usageRefusal as refusal } from '../support/output/refusal.js';

const tools = agentTools(COMMANDS);
const tool = (name: string) => tools.find((candidate) => candidate.name === name)!;

const words = (text: string) => text.split(' ');
const buy = { market: 'USDTNGN', side: 'buy' };
const args = { ...buy, notional: 10000, tenor: 3 };
const schemaOf = (name: string, access: 'direct' | 'token' = 'direct') =>
  inputSchema(tool(name), access) as { properties: Record<string, object>; required: string[] };

it('tools from the manifest: every read and write leaf is a tool named like its command path; local commands are not', () => {
  expect(tools.map((candidate) => `${candidate.name} ${candidate.tier}`).join(', ')).toBe(
    'markets read, price read, quote read, open write, add write, reduce write, close write, hedges read, history read, positions read, account read, maturities read, roll write, whoami read, doctor read, plan read, apply write, exposures read, report read, journal_list read, journal_show read, resume write, acct_test read, acct_reserve read, acct_journal read, acct_disclose read',
  );
  expect(tool('journal_list').command).toBe('hedge journal list');
});

it('tools from the manifest: quote: the CLI names, enums from the manifest, notional and tenor as numbers or the CLI strings', () => {
  expect(inputSchema(tool('quote'), 'direct')).toEqual({
    type: 'object',
    properties: {
      market: { type: 'string', description: 'market, e.g. USDTNGN (from `hedge markets`)' },
      side: {
        type: 'string',
        enum: ['buy', 'sell'],
        description:
          'buy or sell: buy covers a receivable in the quote currency (NGN for USDTNGN), sell a payable in it, for books in USD',
      },
      notional: {
        description: 'size in USD: 10000, 10_000, 10k or 1.5m',
        anyOf: [{ type: 'number', exclusiveMinimum: 0 }, { type: 'string' }],
      },
      tenor: {
        description: 'tenor in days: 1, 3 or 7',
        anyOf: [
          { type: 'integer', enum: [1, 3, 7] },
          { type: 'string', enum: ['1', '3', '7'] },
        ],
      },
    },
    required: ['market', 'side', 'notional', 'tenor'],
    additionalProperties: false,
  });
});

it('tools from the manifest: open and roll: what the wizard would ask is required (roll: the tenor the CLI refuses to go without); long flags with underscores; --no-wait is `wait`, on by default', () => {
  const schema = schemaOf('open');
  expect(schema.required).toEqual(words('market side notional tenor'));
  expect(schema.properties.wait).toMatchObject({ type: 'boolean', default: true });
  expect(schema.properties.dry_run).toMatchObject({ type: 'boolean', default: false });
  expect(schemaOf('roll').required).toEqual(words('market side tenor'));
});

it('tools from the manifest: exposures: its file is an exposures file under the roots, never target rows inline; --html is left out', () => {
  const exposures = tool('exposures');
  const names = exposures.arguments.map((argument) => argument.name);
  expect(names).not.toContain('rows');
  expect(names).not.toContain('html');
  expect(exposures.arguments.find((argument) => argument.name === 'file')!.required).toBe(true);
  expect(rawInputFor(exposures, { file: 'exposures.csv', functional: 'NGN', netting: false })).toMatchObject({
    args: { file: 'exposures.csv' },
    options: { functional: 'NGN', netting: false },
  });
});

// --ref (a filter wherever a list is shown) stays; --watch's options and --html go; confirmation_token is only on a
// write tool that needs one (a live key with --allow-live).
it.each([
  [
    'open',
    'direct',
    'market side notional tenor ref allow_duplicate_ref skip_checks wait idempotency_key new dry_run again',
  ],
  ['positions', 'direct', 'ref until'],
  ['report', 'direct', 'since until by ref'],
  ['hedges', 'direct', 'id status ref limit all wait until'],
  ['close', 'token', 'market side wait idempotency_key new dry_run again confirmation_token'],
  ['close', 'direct', 'market side wait idempotency_key new dry_run again'],
  ['quote', 'token', 'market side notional tenor'],
] as const)(
  'tools from the manifest: the arguments of %s (%s): --watch views and --html files left out, hedges keeps its bounded --wait, reads take --ref and a bounded until, a token only where a write needs one',
  (name, access, properties) => expect(Object.keys(schemaOf(name, access).properties)).toEqual(words(properties)),
);

// Which tools each key is offered (a test key and --demo every tool, a live key reads only, writes through a token
// with --allow-live, no key reads only): test/agent/tools.test.ts and test/agent/mcp.test.ts, end to end.
it('safety tiers: a test key with --allow-live still writes at once, without a token; the catalogue entry says the tier, whether it is offered, and how a live write is confirmed', () => {
  expect(writeAccess('test', true)).toBe('direct');
  const entry = catalogueEntry(tool('open'), 'token', 120);
  expect(entry).toMatchObject({ name: 'open', command: 'hedge open', tier: 'write', offered: true });
  expect(entry.description).toContain(
    'only a second call with the same arguments and that token, within 2 min, sends it',
  );
  // Not offered where no key lets it write: test/agent/tools.test.ts.
});

it('arguments → the command input: values as commander hands them over: strings, flags true, `wait` on unless false', () => {
  expect(rawInputFor(tool('open'), { ...args, skip_checks: true, dry_run: false })).toEqual({
    args: { ...buy, notional: '10000' },
    options: { tenor: '3', skipChecks: true, wait: true },
  });
  expect(rawInputFor(tool('close'), { ...buy, side: 'sell', wait: false }).options).toEqual({
    wait: false,
  });
  // A notional given as the CLI's string ('10k') reaches it as given: test/agent/mcp.test.ts (its quote).
});

it('arguments → the command input: refusals name the argument: unknown, wrong type, missing, stdin as a file', () => {
  const refused = (name: string, args: Record<string, unknown>) => refusal(() => rawInputFor(tool(name), args));
  expect([
    refused('quote', { ...buy, notional: 1, tenor: 3, size: 5 }),
    refused('quote', { ...buy, notional: true, tenor: 3 }),
    refused('quote', { ...buy, side: ['buy'], notional: 1, tenor: 3 }),
    refused('open', { ...buy, notional: 1 }),
    refused('close', { ...buy, dry_run: 'yes' }),
    refused('plan', { file: '-' }),
    refused('markets', { market: 'USDTNGN' }),
  ]).toEqual([
    'size: not an argument of quote; expected market, side, notional, tenor.',
    'notional: expected a number or a string, got true.',
    'side: expected a string, got an array.',
    'tenor: missing; expected tenor in days: 1, 3 or 7.',
    'dry_run: expected true or false, got "yes".',
    'file: - (stdin) is not available to a tool call; give the path of the file.',
    'market: not an argument of markets; expected until.',
  ]);
});

// A command's own refusal said with the tool's argument name (--tenor, --limit, side): end to end in
// test/agent/mcp.test.ts ("argument errors name the argument") and test/agent/agent-guardrails.test.ts.
it("arguments → the command input: a command's own refusal that names no argument names none", () => {
  expect(namedArgument(tool('quote'), 'cannot read the file.')).toBeUndefined();
});

function store() {
  let now = 1_000_000;
  let serial = 0;
  const tokens = new ConfirmationTokens(
    120,
    () => now,
    () => `hct_${++serial}`,
  );
  return { tokens, advance: (ms: number) => (now += ms) };
}

it('confirmation tokens: sends once: the exact tool and arguments (in any key order), then never again', () => {
  const { tokens } = store();
  const { token, expiresAt } = tokens.issue('open', args);
  expect(expiresAt).toBe(1_000_000 + 120_000);
  expect(() =>
    tokens.redeem(token, 'open', { tenor: 3, notional: 10000, side: 'buy', market: 'USDTNGN' }),
  ).not.toThrow();
  expect(refusal(() => tokens.redeem(token, 'open', args))).toBe(
    'confirmation_token: this token has been used already (each token sends once); nothing was sent. Call open without confirmation_token for a new preview and token.',
  );
});

it('confirmation tokens: other arguments or another tool are refused, and the token stays good for what it was issued for', () => {
  const { tokens } = store();
  const { token } = tokens.issue('open', args);
  const refused = (name: string, given: Record<string, unknown>) => refusal(() => tokens.redeem(token, name, given));
  // Its sentence for other arguments: test/agent/mcp.test.ts ("with --allow-live a write previews …").
  expect(refused('open', { ...args, notional: '10000' })).toMatch(/issued for other arguments/);
  expect(refused('add', args)).toMatch(
    /^confirmation_token: this token was issued for the open tool; nothing was sent\./,
  );
  expect(() => tokens.redeem(token, 'open', args)).not.toThrow();
});

it('confirmation tokens: expires when its time is up (not a millisecond later), and says so', () => {
  const { tokens, advance } = store();
  const sell = { ...buy, side: 'sell' };
  const early = tokens.issue('close', buy);
  const late = tokens.issue('close', sell);
  advance(119_999);
  expect(() => tokens.redeem(early.token, 'close', buy)).not.toThrow();
  advance(1);
  expect(refusal(() => tokens.redeem(late.token, 'close', sell))).toBe(
    'confirmation_token: this token has expired (a token lasts 2 min); nothing was sent. Call close without confirmation_token for a new preview and token.',
  );
  expect(refusal(() => tokens.redeem(late.token, 'close', sell))).toMatch(/this token has expired;/);
});

// An unknown token: test/agent/mcp.test.ts ("with --allow-live a write previews and sends nothing; …").
it('confirmation tokens: an empty token, or one that is not a string, is refused', () => {
  const { tokens } = store();
  for (const token of ['', 42])
    expect(refusal(() => tokens.redeem(token, 'open', args))).toMatch(
      /^confirmation_token: expected the string a preview returned/,
    );
});
