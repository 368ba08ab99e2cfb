// `hedge open` on a terminal without all its arguments: each choice shown with the numbers it depends on, answers
// given on the command line not asked again; Ctrl-C ends with exit 130, a No with exit 8, nothing sent.
import type { HedgeClient } from '../../../platform/api/client.js';
import type { Market } from '../../../platform/api/schemas.js';
import { DAY_MS, SIDES, TENORS, type Side, type Tenor } from '../../../core/vocabulary.js';
import {
  type CommandContext,
  DeclinedError,
  messageOf,
  parseClientReference,
  parseNotional,
  PreTradeCheckError,
  safeText,
} from '../command-input.js';
import { findMarket, pairOf, sideCovering, sideCovers, sideGains } from '../../../core/markets.js';
import { marketProblem, notionalProblem } from '../../../features/trade/pre-trade.js';
import { days } from '../../../features/trade/trade-actions.js';
import { formatPercent, formatUtc } from '../../../platform/terminal/format.js';
import { formatMoney, formatUsd } from '../../../core/number-format.js';
import { payWords, toAccountSide } from '../../../core/money.js';
import { SideViews } from '../../../features/book/side-book.js';
import { sideHolds } from '../../../features/book/book.js';
import { Output } from '../../../platform/terminal/output.js';
import { terminalColumns } from '../../../platform/terminal/terminal.js';
import { CARD_DRAWERS } from '../../../platform/results/cards.js';
import { displayWidth, wrapWords } from '../../../platform/terminal/width.js';
import { loadTableDrawer } from '../../../platform/terminal/table.js';
import type { Prompter } from '../../../platform/terminal/prompter.js';

/** What this command uses of its context. */
type Options = Pick<CommandContext, 'clock' | 'env' | 'io' | 'log' | 'output' | 'prompter' | 'signal'>;

/** A side's capacity and its daily carry rate on the account's side (docs/output.md "Sign convention"): "-0.0384%/day, you pay". */
function sideSummary(market: Market, side: Side) {
  const carry = toAccountSide(market.net_rate_daily_pct[side]);
  const rate = carry === 0 ? `${formatPercent(0)}/day` : `${formatPercent(carry)}/day, ${payWords(carry)}`;
  return `capacity ${formatMoney(market.available_capacity_usd[side])} USD, carry ${rate}`;
}

/**
 * A market as one line when the terminal is wide enough; else its name and price, with both sides'
 * figures as the highlighted choice's description (wrapped), so nothing is cut mid-word.
 */
function marketChoice(market: Market, room: number) {
  const head = `${market.market}  ${formatMoney(market.price)}`;
  const full = `${head}  │ buy: ${sideSummary(market, 'buy')} │ sell: ${sideSummary(market, 'sell')}`;
  if (displayWidth(full) <= room) return { name: full };
  // Both sides' figures, and their wrapped lines, start in one column, past `sell: `.
  const sides = SIDES.map((side) =>
    wrapWords(`${`${side}:`.padEnd(6)}${sideSummary(market, side)}`, room, { hangingIndent: 6 }),
  ).join('\n');
  return { name: head, description: sides };
}

/**
 * "What do you have?": a payable or a receivable in each open market's quote currency (books in USD: a receivable is
 * covered by buy, a payable by sell, docs/exposures.md), or "I know the side" (undefined: the market and side asked as
 * before). Not asked when no market given or listed is open: the market step says why.
 */
async function askWhatYouHave(prompter: Prompter, markets: readonly Market[], givenMarket: string | undefined) {
  const candidates = givenMarket
    ? markets.filter((entry) => entry.market.toUpperCase() === givenMarket.toUpperCase())
    : markets.filter((entry) => entry.status === 'open');
  const choices = candidates.flatMap((market) => {
    const pair = pairOf(market.market, market);
    if (!pair) return [];
    // A currency two markets quote is named with its market.
    const where = candidates.filter((other) => pairOf(other.market, other)?.quote === pair.quote).length > 1;
    return (['receivable', 'payable'] as const).map((kind) => {
      const side = sideCovering(kind);
      const paid = kind === 'receivable' ? 'you will be paid' : 'you will pay';
      return {
        name: `A ${kind} in ${pair.quote}${where ? ` (${market.market})` : ''}: money ${paid} in ${pair.quote}`,
        short: `${pair.quote} ${kind}`,
        value: { market, side },
        description: `${sideCovers(side, pair)}: ${sideGains(side, pair)}`,
      };
    });
  });
  if (!choices.length) return;
  const known = { name: 'I know the side (buy or sell)', short: 'I know the side', value: undefined };
  return prompter.select<{ market: Market; side: Side } | undefined>({
    message: 'What do you have?',
    choices: [...choices, known],
  });
}

