// `hedge plan` and the planning half of `hedge apply`: the target file checked whole, the live book
// read, the plan computed (domain/plan.ts) and each open and add quoted.
import type { HedgeClient } from '../../platform/api/client.js';
import { readNumber, plural } from '../../core/number-format.js';
import { hedgeCommandLine, shellWord } from '../../core/program.js';
import {
  adoptWords,
  computePlan,
  describePlanProblem,
  notThisRowWords,
  problemAsData,
  type Plan,
  type PlanStep,
} from '../../core/plan.js';
import { parseTargetFile, type TargetRow } from '../../core/target-file.js';
import { parseUsdAmount } from '../../core/input.js';
import { cents, toAccountSide } from '../../core/money.js';
import { TENORS } from '../../core/vocabulary.js';
import { ApiError, PreTradeCheckError } from '../../core/errors.js';
import type { WritePorts } from '../write/ports.js';
import { safeText } from '../../core/security/safe-text.js';
import { inputFileProblems, listedProblems, readInputFile, type InputPorts } from '../write/input-file.js';
import { sideAfterOf } from '../book/side-book.js';
import { notTheRows, sideHolds, towardTarget, type SideBook } from '../book/book.js';
import { readSidesAsAnswered } from '../write/wait.js';

/** What `plan` and `apply` share: where the target comes from and how close counts as there. */
export interface TargetPlanOptions {
  /** A path, or `-` for stdin. */
  file: string;
  toleranceUsd: number;
  /** `--adopt REF|ID`: hedges on a row's side that the user makes the row's (another reference, or none). */
  adopt?: readonly string[];
}

/** `plan` or `apply` as typed, for a suggestion: the same file, tolerance and adopted hedges, so it plans what this run
 * planned. */
export const againWords = (command: 'plan' | 'apply', opts: TargetPlanOptions) => [
  command,
  shellWord(opts.file),
  ...(opts.toleranceUsd > 0 ? ['--tolerance', String(opts.toleranceUsd)] : []),
  ...(opts.adopt ?? []).flatMap((word) => ['--adopt', shellWord(word)]),
];

/** The words of the apply a hint suggests (againWords). */
export const applyWords = (opts: TargetPlanOptions) => againWords('apply', opts);

/** The file's rows, and how problems and messages name it: the path as given, or `stdin`. */
type TargetFile = Awaited<ReturnType<typeof readTargetFile>>;

/** What `hedge plan` computes and `hedge apply` carries out, as data: `quotes` and `trades` parallel to plan.steps (a quote
 * for each open and add; what each step trades, with the hedges its side held: an agent's checks and apply's one yes bind them). */
export type QuotedPlan = Awaited<ReturnType<typeof buildTargetPlan>>;

/** `--tolerance USD`: an amount of 0 or more (default 0), in the one USD grammar (domain/input.ts). */
export function parseTolerance(raw: string | undefined) {
  return raw === undefined ? 0 : parseUsdAmount(raw, '--tolerance', 'zero-or-more');
}

/** Reads and checks the target file: every problem as `file:LINE: message` in one UsageError (exit 2). `again`: the
 * command that reads it, its options as typed (`apply - --tolerance 5`), for the pipe a terminal on stdin is told of. */
export async function readTargetFile(ports: InputPorts, file: string, again: readonly string[] = ['plan', '-']) {
  const pipe = `cat target.csv | ${hedgeCommandLine(ports.globals, again)}`;
  const { text, sourceName } = await readInputFile(ports, file, 'target file', pipe);
  const parsed = parseTargetFile(text, { sourceName });
  if ('problems' in parsed) {
    throw inputFileProblems(
      sourceName,
      parsed.problems,
      'Fix every line listed, then run the command again. Columns: market,side,notional_usd,tenor_days[,client_reference,until,roll_before].',
    );
  }
  return { sourceName, rows: parsed.rows };
}

