// The global options, once parsed (src/cli/globals.ts reads them off the command line).
export interface GlobalOptions {
  json: boolean;
  profile?: string;
  demo: boolean;
  yes: boolean;
  /** false with --no-input */
  input: boolean;
  /** false with --no-color */
  color: boolean;
  verbose: boolean;
  /** --timeout in seconds: bounds the whole command, waits included; 0 means no bound at all. */
  timeout?: number;
  /** --request-timeout in seconds: bounds each HTTP attempt. */
  requestTimeout?: number;
}