/** A market chosen among the open ones, each shown with both sides' figures. */
function askMarket(prompter: Prompter, markets: Market[], columns: number) {
  const open = markets.filter((entry) => entry.status === 'open');
  if (!open.length) {
    const listed = markets.map((entry) => `${entry.market} (${entry.status})`).join(', ') || 'none';
    throw new PreTradeCheckError(
      'market_disabled',
      `No market is open for trading right now (listed: ${listed}).`,
      {},
      'Try again later; `hedge markets` shows their status.',
    );
  }
  return prompter.select({
    message: 'Market',
    // Room for a choice's text: the terminal's width less the prompt's pointer and a margin.
    choices: open.map((entry) => ({
      ...marketChoice(entry, Math.max(20, columns - 4)),
      short: entry.market,
      value: entry,
    })),
  });
}

/**
 * The side given (`fixed`), named by the answer, or chosen, and whether to add to what it holds. A side that is open is offered
 * as "add to it" (or the other side), never as an open the service may refuse; what the side holds is in the question
 * itself, so it is on screen when answered.
 */
async function chooseSide(
  prompter: Prompter,
  market: Market,
  views: SideViews | void,
  readViews: () => Promise<SideViews | void>,
  fixed?: Side,
  named?: Side,
) {
  const known = market.available_capacity_usd !== undefined;
  // What a side holds, as the side model says it from every view the wizard read (one read, side-book.ts): a figure only
  // when held; a side settling or that cannot be told is not known, never one view's figure.
  const holding = async (side: Side) => {
    const holds = views && sideHolds(await views.book(market.market, side));
    if (!holds || holds.holds === 'flat') return;
    return holds.holds === 'held'
      ? { size: formatUsd(holds.notionalUsd), hedgeId: holds.ids.join(', ') }
      : { notKnown: safeText(holds.why) };
  };
  const held = { buy: await holding('buy'), sell: await holding('sell') };
  // Under the highlighted side: which way it gains, from the market's own pair.
  const pair = pairOf(market.market, market);
  let side =
    fixed ??
    named ??
    (await prompter.select({
      message: 'Side',
      choices: SIDES.map((value) => {
        const open = held[value];
        const mark = open ? ` — already open: ${open.size ?? 'holding not known'}` : '';
        // The prompter wraps a line too long for the terminal at its spaces (nothing is cut off).
        return {
          name: `${known ? `${value.padEnd(4)}  ${sideSummary(market, value)}` : value}${mark}`,
          // Its wrapped lines start under its figures, past the side's name.
          indent: known ? 6 : 0,
          short: value,
          value,
          ...(pair && { description: sideGains(value, pair) }),
        };
      }),
    }));
  // A side that holds a hedge: added to, or the other side, or nothing. One whose holding is not known is never added
  // to (hedge cannot tell what an add would make of it): read again, until it is known, or left.
  for (let open = held[side]; open; open = held[side]) {
    const other = side === 'buy' ? 'sell' : 'buy';
    const choice = await prompter.select({
      message: `The ${side} side of ${market.market} ${open.hedgeId === undefined ? `is not flat, and what it holds is not known: ${open.notKnown}` : `already holds ${open.size} (${safeText(open.hedgeId)})`}. What now?`,
      choices: [
        open.hedgeId === undefined
          ? {
              name: 'Read the side again (hedge adds only to a side it can read)',
              short: 'read again',
              value: 'again' as const,
            }
          : { name: `Add to it (same maturity as the hedge it holds)`, short: 'add to it', value: 'add' as const },
        ...(held[other] || fixed
          ? []
          : [{ name: `Open on the ${other} side instead`, short: `${other} side`, value: 'other' as const }]),
        { name: 'Cancel (nothing is sent)', short: 'cancel', value: 'cancel' as const },
      ],
    });
    if (choice === 'cancel') throw new DeclinedError('Nothing was sent.');
    if (choice === 'again') {
      views = await readViews();
      for (const value of SIDES) held[value] = await holding(value);
    } else if (choice === 'other') side = other;
    else return { side, adding: true };
  }
  return { side, adding: false };
}

/** A typed answer is read as the command line's would be; the prompt shows why one is refused and asks again. */
const ask = async <T>(prompter: Prompter, message: string, read: (raw: string) => T) =>
  read(
    await prompter.input({
      message,
      validate: (raw) => {
        try {
          read(raw);
          return true;
        } catch (error) {
          return messageOf(error);
        }
      },
    }),
  );

