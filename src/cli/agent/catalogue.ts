// The agent's catalogue, generated from the command manifest (the one source of truth): every leaf command of tier
// `read` or `write` becomes a tool named like its command path (`quote`, `journal_list`), with one argument per
// positional argument and option, named like the CLI's (`market`, `notional`, `tenor`; an option's long flag with
// dashes as underscores: `skip_checks`, `dry_run`; a `--no-…` option under its positive name: `wait`), and one zod
// schema for them: the check of a call's arguments and, as JSON Schema, what the tool publishes.
// A namespace import, not `{ z }`: that object would keep all of zod (every locale) in the chunks a request loads.
import * as z from 'zod';
import {
  commandPaths,
  flagNames,
  type ArgSpec,
  type CommandSpec,
  type OptionKind,
  type OptionSpec,
  type RawInput,
} from '../runner/command-spec.js';
import { errorCatalogue } from './error-catalogue.js';
import { echo } from '../../core/input.js';
import { UsageError } from '../../core/errors.js';
import type { JsonObject } from '../../core/objects.js';
import { formatSpan } from '../../core/duration.js';

/** One argument of a tool: `kind` says how a value reaches the command (a positional argument or an option, under `key`, or the target of plan/apply given inline, which file-access.ts reads instead of a file); `expects` what it takes, in words, for a value of the wrong JSON type. */
type AgentArgument = ReturnType<typeof argumentOf> | typeof INLINE_ROWS_ARGUMENT;

export type AgentTool = NonNullable<ReturnType<typeof toolFor>>;

/** Options a tool call cannot use: a `--watch` view streams until it is stopped (a tool call has one answer), `--html FILE` writes a file on the server's machine wherever it is told, and `--resend-unproven` is a person's word that an action did not land. */
const LEFT_OUT_OPTIONS = new Set('watch alertPnl alertMaturity exitOnAlert count html resendUnproven'.split(' '));

/** What the CLI finds out by asking on a terminal, an agent has to give: `hedge open` without its arguments starts a wizard, which a tool call cannot answer; a quote and a roll need their tenor. */
const REQUIRED_FOR_AGENTS: Record<string, string> = {
  open: 'market side notional tenor',
  quote: 'tenor',
  roll: 'tenor',
};

/** Placeholders of options whose value is a number (`--limit <n>`): a JSON number is taken too. */
const NUMERIC_PLACEHOLDER = /[<[](n|usd|days|seconds|ms|share)[>\]]/;

export const CONFIRMATION_TOKEN = 'confirmation_token';

/** The argument that carries a target inline, on the tools whose command reads a target `file`. */
export const INLINE_ROWS = 'rows';

const integers = (values: readonly string[]) => z.literal(values.map(Number)).meta({ type: 'integer' });

/** The target file's columns as a schema of one row (the file's own parser checks the values). */
const TARGET_ROW = z.strictObject({
  market: z.string().describe('market, e.g. USDTNGN'),
  side: z.enum(['buy', 'sell']),
  notional_usd: z.union([z.number().min(0), z.string()]).describe('what the side should hold in USD; 0 for flat'),
  tenor_days: z
    .union([integers(['1', '3', '7']), z.string()])
    .describe('tenor for an open: 1, 3 or 7 (required above 0)')
    .optional(),
  client_reference: z.string().describe('your deal id, for an open').optional(),
});

const INLINE_ROWS_ARGUMENT = {
  name: INLINE_ROWS,
  kind: 'inline-rows' as const,
  key: INLINE_ROWS,
  cliName: INLINE_ROWS,
  required: false,
  expects:
    'an array of target rows (objects with market, side, notional_usd, tenor_days and optionally client_reference)',
  schema: z
    .array(TARGET_ROW)
    .describe(
      'the target inline instead of a file: one row per market and side, with the columns of a target file; give rows or file',
    ),
};

/** Enums from the manifest; numeric choices (tenor: 1, 3, 7) as numbers or the CLI's strings. */
function valueSchema(values: ArgSpec['values'], numeric: boolean, amount: z.ZodNumber): [string, z.ZodType] {
  if (!Array.isArray(values))
    return numeric ? ['a number or a string', z.union([amount, z.string()])] : ['a string', z.string()];
  if (numeric && values.every((value) => /^\d+$/.test(value)))
    return ['a number or a string', z.union([integers(values), z.enum(values)])];
  return ['a string', z.enum(values)];
}

