// Runs one command's code: at once, or with `--until EXPR` until the condition holds. The CLI and the
// agent interface both come through here, so `--until` means the same to both.
import { UsageError } from '../../core/errors.js';
import { firstGiven } from '../../core/input.js';
import type { CommandContext } from '../../platform/runtime/context.js';
import type { CommandModule, CommandSpec, RawInput } from './command-spec.js';

/** Options that cannot share a run with --until: a live view, and `hedges ID --wait` (its own wait). */
const NOT_WITH_UNTIL = 'watch wait';

/** The --until condition, if any; where --until also takes a date, a value that reads as a date is one. */
async function untilCondition(spec: CommandSpec, input: RawInput, now: number) {
  const option = spec.options?.find((candidate) => candidate.key === 'until');
  const value = input.options.until;
  if (!option || typeof value !== 'string') return;
  const dateToo = option.flags.includes('<date');
  if (dateToo) {
    // Every date form starts with a digit (2026-11-01, 7d) and no JMESPath expression does: a
    // value that does is the command's date — a malformed one gets the command's own refusal.
    if (/^\s*\d/.test(value)) return;
    const { parseReportDate } = await import('../../features/report/report-rules.js');
    if (parseReportDate(value, new Date(now)) instanceof Date) return;
  }
  if (value.trim() === '') throw new UsageError(`--until: expected a JMESPath condition, e.g. "status=='filled'".`);
  return { expression: value, dateToo };
}

/** `words` name the command as typed (`keep run`) in what is said about it. */
export async function runCommand(
  ctx: CommandContext,
  spec: CommandSpec,
  input: RawInput,
  words: readonly string[] = [spec.name],
) {
  const module = (await spec.load!()) as CommandModule<RawInput>;
  const declared = spec.prints
    ? { kind: 'none' as const, prints: spec.prints }
    : typeof module.OUTPUT_FIELDS === 'function'
      ? module.OUTPUT_FIELDS(input)
      : module.OUTPUT_FIELDS;
  // Its flows' notices that name a card it shows are drawn on its output: the drawers loaded for it alone.
  let cards;
  if (module.CARDS) {
    const { CARD_DRAWERS } = await import('../../platform/results/cards.js');
    cards = Object.fromEntries(module.CARDS.map((name) => [name, CARD_DRAWERS[name]]));
  }
  // The command runs on an output of its own, which knows what it prints: a bad --fields or --query is refused here, before it sends.
  const command = ctx.derive({ output: ctx.output.forCommand(words.join(' '), declared, cards) });
  ctx.onDispose(() => command.dispose());
  const until = await untilCondition(spec, input, ctx.clock.now());
  if (!until) return (await module.run(command, input)) ?? 0;
  const clash = firstGiven(input.options, NOT_WITH_UNTIL);
  if (clash)
    throw new UsageError(
      `${clash} cannot be combined with --until (--until already reads again until the condition holds).`,
    );
  // History and report would read the condition as a date: they never see it.
  const { until: _condition, ...options } = input.options;
  const own = until.dateToo ? { args: input.args, options } : input;
  const { runUntil } = await import('./run-until.js');
  return runUntil(
    command,
    { ...until, fields: module.CONDITION_FIELDS, final: module.FINAL_DATA, command: spec.name },
    (context) => module.run(context, own),
  );
}
