// What a command prints, as far as --fields and --query can know before it runs.
import { UsageError } from '../../core/errors.js';
import { safeText } from '../../core/security/safe-text.js';

export type OutputFields =
  | {
      kind: 'records';
      names: readonly string[];
      open: boolean;
      /** What is printed follows a request that changes something: from then on a shaping problem (a --query that fails on the data) is a warning, never exit 2 — the exit code says what was sent. */
      sends: boolean;
      jsonOnly?: string;
    }
  | {
      kind: 'none';
      prints: string;
    };

/** A field name: letters, digits, `_` and `-`, dotted to reach into a nested value (`pricing.market_price`, `legs.0.side`). */
const FIELD_NAME = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

export function fieldNames(...groups: ReadonlyArray<readonly string[]>) {
  return [...new Set(groups.flat())];
}

/** A name --fields may give for this declaration: one of its names, or a dotted name below one. */
export function declaredName(name: string, names: ReadonlySet<string>) {
  return names.has(name) || names.has(name.split('.')[0]);
}

/** Checks --fields and --query against what `hedge COMMAND` prints; throws UsageError (exit 2, one line naming the option and what is allowed) before anything is sent. */
export function checkOutputOptions(
  declared: OutputFields | undefined,
  given: { fields?: readonly string[]; query: boolean; json: boolean },
  commandWords: string,
) {
  const command = `\`hedge ${commandWords}\``;
  if (declared?.kind === 'records' && declared.jsonOnly && given.fields && !given.json)
    throw new UsageError(
      `--fields: here ${command} prints ${declared.jsonOnly}, which has no fields to pick; add --json to pick from its JSON document.`,
    );
  if (declared?.kind === 'none') {
    if (given.fields)
      throw new UsageError(
        `--fields: ${command} prints ${declared.prints}, which has no fields to pick; leave --fields out.`,
      );
    if (given.query)
      throw new UsageError(
        `--query: ${command} prints ${declared.prints}, which --query does not shape; leave --query out.`,
      );
    return;
  }
  if (!given.fields) return;
  for (const name of given.fields)
    if (!FIELD_NAME.test(name))
      throw new UsageError(
        `--fields: "${safeText(name)}" is not a field name; expected names of letters, digits, _ and - (dotted for a nested value), separated by commas, e.g. market,side,notional_usd.`,
      );
  if (!declared || declared.open) return;
  const names = new Set(declared.names);
  for (const name of given.fields)
    if (!declaredName(name, names))
      throw new UsageError(
        `--fields: "${safeText(name)}" is not a field of what ${command} prints; allowed: ${declared.names.join(', ')} (dotted names below them too).`,
      );
  return names;
}
