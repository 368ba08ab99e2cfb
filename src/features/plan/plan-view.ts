// How a plan and an apply run read: a table that fits the terminal, TSV when piped, JSON under --json.
import { adoptWords, describePlanStepNote, notThisRowWords, problemAsData } from '../../core/plan.js';
import { formatMoney, formatSignedMoney, formatUsd, plural } from '../../core/number-format.js';
import { safeText } from '../../core/security/safe-text.js';
import { payOrEarn, toAccountSide } from '../../core/money.js';
import type { ApplyReportRow } from './apply.js';
import type { QuotedPlan } from './target-plan.js';
import type { Output } from '../../platform/terminal/output.js';
import { APPLY_RESOURCE, PLAN_RESOURCE } from '../../platform/fields/resource-fields.js';
import { wrapWords } from '../../platform/terminal/width.js';
import { withoutUndefined } from '../../core/objects.js';

/** A row's side and its notional now and at target, as every view of the plan names them. */
const sideOf = (row: { market: string; side: string; currentUsd: number; targetUsd: number }) => ({
  market: row.market,
  side: row.side,
  current_usd: row.currentUsd,
  target_usd: row.targetUsd,
});

function linesOf(input: QuotedPlan) {
  const steps = input.plan.steps.map((step, index) => {
    const quote = input.quotes[index]?.quote;
    return {
      step: index + 1,
      ...sideOf(step),
      action: step.action,
      delta_usd: step.deltaUsd,
      tenor_days: quote?.tenor_days ?? step.tenorDays,
      // Only opens and adds are quoted: the cost columns of the other steps stay empty.
      margin_usdc: quote?.upfront.required_margin_usdc,
      // The quote's fee and carry on the account's side (- you pay), as every amount hedge shows.
      fee_pnl_usdc: quote && toAccountSide(quote.upfront.platform_fee_usdc),
      carry_pnl_usdc: quote && toAccountSide(quote.carry.total_usdc),
      line: step.line,
    };
  });
  const none = (action: string) => (row: Parameters<typeof sideOf>[0] & { line: number }) => ({
    step: undefined,
    ...sideOf(row),
    action,
    delta_usd: 0,
    line: row.line,
  });
  // A row whose side holds hedges that are not its own: nothing planned.
  return [...steps, ...input.plan.unchanged.map(none('none')), ...input.plan.notThisRows.map(none(NOT_THIS_ROWS))];
}

/** The action of a row whose side holds hedges that are not the row's. */
const NOT_THIS_ROWS = "not this row's";

/** `--json`: the plan as data. */
export function planAsData(input: QuotedPlan) {
  const { plan } = input;
  return {
    source: input.source,
    at_target: plan.atTarget,
    steps: plan.steps.map((step, index) => {
      const priced = input.quotes[index];
      return {
        step: index + 1,
        action: step.action,
        ...sideOf(step),
        delta_usd: step.deltaUsd,
        ...withoutUndefined({
          tenor_days: step.tenorDays,
          client_reference: step.clientReference,
          current_tenor_days: step.currentTenorDays,
        }),
        line: step.line,
        notes: step.notes.map((note) => ({ code: note, message: describePlanStepNote(note, step) })),
        quote: priced?.quote ?? null,
        ...(priced?.error && { quote_error: priced.error }),
      };
    }),
    unchanged: plan.unchanged.map((row) => ({ ...sideOf(row), line: row.line })),
    untouched: plan.untouched.map((position) => ({
      market: position.market,
      side: position.side,
      notional_usd: position.notionalUsd,
      ...(position.hedgeId && { hedge_id: position.hedgeId }),
    })),
    problems: plan.problems.map(problemAsData),
    not_this_rows: plan.notThisRows.map((row) => ({
      ...sideOf(row),
      line: row.line,
      ...withoutUndefined({ client_reference: row.clientReference }),
      hedges: row.hedges.map(({ id, clientReference }) => ({ id, client_reference: clientReference ?? null })),
      adopt: adoptWords(row.hedges),
    })),
    totals: input.totals,
  };
}

// ---- the table ----

