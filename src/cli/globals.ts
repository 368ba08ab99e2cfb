// The global options as the front reads them. Bad values are returned as a problem sentence,
// not thrown: the front holds no error classes (they live once, on the lazily loaded side).
import { OUTPUT_FORMATS, type OutputFormat } from '../core/vocabulary.js';
import type { GlobalOptions } from '../platform/runtime/context.js';
import { flagNames, type OptionSpec } from './runner/command-spec.js';
import { shellWord } from '../core/program.js';

/** Seconds from 0 to 86400, plain decimals only (Number() would also take "0x10" or "1e3"); undefined if not. */
const seconds = (raw: unknown) =>
  typeof raw === 'string' && /^\s*\d*\.?\d+\s*$/.test(raw) && +raw <= 86_400 ? +raw : undefined;

export function parseGlobals(all: Record<string, unknown>): { globals: GlobalOptions } | { problem: string } {
  const timeout = seconds(all.timeout);
  const requestTimeout = seconds(all.requestTimeout);
  // Commander's values of the program's own options: a string each, or undefined when not given.
  const format = all.format as OutputFormat | undefined;
  const fields =
    typeof all.fields === 'string'
      ? all.fields
          .split(',')
          .map((field) => field.trim())
          .filter(Boolean)
      : undefined;
  const query = all.query as string | undefined;
  const raw = all.raw === true;
  const json = all.json === true;
  const jsonFormat = format === 'json' || format === 'ndjson';
  // A format that cannot carry JSON, which --query and --raw need.
  const notJson = format !== undefined && !jsonFormat;
  const badSeconds = (name: string, given: unknown) =>
    given !== undefined &&
    seconds(given) === undefined &&
    `${name}: expected a number of seconds from 0 to 86400 (got "${String(given)}").`;
  // The first problem, in the order the options are checked.
  const problem = [
    badSeconds('--timeout', all.timeout),
    badSeconds('--request-timeout', all.requestTimeout),
    notJson &&
      !OUTPUT_FORMATS.includes(format) &&
      `--format: "${format}" is not allowed; expected one of ${OUTPUT_FORMATS.join(', ')}.`,
    json && notJson && `--json and --format ${format} disagree; give one of them.`,
    fields?.length === 0 && '--fields: expected field names separated by commas, e.g. market,side,notional_usd.',
    query?.trim() === '' && '--query: expected a JMESPath expression, e.g. "[?side==\'buy\'].market".',
    query !== undefined &&
      notJson &&
      `--query applies to JSON output; --format ${format} cannot carry it (use --format json or ndjson).`,
    raw &&
      notJson &&
      `--raw applies to JSON output (the server's data as sent); --format ${format} cannot carry it (use --json, or --format json or ndjson).`,
    typeof all.profile === 'string' &&
      all.demo === true &&
      `--profile ${shellWord(all.profile)} and --demo disagree: --demo runs on the built-in simulator with its own test key, never a profile's; leave out one of them.`,
    requestTimeout === 0 &&
      '--request-timeout: expected a number of seconds greater than 0 and at most 86400 (got "0").',
  ].find(Boolean);
  if (problem) return { problem };
  const chosen = format ?? (json || query !== undefined || raw ? 'json' : undefined);
  return {
    globals: {
      json: chosen === 'json' || chosen === 'ndjson',
      // --query and --raw make the data JSON; an error is a JSON document only when JSON was asked
      // for by name: a bad --query without --json is one line for a person.
      jsonErrors: json || jsonFormat,
      format: chosen,
      raw,
      fields,
      query,
      header: all.header !== false,
      profile: all.profile as string | undefined,
      demo: all.demo === true,
      yes: all.yes === true,
      input: all.input !== false,
      color: all.color !== false,
      verbose: all.verbose === true,
      timeout,
      requestTimeout,
    },
  };
}

/**
 * Whether the command line asks for JSON by name (`--json`, `--format json|ndjson`): then a usage
 * problem the parser finds is reported as the JSON error document, as parseGlobals' `jsonErrors`
 * says for a problem found later. Read off argv, since commander has not finished with it.
 */
export function jsonErrorsAsked(argv: readonly string[]) {
  return argv.some(
    (word, index) =>
      /^--(json|format=(nd)?json)$/.test(word) || (word === '--format' && /^(nd)?json$/.test(argv[index + 1] ?? '')),
  );
}

/** The global options typed on `argv` (`--demo`, `--profile desk`, `--query '[].id'`), as the shell reads them back: kept in every command line a usage hint suggests. */
export function typedGlobalWords(argv: readonly string[], globals: readonly OptionSpec[]) {
  const words: string[] = [];
  for (let index = 0; index < argv.length && argv[index] !== '--'; index += 1) {
    const option = globals.find((each) => flagNames(each).includes(argv[index].split('=')[0]));
    if (!option) continue;
    // A value given apart (`--profile desk`) is the next word.
    const apart = option.flags.includes('<') && !argv[index].includes('=');
    words.push(...argv.slice(index, apart ? index + 2 : index + 1));
    if (apart) index += 1;
  }
  return words.map(shellWord);
}