/** A positional argument under its own name; an option under its long flag (`--skip-checks` → skip_checks; `--no-wait` → wait, true unless given false). */
function argumentOf(spec: ArgSpec | OptionSpec, needed = '') {
  const option = 'flags' in spec ? spec : undefined;
  // Every option has a long flag (`opt` reads its key from it); only a negatable one's starts with no-.
  const cliName = 'name' in spec ? spec.name : flagNames(spec).at(-1)!;
  const [expects, schema] = option
    ? (
        {
          flag: ['true or false', z.boolean().default(false)],
          negatable: ['true or false', z.boolean().default(true)],
          'optional-value': ['true, false or a string', z.union([z.boolean(), z.string()])],
          repeatable: ['an array of strings', z.array(z.string())],
          value: valueSchema(option.values, NUMERIC_PLACEHOLDER.test(option.flags), z.number()),
        } satisfies Record<OptionKind, [string, z.ZodType]>
      )[option.kind]
    : // An amount (`notional`: 10000, "10k", "1.5m") takes a JSON number too.
      valueSchema(spec.values, cliName === 'notional', z.number().positive());
  const name = cliName.replace(/^--(no-)?/, '').replace(/-/g, '_');
  return {
    name,
    kind: option?.kind ?? ('positional' as const),
    key: option?.key ?? name,
    cliName,
    required: ('required' in spec && spec.required) || needed.split(' ').includes(name),
    expects,
    schema: schema.describe(spec.description),
  };
}

function toolFor(spec: CommandSpec, path: string[]) {
  if ((spec.tier !== 'read' && spec.tier !== 'write') || !spec.load) return;
  const name = path.join('_');
  const needed = REQUIRED_FOR_AGENTS[name];
  const args = (spec.args ?? []).flatMap((arg): AgentArgument[] => {
    if (arg.name !== 'file') return [argumentOf(arg, needed)];
    // A target `file` is read only under the server's roots, or given inline as `rows`: one of the two.
    // The exposures file is not a target file: read under the roots only, never given as target rows.
    const rootsOnly = name === 'exposures';
    const file = argumentOf({
      ...arg,
      required: rootsOnly,
      description: `${arg.description}, under the roots the server reads from${rootsOnly ? '' : '; or give rows'}`,
    });
    return rootsOnly ? [file] : [file, INLINE_ROWS_ARGUMENT];
  });
  for (const option of spec.options ?? []) if (!LEFT_OUT_OPTIONS.has(option.key)) args.push(argumentOf(option, needed));
  return {
    name,
    command: ['hedge', ...path].join(' '),
    tier: spec.tier,
    spec,
    arguments: args,
    // Every argument, strict: an argument the tool lacks is refused.
    input: z.strictObject(
      Object.fromEntries(
        args.map((argument) => [argument.name, argument.required ? argument.schema : argument.schema.optional()]),
      ),
    ),
  };
}

const built = new WeakMap<readonly CommandSpec[], AgentTool[]>();

/** Every tool, in the manifest's order: built once per command tree (servers run in one process share it). */
export function agentTools(commands: readonly CommandSpec[]) {
  let tools = built.get(commands);
  if (!tools)
    built.set(commands, (tools = commandPaths(commands).flatMap(({ spec, path }) => toolFor(spec, path) ?? [])));
  return tools;
}

/** Whether a write tool on this key sends at once, needs a confirmation token, or is not offered. */
type WriteAccess = 'direct' | 'token' | 'none';

/** The safety tiers: read tools always; write tools at once on a test key (and --demo); on a live key only with `--allow-live`, and then each write needs a confirmation token. */
export function writeAccess(environment: 'live' | 'test' | undefined, allowLive: boolean): WriteAccess {
  if (environment === 'test') return 'direct';
  if (environment === 'live' && allowLive) return 'token';
  return 'none';
}

export function offered(tool: AgentTool, access: WriteAccess) {
  return tool.tier === 'read' || access !== 'none';
}

export function inputSchema(tool: AgentTool, access: WriteAccess) {
  const schema =
    tool.tier === 'write' && access === 'token'
      ? tool.input.extend({
          [CONFIRMATION_TOKEN]: z
            .string()
            .describe('the token a first call without it returned (with its preview); only a call carrying it sends')
            .optional(),
        })
      : tool.input;
  // What an agent may send: a defaulted flag is optional.
  const { $schema: _dialect, ...published } = z.toJSONSchema(schema, { io: 'input' });
  return published;
}