/** The plan on stdout (table or TSV), with checks, notes and totals as messages. */
export async function renderPlan(
  output: Output,
  input: QuotedPlan,
  /** The command that carries the plan out, for the closing hint (`hedge apply target.csv`); none in `apply`, where the
   * plan is a preview: in plain mode it goes to stderr, stdout keeps the run's report. */
  applyCommand?: string,
) {
  const lines = linesOf(input);
  const { plan, totals } = input;
  if (output.isHuman) {
    // The action coloured by what it does: opens and adds green, reductions yellow.
    const { green, yellow, dim } = output.chalk;
    const colours: Record<string, typeof dim> = { open: green, add: green, reduce: yellow, close: yellow };
    const fields: typeof PLAN_RESOURCE.fields = PLAN_RESOURCE.fields.map((field) =>
      field.key === 'action' ? { ...field, style: (text, row) => (colours[String(row.action)] ?? dim)(text) } : field,
    );
    await output.list(lines, { ...PLAN_RESOURCE, fields }, { empty: 'No target rows.' });
    output.write(
      totalsLines(input)
        .map((line) => wrapWords(line, output.columns, { hangingIndent: 2 }))
        .join('\n'),
    );
  } else if (applyCommand === undefined) {
    // Each line (a step, or a side already at target) in words.
    for (const line of lines) {
      const what = `${safeText(line.market)} ${line.side} ${formatMoney(line.current_usd)} → ${formatMoney(line.target_usd)}`;
      const done =
        line.action === 'none'
          ? ' (at target)'
          : line.action === NOT_THIS_ROWS
            ? `: ${NOT_THIS_ROWS}`
            : `: ${line.action} ${formatSignedMoney(line.delta_usd)}`;
      output.note(`${line.step === undefined ? '-' : `step ${line.step}`}: ${what}${done}`);
    }
    output.note(totalsLines(input).join('\n'));
  } else {
    // TSV through the one output layer: fixed columns (PLAN_RESOURCE), totals on stderr.
    await output.list(lines, PLAN_RESOURCE, { empty: 'No target rows.' });
    // Every total but the count of steps not quoted, in their order.
    output.note(
      [
        'totals:',
        ...Object.entries(totals).flatMap(([key, value]) => (key === 'unquoted' ? [] : `${key}=${value}`)),
      ].join(' '),
    );
  }
  plan.steps.forEach((step, index) => {
    for (const note of step.notes)
      output.note(output.chalk.dim(`note: step ${index + 1}: ${safeText(describePlanStepNote(note, step))}`));
    const error = input.quotes[index]?.error;
    if (error && error.code !== 'not_quoted')
      output.warn(`step ${index + 1}: no quote (${safeText(error.code)}): ${safeText(error.message)}`);
  });
  for (const position of plan.untouched) {
    output.note(
      output.chalk.dim(
        `left alone: ${safeText(position.market)} ${position.side} ${formatUsd(position.notionalUsd)} (not in ${safeText(input.source)}; add a row with 0 to close it)`,
      ),
    );
  }
  for (const row of plan.notThisRows)
    output.warn(
      `line ${row.line}: ${notThisRowWords(row)}: nothing is planned for it. ${adoptWords(row.hedges)
        .map((word) => `--adopt ${safeText(word)}`)
        .join(' ')} makes ${row.hedges.length === 1 ? 'it' : 'them'} the row's.`,
    );
  // Failed checks are listed by the error that ends the command (after this plan).
  if (plan.atTarget) output.success('At target: nothing to do.');
  else if (!plan.problems.length) {
    // Quoted: a command is wrapped as one word, never split while it fits a line.
    const next = applyCommand ? ` Apply them with: \`${applyCommand}\`` : '';
    output.note(`${plural(totals.actions, 'action')} needed to reach the target.${next}`);
  }
}

function totalsLines(input: QuotedPlan) {
  const { totals } = input;
  const lines = [
    `Actions: ${totals.actions} · adds ${formatUsd(totals.added_usd)} · takes off ${formatUsd(totals.removed_usd)}`,
  ];
  if (totals.actions > 0 && totals.added_usd > 0) {
    lines.push(
      `Upfront: margin ${formatMoney(totals.required_margin_usdc)} + fee ${formatMoney(totals.platform_fee_usdc)} = ${formatMoney(totals.total_upfront_usdc)} USDC · carry over the tenor ${payOrEarn(totals.carry_pnl_usdc)} (indicative)` +
        (totals.unquoted > 0 ? ` · ${plural(totals.unquoted, 'step')} not quoted` : ''),
    );
  }
  return lines;
}

// ---- the report of an apply run ----

export async function renderApplyReport(output: Output, rows: ApplyReportRow[]) {
  if (!rows.length) return output.document(rows);
  await output.list(rows, APPLY_RESOURCE, {
    empty: 'No actions.',
    title: 'Apply report',
  });
}
