// The command contract: a command declares its arguments and options once, as data, and its code
// receives an object typed from that declaration, so a misnamed option fails the typecheck.
import { Option } from 'commander';
import type { CommandContext } from '../../platform/runtime/context.js';
import type { OutputFields } from '../../platform/fields/output-fields.js';
import type { CardName } from '../../platform/results/notices.js';

export interface ArgSpec {
  readonly name: string;
  readonly required: boolean;
  readonly description: string;
  /** Fixed words, or what completes it: a stored profile, a market, a hedge id or a relationship id hedge last read. */
  readonly values?: readonly string[] | 'profile' | 'market' | 'hedge' | 'relationship';
}

/** What a command receives for an option of each kind. `negatable`: `--no-wait` gives `wait: false`; `optional-value`: `--watch` or `--watch 5`. */
interface OptionValues {
  value: string | undefined;
  flag: boolean | undefined;
  negatable: boolean;
  'optional-value': string | true | undefined;
  repeatable: string[] | undefined;
}
export type OptionKind = keyof OptionValues;

export interface OptionSpec {
  readonly flags: string;
  /** The property the value arrives under (commander's camelCase of the long flag). */
  readonly key: string;
  readonly kind: OptionKind;
  readonly description: string;
  readonly values?: readonly string[] | 'profile';
}

/** How much an agent may do with a command (hedge mcp): read, write (moves money) or local only. */
type CommandTier = 'read' | 'write' | 'local';

/** Where `hedge --help` lists a top-level command (gh's grouping: what a person comes to do). */
type CommandGroup = (typeof COMMAND_GROUPS)[number]['id'];

export const COMMAND_GROUPS = [
  { id: 'trading', heading: 'Core trading' },
  { id: 'book', heading: 'The book' },
  { id: 'automation', heading: 'Automation' },
  { id: 'setup', heading: 'Setup and agents' },
] as const;

export interface CommandSpec {
  readonly name: string;
  /** One line in the command lists of `hedge --help` (fits 80 columns beside the name). */
  readonly summary: string;
  /** The longer text of the command's own help, the man page and the agent catalogue (default: summary). */
  readonly description?: string;
  readonly group?: CommandGroup;
  readonly args?: readonly ArgSpec[];
  readonly options?: readonly OptionSpec[];
  readonly examples: readonly string[];
  /** What a command that prints no records prints instead: --fields and --query are refused before it runs (platform/fields/output-fields.ts). */
  readonly prints?: string;
  readonly subcommands?: readonly CommandSpec[];
  readonly tier?: CommandTier;
  /** The subcommand run when its group is called alone (`hedge journal` = `hedge journal list`). */
  readonly isDefault?: boolean;
  readonly load?: () => Promise<CommandModule<never>>;
}

export interface InputOf<S extends CommandSpec> {
  args: S['args'] extends readonly ArgSpec[]
    ? { [A in S['args'][number] as A['name']]: A['required'] extends true ? string : string | undefined }
    : Record<never, never>;
  options: S['options'] extends readonly OptionSpec[]
    ? { [O in S['options'][number] as O['key']]: OptionValues[O['kind']] }
    : Record<never, never>;
}

export interface CommandModule<I> {
  run(ctx: CommandContext, input: I): Promise<number | void>;
  /** Where --until also takes a date: the names a condition may use (anything else is exit 2). */
  CONDITION_FIELDS?: readonly string[];
  /** Why the command's --json data can no longer change (a hedge closed), or undefined while it can: --until stops there. */
  FINAL_DATA?: (data: unknown) => string | undefined;
  /** What the command prints, so that --fields and --query are checked before it runs; undeclared: a read. */
  OUTPUT_FIELDS?: OutputFields | ((input: I) => OutputFields | undefined);
  /** The cards it shows in the place of its flows' notices that name them (drawn from platform/results/cards.ts). */
  CARDS?: readonly CardName[];
}

/** Untyped input as the parser hands it over; only main.ts and the agent interface see it. */
export interface RawInput {
  args: Record<string, string | undefined>;
  options: Record<string, unknown>;
}

/** How commands listed under `group` in `hedge --help` are declared (no group: subcommands), e.g. `declared('book')('hedges', 'read', summary, {…})`. */
export const declared =
  (group?: CommandGroup) =>
  <const B extends Omit<CommandSpec, 'name' | 'group' | 'tier' | 'summary'>>(
    name: string,
    tier: CommandTier,
    summary: string,
    body: B,
  ) => ({ name, ...(group && { group }), tier, summary, ...body });

/** Every command of the tree with its path of names, each before its subcommands. */
export const commandPaths = (
  specs: readonly CommandSpec[],
  parents: readonly string[] = [],
): { spec: CommandSpec; path: string[] }[] =>
  specs.flatMap((spec) => {
    const path = [...parents, spec.name];
    return [{ spec, path }, ...commandPaths(spec.subcommands ?? [], path)];
  });

/** An option's flags (`-t`, `--tenor`), its long one last. */
export const flagNames = (option: OptionSpec) => option.flags.split(/[\s,]+/).filter((part) => part.startsWith('-'));

type LongName<F extends string> = F extends `${string}--${infer L}`
  ? L extends `${infer N} ${string}`
    ? N
    : L
  : never;
type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;
type KeyOf<F extends string> = Camel<LongName<F> extends `no-${infer R}` ? R : LongName<F>>;
type KindOf<F extends string> = F extends `${string}<${string}`
  ? 'value'
  : F extends `${string}[${string}`
    ? 'optional-value'
    : F extends `${string}--no-${string}`
      ? 'negatable'
      : 'flag';

/** An option whose key and kind are read off its flags, by commander as it will parse them. */
export function opt<const F extends string, const K extends OptionKind = KindOf<F>>(
  flags: F,
  description: string,
  values?: OptionSpec['values'],
  kind?: K,
) {
  const parsed = new Option(flags);
  const derived = parsed.required ? 'value' : parsed.optional ? 'optional-value' : parsed.negate ? 'negatable' : 'flag';
  const key = parsed.attributeName() as KeyOf<F>;
  return { flags, key, kind: kind ?? (derived as K), description, ...(values && { values }) };
}