async function quoteStep(client: HedgeClient, step: PlanStep, rows: readonly TargetRow[], blocked: boolean) {
  if (step.action !== 'open' && step.action !== 'add') return;
  // A step the checks refuse is not quoted: the server would refuse the quote for the same reason.
  if (blocked) return { error: { code: 'not_quoted', message: 'not quoted: the step fails a check' } };
  // An add is quoted at the open position's tenor when it is a valid one, else the row's.
  const tenor =
    step.tenorDays ??
    TENORS.find((known) => known === step.currentTenorDays) ??
    rows.find((row) => row.line === step.line)?.tenorDays;
  if (tenor === undefined) return { error: { code: 'no_tenor', message: 'not quoted: no tenor known for this side' } };
  try {
    const quote = await client.createQuote({
      market: step.market,
      side: step.side,
      notional_usd: step.deltaUsd,
      tenor_days: tenor,
    });
    return { quote };
  } catch (error) {
    if (error instanceof ApiError) return { error: { code: error.code, message: error.message } };
    throw error;
  }
}

/** `quotes`: the cost of each open or add, from POST /quotes (indicative); `error` when the quote could not be had (the
 * step itself may still be fine). */
export function planTotals(plan: Plan, quotes: ReadonlyArray<Awaited<ReturnType<typeof quoteStep>>>) {
  const totals = {
    actions: plan.steps.length,
    added_usd: 0,
    removed_usd: 0,
    required_margin_usdc: 0,
    platform_fee_usdc: 0,
    total_upfront_usdc: 0,
    carry_pnl_usdc: 0,
    unquoted: 0,
  };
  const add = (key: keyof typeof totals, amount: number) => (totals[key] = cents(totals[key] + amount));
  plan.steps.forEach((step, index) => {
    add(step.deltaUsd > 0 ? 'added_usd' : 'removed_usd', Math.abs(step.deltaUsd));
    const priced = quotes[index];
    if (priced && !priced.quote) totals.unquoted += 1;
    if (!priced?.quote) return;
    const { upfront, carry } = priced.quote;
    for (const key of ['required_margin_usdc', 'platform_fee_usdc', 'total_upfront_usdc'] as const)
      add(key, upfront[key]);
    add('carry_pnl_usdc', toAccountSide(carry.total_usdc));
  });
  return totals;
}

/** Each row's side as the side model holds it (its books, in the rows' order): what it holds, the step toward the row's
 * target the keeper would take too (towardTarget), and the hedges on it that are not the row's. */
export function sidesToward(
  rows: readonly TargetRow[],
  books: readonly SideBook[],
  toleranceUsd: number,
  adopt?: readonly string[],
) {
  if (!Number.isFinite(toleranceUsd) || toleranceUsd < 0)
    throw new RangeError(`toleranceUsd must be a finite amount of 0 or more, got ${toleranceUsd}`);
  return rows.map((row, index) => {
    const holds = sideHolds(books[index]);
    return {
      currentUsd: holds.holds === 'held' ? holds.notionalUsd : 0,
      toward: towardTarget(books[index], row.notionalUsd, toleranceUsd),
      notOwned: notTheRows(books[index], row.clientReference, adopt),
    };
  });
}

/** Reads the live book and computes the plan with a quote for each open and add. Sends no write. */
export async function buildTargetPlan(
  ports: WritePorts,
  client: HedgeClient,
  target: TargetFile,
  { toleranceUsd, adopt }: Pick<TargetPlanOptions, 'toleranceUsd' | 'adopt'>,
) {
  // Every side the target names is planned from its book: its records and positions line in step (side-book.ts).
  // A side with a hedge still being opened (another process's --no-wait open) is waited for: its notional is not known yet.
  const [marketList, account, { positions: book, books }] = await Promise.all([
    client.listMarkets(),
    client.getAccount(),
    readSidesAsAnswered(ports, client, target.rows, true),
  ]);
  const onlyMarket = marketList.markets.length === 1 ? marketList.markets[0].market.toUpperCase() : undefined;
  const plan = computePlan({
    targets: target.rows,
    // A line that names no market is the only listed market's.
    positions: book.flatMap((line) => {
      const market = line.market ?? onlyMarket;
      if (line.side === undefined || line.notionalUsd === undefined || market === undefined) {
        ports.log('positions: a line without a readable side, notional or market is left out of the plan');
        return [];
      }
      return [
        {
          market,
          side: line.side,
          notionalUsd: line.notionalUsd,
          tenorDays: readNumber(line.raw.tenor_days),
          hedgeId: line.hedgeId,
        },
      ];
    }),
    markets: marketList.markets,
    availableExposureUsd: account.available_exposure_usd,
    sides: sidesToward(target.rows, books, toleranceUsd, adopt),
  });
  const blocked = new Set(plan.problems.map((problem) => problem.stepIndex));
  const quotes = [];
  // One at a time: a plan is a handful of rows, and a burst of quotes could meet a rate limit.
  for (const [index, step] of plan.steps.entries())
    quotes.push(await quoteStep(client, step, target.rows, blocked.has(index)));
  const trades = plan.steps.map((step) => ({
    market: step.market.toUpperCase(),
    notionalUsd: Math.abs(step.deltaUsd),
    // Each step's side is its target row's, read above.
    held: sideAfterOf(books[target.rows.findIndex((row) => row.line === step.line)]),
  }));
  return { plan, quotes, totals: planTotals(plan, quotes), source: target.sourceName, trades };
}

