// What a command prints, as far as --fields and --query can know before it runs (issue 49: a bad
// output option found after the trade left the hedge open and exited 2, "nothing sent"). A command
// module declares it (`OUTPUT_FIELDS`, runner/command-spec.ts); the runner hands it to the output
// layer (Output.prepare) before the command's code runs, so every name is checked before the first
// request. The rule, by what the command is (docs/output.md, "Checked before anything is sent"):
//
//   - a name that is not a field name at all (`id status`, `[0]`, `a..b`) is refused up front,
//     whatever the command;
//   - a write (`records`, `open: false`) prints only documented fields: any other name is refused
//     up front, and a documented name its answer happens to lack is an empty cell (null in JSON),
//     never an error after the send;
//   - a read (`open: true`, and every command that declares nothing) may print fields the server
//     adds: a well-formed name is checked against the data once it is read — reads send no write;
//   - a command that prints no records (`none`: a shell script, an event stream, a protocol) takes
//     neither --fields nor --query.
import { UsageError } from '../errors.js';
import { safeText } from '../security/safe-text.js';

export type OutputFields =
  | {
      kind: 'records';
      /** The documented names, in the order a refusal lists them (dotted names below them are allowed too). */
      names: readonly string[];
      /** true: the server may add fields of its own (a read); false: only these (a write). */
      open: boolean;
      /**
       * What is printed follows a request that changes something: from then on a shaping problem
       * (a --query that fails on the data) is a warning, never exit 2 — the exit code says what was sent.
       */
      sends: boolean;
      /**
       * Records only in JSON: what a text format prints instead ("the request as HTTP text"), where
       * --fields has nothing to pick.
       */
      jsonOnly?: string;
    }
  | {
      kind: 'none';
      /** What the command prints instead of records, for the refusal: "a shell script". */
      prints: string;
    };

/** A field name: letters, digits, `_` and `-`, dotted to reach into a nested value (`pricing.market_price`, `legs.0.side`). */
const FIELD_NAME = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/** Every declared name in the order given, without repeats. */
export function fieldNames(...groups: ReadonlyArray<readonly string[]>): string[] {
  return [...new Set(groups.flat())];
}

/** A name --fields may give for this declaration: one of its names, or a dotted name below one. */
export function declaredName(name: string, names: ReadonlySet<string>): boolean {
  if (names.has(name)) return true;
  const dot = name.indexOf('.');
  return dot > 0 && names.has(name.slice(0, dot));
}

/**
 * Checks --fields and --query against what `hedge COMMAND` prints; throws UsageError (exit 2, one
 * line naming the option and what is allowed) before anything is sent. Returns the names accepted
 * for good (a write's documented names), which the output layer then never refuses.
 */
export function checkOutputOptions(
  declared: OutputFields | undefined,
  given: { fields?: readonly string[]; query: boolean; json: boolean },
  commandWords: string,
): ReadonlySet<string> | undefined {
  const command = `\`hedge ${commandWords}\``;
  if (declared?.kind === 'records' && declared.jsonOnly && given.fields && !given.json) {
    throw new UsageError(
      `--fields: here ${command} prints ${declared.jsonOnly}, which has no fields to pick; add --json to pick from its JSON document.`,
    );
  }
  if (declared?.kind === 'none') {
    if (given.fields)
      throw new UsageError(
        `--fields: ${command} prints ${declared.prints}, which has no fields to pick; leave --fields out.`,
      );
    if (given.query)
      throw new UsageError(
        `--query: ${command} prints ${declared.prints}, which --query does not shape; leave --query out.`,
      );
    return undefined;
  }
  if (!given.fields) return undefined;
  for (const name of given.fields) {
    if (!FIELD_NAME.test(name)) {
      throw new UsageError(
        `--fields: "${safeText(name)}" is not a field name; expected names of letters, digits, _ and - (dotted for a nested value), separated by commas, e.g. market,side,notional_usd.`,
      );
    }
  }
  if (!declared || declared.open) return undefined;
  const names = new Set(declared.names);
  for (const name of given.fields) {
    if (!declaredName(name, names)) {
      throw new UsageError(
        `--fields: "${safeText(name)}" is not a field of what ${command} prints; allowed: ${declared.names.join(', ')} (dotted names below them too).`,
      );
    }
  }
  return names;
}
