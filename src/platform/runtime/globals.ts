// The global options, once parsed (src/cli/globals.ts reads them off the command line).
import type { OutputFormat } from '../../core/vocabulary.js';

export interface GlobalOptions {
  /** true with --json, --format json, --format ndjson, --query or --raw: data on stdout is JSON. */
  json: boolean;
  /** true when JSON was asked for by name (--json, --format json or ndjson): a failure is then a JSON document. */
  jsonErrors?: boolean;
  /** --format as typed (--json alone is `json`); undefined: table on a terminal, tsv in a pipe. */
  format?: OutputFormat;
  /** --raw: JSON is the server's data as it sent it instead of hedge's one shape. */
  raw?: boolean;
  /** --fields, split on commas, in the order given. */
  fields?: string[];
  query?: string;
  /** false with --no-header: tsv and csv without their header row. */
  header: boolean;
  profile?: string;
  demo: boolean;
  yes: boolean;
  input: boolean;
  color: boolean;
  verbose: boolean;
  /** --timeout in seconds: bounds the whole command, waits included; 0 means no bound at all. */
  timeout?: number;
  /** --request-timeout in seconds: bounds each HTTP attempt. */
  requestTimeout?: number;
  /** The program as the user runs it (`hedge`, `./bin/hedge.js`), for the command lines hedge suggests; absent: `hedge`. */
  program?: string;
}