/** Thrown AFTER the plan is shown: every problem, in execution order (exit 3, nothing sent). */
export function planCheckError(ports: Pick<WritePorts, 'hedgeCommand'>, quoted: QuotedPlan) {
  const { problems } = quoted.plan;
  const source = safeText(quoted.source);
  const lines = problems.map(
    (problem) => `${source}:${problem.line}: ${safeText(describePlanProblem(problem))} (${problem.code})`,
  );
  return new PreTradeCheckError(
    'plan_check_failed',
    `The plan fails ${plural(problems.length, 'pre-trade check')}; nothing was sent.\n${listedProblems(lines)}`,
    // The problems as data for a script; text output says them as the lines of the message.
    { problems: problems.map(problemAsData) },
    `Lower the targets named above (see \`${ports.hedgeCommand('account')}\` and \`${ports.hedgeCommand('markets')}\` for headroom and capacity), then plan again.`,
  );
}

/** Thrown before anything is sent when a row's side holds hedges that are not the row's: naming them, and the option that adopts them. */
export function notThisRowsError(ports: Pick<WritePorts, 'hedgeCommand'>, quoted: QuotedPlan, opts: TargetPlanOptions) {
  const { notThisRows } = quoted.plan;
  const source = safeText(quoted.source);
  const lines = notThisRows.map((row) => `${source}:${row.line}: ${notThisRowWords(row)}`);
  const adopt = [...new Set([...(opts.adopt ?? []), ...notThisRows.flatMap((row) => adoptWords(row.hedges))])];
  return new PreTradeCheckError(
    'not_this_rows',
    `${plural(notThisRows.length, 'row')} of the target ${notThisRows.length === 1 ? 'names a side' : 'name sides'} holding hedges that are not ${notThisRows.length === 1 ? 'its' : 'theirs'}; nothing was sent.\n${listedProblems(lines)}`,
    { rows: notThisRows.map(({ line, market, side, hedges }) => ({ line, market, side, hedges })) },
    `To make them the rows' (closed, reduced or added to as the target says): \`${ports.hedgeCommand(...applyWords({ ...opts, adopt }))}\`; or give each row the hedge's reference in the target file.`,
  );
}

/** `hedge plan` and `apply --dry-run`: the plan built, quoted and (for an agent) admitted; nothing shown. */
export async function planTarget(ports: WritePorts, opts: TargetPlanOptions) {
  // The whole file is checked before anything is read from the server.
  const target = await readTargetFile(ports, opts.file, againWords('plan', opts));
  const client = await ports.client();
  const quoted = await buildTargetPlan(ports, client, target, opts);
  // apply's preview for an agent: its checks judge the plan it would carry out.
  await checkPlanRequests(ports, client, quoted);
  return quoted;
}

/** An agent's checks judge the plan whole: the requests its steps send, in order (its PlanCheck of a live write), and what it trades, step by step (its limits: the context's TradeGate). */
export async function checkPlanRequests(ports: WritePorts, client: HedgeClient, quoted: QuotedPlan) {
  if (ports.planCheck) {
    const { stepRecord } = await import('../trade/trade-actions.js');
    ports.planCheck.check(
      quoted.plan.steps.map((step, index) => {
        const { kind, request } = stepRecord(step, '', `step-${index + 1}`);
        return client.plan(kind, request, '');
      }),
      quoted.trades,
    );
  }
  await ports.tradeGate?.admit(quoted.trades, 'apply');
}