/** The tenor, each shown with about when it would mature. */
function askTenor(prompter: Prompter, now: number) {
  return prompter.select({
    message: 'Tenor',
    choices: TENORS.map((tenor) => ({
      name: `${tenor} day${tenor === 1 ? ' ' : 's'}  matures about ${formatUtc(new Date(now + tenor * DAY_MS).toISOString())}`,
      short: days(tenor),
      value: tenor,
    })),
  });
}

/** Where the quote card is drawn: for the person at the prompt, so beside a script's format (--json, TSV, CSV) on stderr, stdout keeps the data. */
async function cardOutput(ctx: Options) {
  if (ctx.output.isHuman) return ctx.output;
  await loadTableDrawer();
  return new Output({
    chalk: ctx.output.chalk,
    streams: { stdout: ctx.io.stderr, stderr: ctx.io.stderr },
    now: ctx.clock.now,
    columns: terminalColumns(ctx.io.stderr, ctx.io.stderrIsTTY, ctx.env),
  });
}

/** The answers given on the command line: not asked again. */
type Given = { market?: string; side?: Side; notionalUsd?: number; tenorDays?: Tenor; clientReference?: string };

export async function runOpenWizard(ctx: Options, client: HedgeClient, given: Given, skipChecks: boolean) {
  const prompter = await ctx.prompter();
  // The markets, the account, and what each side holds. The book marks the sides already open — a
  // side open in any view (a filled hedge on its record, a positions line, a hedge being opened), so an
  // open the server may refuse is never offered as the way forward; without it the wizard still works, unmarked.
  const readViews = () =>
    SideViews.read(client, ctx.log).catch((error: unknown) => {
      if (ctx.signal.aborted) throw error;
      ctx.log(`positions and hedges: not read for the wizard (${messageOf(error)})`);
    });
  const [{ markets }, account, views] = await Promise.all([client.listMarkets(), client.getAccount(), readViews()]);
  // The first question, when no side was given: what the user has, in their terms; the side (and the market) follow.
  const has = given.side ? undefined : await askWhatYouHave(prompter, markets, given.market);
  // The market given (checked unless --skip-checks), else the one the answer named, else one chosen among the open ones.
  const problem = given.market && !skipChecks && marketProblem(markets, given.market);
  if (problem) throw problem;
  const market = given.market
    ? (findMarket(markets, given.market) ?? ({ market: given.market } as Market))
    : (has?.market ?? (await askMarket(prompter, markets, ctx.output.columns)));
  const { side, adding } = await chooseSide(prompter, market, views, readViews, given.side, has?.side);
  // The notional given (checked against the side's capacity and the account's headroom), else asked and checked as it is typed.
  const known = market.available_capacity_usd !== undefined;
  const checked = (notionalUsd: number) => {
    const refused =
      !skipChecks && known && notionalProblem(market, account, { side, notionalUsd, action: adding ? 'add' : 'open' });
    if (refused) throw refused;
    return notionalUsd;
  };
  // The largest notional the checks allow on this side (both the side capacity and the account headroom).
  const ceiling = known
    ? ` (at most ${formatMoney(Math.min(market.available_capacity_usd[side], account.available_exposure_usd))})`
    : '';
  const notionalUsd = checked(
    given.notionalUsd ?? (await ask(prompter, `Notional in USD${ceiling}`, (raw) => checked(parseNotional(raw)))),
  );
  // An add keeps the hedge's maturity and reference: no tenor, no reference to ask.
  // The side chosen already holds a hedge, and the operator chose to add to it (the add quotes and confirms itself).
  if (adding) return { kind: 'add' as const, market: market.market, side, notionalUsd };
  const tenorDays = given.tenorDays ?? (await askTenor(prompter, ctx.clock.now()));
  // An optional reference, given or typed: Enter skips it.
  const clientReference =
    given.clientReference ??
    (await ask(prompter, 'Client reference (optional, Enter to skip)', (raw) =>
      raw.trim() ? parseClientReference(raw) : undefined,
    ));
  const quote = await client.createQuote({
    market: market.market,
    side,
    notional_usd: notionalUsd,
    tenor_days: tenorDays,
  });
  // Drawn as the open's own quote is, by the one card table (a card on a screen).
  CARD_DRAWERS['open-quote'](await cardOutput(ctx), { quote, nowMs: ctx.clock.now() });
  // Asked by the write flow, under the side's lock: a yes holds for the side as the wizard showed it.
  const question = `Open ${side} ${formatMoney(notionalUsd)} USD on ${market.market} for ${days(tenorDays)}${clientReference ? ` (ref ${clientReference})` : ''}, ${formatMoney(quote.upfront.total_upfront_usdc)} USDC upfront?`;
  return {
    kind: 'open' as const,
    market: market.market,
    side,
    notionalUsd,
    tenorDays,
    clientReference,
    quote,
    question,
  };
}