export function toolDescription(tool: AgentTool, access: WriteAccess, tokenTtlSeconds: number) {
  const write = tool.tier === 'write';
  // Without its shell comment (`# exit 9: …`): a tool answers JSON, it has no exit code.
  const example = tool.spec.examples[0]?.replace(/\s+#\s.*$/, '');
  return [
    `${tool.spec.description ?? tool.spec.summary}.`,
    `The same as \`${tool.command} … --json\`: the result is that JSON; an error is {"error": {code, class, message, hint}}.`,
    write && 'State-changing: journaled, and waited until it resolves unless wait is false.',
    write &&
      access === 'token' &&
      `LIVE key: a call without ${CONFIRMATION_TOKEN} sends nothing and returns a preview (the quote and the exact request) with a one-time ${CONFIRMATION_TOKEN}; only a second call with the same arguments and that token, within ${formatSpan(tokenTtlSeconds * 1000)}, sends it.`,
    example && `CLI example: ${example}`,
  ]
    .filter(Boolean)
    .join(' ');
}

/** The catalogue entry `hedge tools --json` prints for each tool. */
export function catalogueEntry(tool: AgentTool, access: WriteAccess, tokenTtlSeconds: number) {
  return {
    name: tool.name,
    command: tool.command,
    tier: tool.tier,
    // What a tool can do to the account, for an agent deciding how carefully to call it.
    risk:
      tool.tier === 'read'
        ? { level: 'low', moves_money: false, journaled: false, guard: 'none needed: sends reads only' }
        : {
            level: 'high',
            moves_money: true,
            journaled: true,
            guard: `one idempotency key per action; not offered on a LIVE key without --allow-live, and then each call needs a confirmation token after a preview; the server's --max-notional, --max-daily-notional and --markets refuse larger or other trades before anything is sent`,
          },
    offered: offered(tool, access),
    description: toolDescription(tool, access, tokenTtlSeconds),
    input_schema: inputSchema(tool, access),
    // The part of the catalogue this tool can end with.
    errors: errorCatalogue().filter(
      ({ applies_to: applies }) =>
        applies === 'every' || applies === tool.tier || (Array.isArray(applies) && applies.includes(tool.name)),
    ),
  };
}

// A tool call's arguments → the input the command's own `run` takes, as commander would hand it over (strings, flags as true).
/** A value of the wrong JSON type is refused here; one the schema's enum or minimum refuses, by the command in the CLI's words. */
function wrongType(issue: z.core.$ZodIssue, argument: AgentArgument, value: unknown): boolean {
  // Each row's shape and values are the target file parser's to check, item by item.
  if (issue.path.length > 1 && argument.kind !== 'repeatable') return false;
  if (issue.code === 'invalid_type') return true;
  // An enum refuses a value of another type (an array for `side`) as one it does not list.
  if (issue.code === 'invalid_value') return !issue.values.some((allowed) => typeof allowed === typeof value);
  return (
    issue.code === 'invalid_union' &&
    issue.errors.every((branch) => branch.every((inner) => wrongType(inner, argument, value)))
  );
}

export function rawInputFor(tool: AgentTool, call: JsonObject) {
  // A null is an argument not given, as in most clients' JSON.
  const given = Object.fromEntries(Object.entries(call).filter(([, value]) => value !== null));
  const issues = tool.input.safeParse(given).error?.issues ?? [];
  const unknown = issues.find((issue) => issue.code === 'unrecognized_keys');
  if (unknown) {
    const known = tool.arguments.map((argument) => argument.name);
    throw new UsageError(
      `${unknown.keys[0]}: not an argument of ${tool.name}; ${known.length ? `expected ${known.join(', ')}` : 'it takes none'}.`,
    );
  }
  const input: RawInput = { args: {}, options: {} };
  if (tool.arguments.some((argument) => argument.kind === 'inline-rows')) {
    const hasFile = given.file !== undefined;
    if (hasFile === (given[INLINE_ROWS] !== undefined))
      throw new UsageError(
        hasFile
          ? `${INLINE_ROWS}: give the target as a file or as rows, not both.`
          : 'file: missing; expected the path of a target file under the roots this server reads from, or the target inline as rows.',
      );
  }
  for (const argument of tool.arguments) {
    const { name, kind, key } = argument;
    const value = given[name];
    if (value === undefined) {
      if (argument.required) throw new UsageError(`${name}: missing; expected ${argument.schema.description}.`);
      // Commander's defaults: a `--no-…` option is on, anything else absent.
      if (kind === 'negatable') input.options[key] = true;
      continue;
    }
    if (issues.some((issue) => issue.path[0] === name && wrongType(issue, argument, value)))
      // What was given instead, in a few words: `true`, `5`, `"abc"`, `an array`, `an object`.
      throw new UsageError(
        `${name}: expected ${argument.expects}, got ${Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : typeof value === 'string' ? echo(value) : String(value)}.`,
      );
    if (kind === 'inline-rows') {
      // The command reads its `file` through the call's TargetFileSource, which serves the rows under this name.
      input.args.file = INLINE_ROWS;
    } else if (kind === 'positional') {
      if (name === 'file' && value === '-')
        throw new UsageError('file: - (stdin) is not available to a tool call; give the path of the file.');
      input.args[key] = String(value);
    } else if (value !== false || kind === 'negatable') {
      // Absent and false read the same to a command but for a `--no-…` option (commander leaves an unused flag undefined).
      input.options[key] = typeof value === 'boolean' || Array.isArray(value) ? value : String(value);
    }
  }
  return input;
}

/** A command's refusal names the argument as the CLI does (`--tenor: …`); an agent gave `tenor`. */
export function namedArgument(tool: AgentTool, message: string, given: JsonObject = {}) {
  // The value may stand between the name and the colon, as a JSON string (`--until "expr": …`).
  const match = /^(--[a-z0-9-]+|[A-Za-z0-9_]+)(?: "(?:[^"\\]|\\.)*")?:\s/.exec(message);
  if (!match) return;
  const named = match[1];
  const argument = tool.arguments.find((candidate) => candidate.cliName === named || candidate.name === named);
  if (argument) return { argument: argument.name, message: `${argument.name}${message.slice(named.length)}` };
  // An argument the tool does not have, or the confirmation token.
  if (named === CONFIRMATION_TOKEN || Object.hasOwn(given, named)) return { argument: named, message };
}
