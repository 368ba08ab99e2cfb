// --query: a JMESPath expression (the JMESPath Community implementation) applied to the JSON data a command prints.
import {
  compile,
  getRegisteredFunctions,
  tokenize,
  TreeInterpreter,
  type JSONValue,
} from '@jmespath-community/jmespath';
import { UsageError } from '../../core/errors.js';
import { computedDecimal } from '../../core/number-format.js';
import { safeText, messageOf } from '../../core/security/safe-text.js';

/** The name of every node of `type` in a syntax tree, in order: `Function`, what it calls; `Field`, what it reads. */
function namesOf(node: unknown, type: string, found = new Set<string>()) {
  if (node !== null && typeof node === 'object') {
    const typed = node as { type?: string; name?: string };
    if (typed.type === type && typeof typed.name === 'string') found.add(typed.name);
    for (const value of Object.values(typed)) namesOf(value, type, found);
  }
  return found;
}

/** Every field name the expression reads (`status`, `net_pnl_usd` in `[?net_pnl_usd < \`0\`]`); none for `length(@)`. */
export function fieldNames(expression: string) {
  try {
    return [...namesOf(compile(expression), 'Field')];
  } catch {
    // Malformed: compileQuery says why.
    return [];
  }
}

/** `allowed`: the expression does not compile, so the one line also says what the option takes (a person sees no hint under a usage error); a problem only the data shows says what it is alone. */
function problem(expression: string, error: unknown, option: string, allowed = false) {
  const reason = messageOf(error).replace(/\.\s*$/, '');
  const takes = allowed ? '; expected a JMESPath expression (https://jmespath.site)' : '';
  return new UsageError(`${option} ${JSON.stringify(safeText(expression))}: ${safeText(reason)}${takes}.`, {
    hint: `JMESPath syntax: https://jmespath.site — e.g. ${option === '--until' ? `--until "status=='filled'"` : `--query "[?side=='buy'].hedge_id"`}`,
  });
}

/** What `work` throws; undefined when it does not. */
function thrown(work: () => unknown) {
  try {
    work();
  } catch (error) {
    return error;
  }
}

/** Where an expression that does not compile breaks (JMESPath's errors carry no position): the index of the first token no continuation could mend, `end` when it stops before it is complete. */
function whereItBreaks(expression: string) {
  let tokens;
  try {
    tokens = tokenize(expression);
  } catch {
    // A character or literal the lexer refuses: it starts where the longest prefix that lexes ends.
    let at = expression.length - 1;
    while (at > 0 && thrown(() => tokenize(expression.slice(0, at)))) at -= 1;
    return at;
  }
  // Each prefix ends with a whole token: one that fails other than at its end fails at that token.
  for (const [index, token] of tokens.entries()) {
    // Not only for want of what would follow (the parser met its end).
    const error = thrown(() => compile(expression.slice(0, tokens[index + 1]?.start ?? expression.length)));
    if (error && !/\bEOF\b/.test(messageOf(error))) return token.start;
  }
  return 'end';
}

/** Says where the expression breaks, and the parser's own reason when that is not only its end. */
function syntaxProblem(expression: string, error: unknown) {
  const at = whereItBreaks(expression);
  if (at === 'end') return new Error('Syntax error at its end: it stops before it is complete');
  const rest = expression.slice(at);
  const shown = JSON.stringify(rest.length > 20 ? `${rest.slice(0, 20)}…` : rest);
  const reason = messageOf(error).replace(/^syntax( error)?[:,]?\s*/i, '');
  return new Error(`Syntax error at character ${at + 1} (${shown}): ${reason}`);
}

/** The expression as a function of the data; throws UsageError when it cannot be run, naming `option` (--query, or --until for a condition). */
export function compileQuery(expression: string, option = '--query') {
  let ast: ReturnType<typeof compile>;
  try {
    ast = compile(expression);
  } catch (error) {
    throw problem(expression, syntaxProblem(expression, error), option, true);
  }
  const known = new Set(getRegisteredFunctions());
  for (const name of namesOf(ast, 'Function'))
    if (!known.has(name)) throw problem(expression, new Error(`unknown function ${name}()`), option, true);
  return (data: unknown) => {
    try {
      return asDecimals(TreeInterpreter.search(ast, data as JSONValue), numbersIn(data));
    } catch (error) {
      throw problem(expression, error, option);
    }
  };
}

/** Every number in `value`. */
function numbersIn(value: unknown, found = new Set<number>()) {
  if (typeof value === 'number') found.add(value);
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) numbersIn(item, found);
  return found;
}

/** A query's result with the numbers the query computed (a sum, a product: none of the data's own) as decimals; the data's own numbers stay as they came. */
function asDecimals(value: unknown, given: ReadonlySet<number>): unknown {
  if (typeof value === 'number') return given.has(value) ? value : computedDecimal(value);
  if (Array.isArray(value)) return value.map((item) => asDecimals(item, given));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, asDecimals(item, given)]));
  return value;
}

/** JMESPath's own truth (as in a `[?…]` filter): false, null, an empty string, list or object are false; anything else — every number, 0 included — is true. */
export function isTruthy(value: unknown) {
  if (value == null || value === false || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}
