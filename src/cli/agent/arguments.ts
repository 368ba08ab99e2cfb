// A tool call's arguments → the input the command's own `run` takes, as commander would hand it over (strings, flags as true).
import type { RawInput } from '../runner/command-spec.js';
import { echo } from '../../core/input.js';
import { UsageError } from '../../core/errors.js';
import { CONFIRMATION_TOKEN, INLINE_ROWS, type AgentArgument, type AgentTool } from './catalogue.js';
import type { JsonObject } from '../../core/objects.js';

/** What was given instead, in a few words: `true`, `5`, `"abc"`, `an object`. */
function shown(value: unknown) {
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  return typeof value === 'string' ? echo(value) : String(value);
}

/** What each kind of argument takes in words, and whether a value's JSON type fits it. */
const ACCEPTS: Record<AgentArgument['accepts'], [expected: string, fits: (value: unknown) => boolean]> = {
  string: ['a string', (value) => typeof value === 'string'],
  'number-or-string': [
    'a number or a string',
    (value) => typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)),
  ],
  boolean: ['true or false', (value) => typeof value === 'boolean'],
  'boolean-or-string': ['true, false or a string', (value) => typeof value === 'boolean' || typeof value === 'string'],
  'string-list': [
    'an array of strings',
    (value) => Array.isArray(value) && value.every((item) => typeof item === 'string'),
  ],
  // Each row's shape and values are the target file parser's to check, item by item.
  rows: [
    'an array of target rows (objects with market, side, notional_usd, tenor_days and optionally client_reference)',
    Array.isArray,
  ],
};

/** The arguments a call gave, without the confirmation token (what a token is bound to). */
export function callArguments(given: JsonObject | undefined) {
  const { [CONFIRMATION_TOKEN]: _token, ...rest } = given ?? {};
  return rest;
}

export function rawInputFor(tool: AgentTool, given: JsonObject) {
  const byName = new Map(tool.arguments.map((argument) => [argument.name, argument]));
  for (const name of Object.keys(given)) {
    if (!byName.has(name)) {
      const known = tool.arguments.map((argument) => argument.name);
      throw new UsageError(
        `${name}: not an argument of ${tool.name}; ${known.length ? `expected ${known.join(', ')}` : 'it takes none'}.`,
      );
    }
  }
  const input: RawInput = { args: {}, options: {} };
  const inline = tool.arguments.some((argument) => argument.target.kind === 'inline-rows');
  if (inline) {
    const hasFile = given.file !== undefined && given.file !== null;
    const hasRows = given[INLINE_ROWS] !== undefined && given[INLINE_ROWS] !== null;
    if (hasFile && hasRows) throw new UsageError(`${INLINE_ROWS}: give the target as a file or as rows, not both.`);
    if (!hasFile && !hasRows)
      throw new UsageError(
        'file: missing; expected the path of a target file under the roots this server reads from, or the target inline as rows.',
      );
  }
  for (const argument of tool.arguments) {
    const value = given[argument.name];
    if (value === undefined || value === null) {
      if (argument.required)
        throw new UsageError(
          `${argument.name}: missing; expected ${argument.schema.description ?? ACCEPTS[argument.accepts][0]}.`,
        );
      // Commander's defaults: a `--no-…` option is on, anything else absent.
      if (argument.target.kind === 'negatable') input.options[argument.target.key] = true;
      continue;
    }
    const [expected, fits] = ACCEPTS[argument.accepts];
    if (!fits(value)) throw new UsageError(`${argument.name}: expected ${expected}, got ${shown(value)}.`);
    const { target } = argument;
    if (target.kind === 'inline-rows') {
      // The command reads its `file` through the call's TargetFileSource, which serves the rows under this name.
      input.args.file = INLINE_ROWS;
    } else if (target.kind === 'positional') {
      if (argument.name === 'file' && value === '-')
        throw new UsageError('file: - (stdin) is not available to a tool call; give the path of the file.');
      input.args[target.name] = String(value);
    } else if (target.kind === 'flag') {
      // Absent and false read the same to a command (commander leaves an unused flag undefined).
      if (value === true) input.options[target.key] = true;
    } else if (target.kind === 'negatable') input.options[target.key] = value;
    else if (target.kind === 'optional-value') {
      if (value !== false) input.options[target.key] = value;
    } else if (target.kind === 'repeatable') input.options[target.key] = (value as string[]).map(String);
    else input.options[target.key] = String(value);
  }
  return input;
}

/** A command's refusal names the argument as the CLI does (`--tenor: …`); an agent gave `tenor`. */
export function namedArgument(tool: AgentTool, message: string, given: JsonObject = {}) {
  const match = /^(--[a-z0-9-]+|[A-Za-z0-9_]+):\s/.exec(message);
  if (!match) return;
  const named = match[1];
  const argument = tool.arguments.find((candidate) => candidate.cliName === named || candidate.name === named);
  if (argument) return { argument: argument.name, message: `${argument.name}:${message.slice(named.length + 1)}` };
  // An argument the tool does not have, or the confirmation token.
  if (named === CONFIRMATION_TOKEN || Object.hasOwn(given, named)) return { argument: named, message };
  return;
}
