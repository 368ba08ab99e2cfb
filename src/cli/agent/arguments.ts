// A tool call's arguments → the input the command's own `run` takes, as commander would hand it over (strings, flags as true).
import type { z } from 'zod';
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
      throw new UsageError(`${name}: expected ${argument.expects}, got ${shown(value)}.`);
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
