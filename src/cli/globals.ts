// The global options as the front reads them. Bad values are returned as a problem sentence,
// not thrown: the front holds no error classes (they live once, on the lazily loaded side).
import { OUTPUT_FORMATS, type OutputFormat } from '../core/vocabulary.js';
import type { GlobalOptions } from '../platform/runtime/globals.js';

const FORMATS: readonly OutputFormat[] = OUTPUT_FORMATS;

function positiveSeconds(name: string, raw: unknown) {
  if (raw === undefined) return;
  const value = Number(raw);
  // Plain decimals only: Number() would also take "0x10" or "1e3".
  if (typeof raw !== 'string' || !/^\s*\d*\.?\d+\s*$/.test(raw) || value < 0 || value > 86_400)
    return `${name}: expected a number of seconds from 0 to 86400 (got "${String(raw)}").`;
  return value;
}

export function parseGlobals(all: Record<string, unknown>): { globals: GlobalOptions } | { problem: string } {
  const timeout = positiveSeconds('--timeout', all.timeout);
  const requestTimeout = positiveSeconds('--request-timeout', all.requestTimeout);
  const format = all.format === undefined ? undefined : (String(all.format) as OutputFormat);
  const fields =
    typeof all.fields === 'string'
      ? all.fields
          .split(',')
          .map((field) => field.trim())
          .filter((field) => field !== '')
      : undefined;
  const query = typeof all.query === 'string' ? all.query : undefined;
  const raw = all.raw === true;
  // A format that cannot carry JSON, which --query and --raw need.
  const notJson = format !== undefined && format !== 'json' && format !== 'ndjson';
  // The first problem, in the order the options are checked.
  const problem =
    (typeof timeout === 'string' && timeout) ||
    (typeof requestTimeout === 'string' && requestTimeout) ||
    (format !== undefined &&
      !FORMATS.includes(format) &&
      `--format: "${format}" is not allowed; expected one of ${FORMATS.join(', ')}.`) ||
    (all.json === true &&
      format !== undefined &&
      format !== 'json' &&
      `--json and --format ${format} disagree; give one of them.`) ||
    (fields?.length === 0 && '--fields: expected field names separated by commas, e.g. market,side,notional_usd.') ||
    (query?.trim() === '' && '--query: expected a JMESPath expression, e.g. "[?side==\'buy\'].market".') ||
    (query !== undefined &&
      notJson &&
      `--query applies to JSON output; --format ${format} cannot carry it (use --format json or ndjson).`) ||
    (raw &&
      notJson &&
      `--raw applies to JSON output (the server's data as sent); --format ${format} cannot carry it (use --json, or --format json or ndjson).`) ||
    (requestTimeout === 0 &&
      '--request-timeout: expected a number of seconds greater than 0 and at most 86400 (got "0").');
  if (problem) return { problem };
  const chosen = format ?? (all.json === true || query !== undefined || raw ? 'json' : undefined);
  return {
    globals: {
      json: chosen === 'json' || chosen === 'ndjson',
      // --query and --raw make the data JSON; an error is a JSON document only when JSON was asked
      // for by name: a bad --query without --json is one line for a person.
      jsonErrors: all.json === true || format === 'json' || format === 'ndjson',
      format: chosen,
      raw,
      fields,
      query,
      header: all.header !== false,
      profile: typeof all.profile === 'string' ? all.profile : undefined,
      demo: all.demo === true,
      yes: all.yes === true,
      input: all.input !== false,
      color: all.color !== false,
      verbose: all.verbose === true,
      timeout: timeout as number | undefined,
      requestTimeout: requestTimeout as number | undefined,
    },
  };
}

/**
 * Whether the command line asks for JSON by name (`--json`, `--format json|ndjson`): then a usage
 * problem the parser finds is reported as the JSON error document, as parseGlobals' `jsonErrors`
 * says for a problem found later. Read off argv, since commander has not finished with it.
 */
export function jsonErrorsAsked(argv: readonly string[]) {
  return argv.some((word, index) => {
    if (word === '--json') return true;
    const format =
      word === '--format' ? argv[index + 1] : word.startsWith('--format=') ? word.slice('--format='.length) : undefined;
    return format === 'json' || format === 'ndjson';
  });
}
