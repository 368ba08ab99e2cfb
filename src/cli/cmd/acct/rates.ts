// `hedge acct rates FILE --market M --quote "Q per B"`: a market's dated rates imported; `--record`: today's mid price
// read from the API (GET /prices, a read) and recorded with its source.
import {
  type CommandContext,
  type In,
  InvalidResponseError,
  parseMarket,
  safeText,
  UsageError,
} from '../command-input.js';
import { inputFileProblems, readInputFile, type InputPorts } from '../../../features/write/input-file.js';
import { FIX_ROWS, parseRatesFile, rateProblem } from '../../../features/acct/acct-files.js';
import {
  booksToday,
  marketPair,
  nearServerPrice,
  parseQuote,
  ratesOf,
  readState,
  recordRates,
  serverOf,
} from '../../../features/acct/acct.js';
import { recordsElsewhere } from '../../../features/acct/acct-store.js';
import { heldNote } from '../../../features/acct/acct-approval.js';
import { RATE_FIELDS } from '../../../features/acct/acct-view.js';
import { exact, exactNumber, exactText } from '../../../features/acct/acct-money.js';
import { readBook } from '../../../features/book/positions.js';
import { toAccountSide } from '../../../core/money.js';
import { plural } from '../../../core/number-format.js';
import { utcDay, utcIso } from '../../../core/utc-text.js';
import { requireListedMarket } from '../../../features/book/markets.js';

/** What this command uses of its context. */
export type Options = InputPorts &
  Pick<CommandContext, 'client' | 'credentials' | 'env' | 'journal' | 'journalChoice' | 'output'>;

export async function run(ctx: Options, { args, options }: In<'ACCT_RATES'>) {
  const market = parseMarket(options.market);
  if (options.correct && (options.record || args.file === undefined || !options.reason?.trim()))
    throw new UsageError(
      '--correct: corrects the rates of a FILE, and needs its --reason ("the bank restated its fixing").',
    );
  if (options.reason !== undefined && !options.correct) throw new UsageError('--reason: goes with --correct only.');
  if (options.record && args.file !== undefined)
    throw new UsageError("--record: reads today's rate from the API; give it without a FILE.");
  if (options.record && options.quote !== undefined)
    throw new UsageError(
      "--quote: goes with a FILE; --record records the server's price the way the server quotes it.",
    );
  if (!options.record && args.file === undefined) return listRates(ctx, market);
  let rows: Array<Record<string, string>>;
  let quote: string;
  if (options.record) {
    const client = await ctx.client();
    const pair = marketPair(market, await requireListedMarket(client, market));
    if (!pair)
      throw new UsageError(
        `--record: the markets list does not say which way ${market}'s price reads; import its rates from a FILE with --quote.`,
      );
    quote = `${pair.quote} per ${pair.base}`;
    const { quotes, problem } = await client.readPrices([market]);
    if (problem) throw problem;
    const at = client.transport.serverNow().bestMs;
    const iso = utcIso(at);
    // The carry each open hedge of the market has accrued now: what values a desk hedge open across this day.
    const carry = Object.fromEntries(
      (await readBook(client))
        .filter((line) => line.market === market && line.hedgeId !== undefined)
        .map((line) => [line.hedgeId!, exactText(exactNumber(toAccountSide(line.accruedCarryUsdc ?? 0)))]),
    );
    const credentials = await ctx.credentials();
    // The server's number read as the digits it prints, exactly; one that cannot be a rate is a reading problem.
    const price = String(quotes[0].price);
    const unfit = rateProblem('spot', price);
    if (unfit)
      throw new InvalidResponseError(
        `GET /prices answered a price for ${market} that cannot be a rate (${unfit}); nothing was recorded.`,
        { endpoint: 'GET /prices', status: 200, field: 'price', received: safeText(price) },
      );
    rows = [
      {
        date: utcDay(at),
        spot: exactText(exact(price)!),
        forward: '',
        discount_factor: '',
        source: `mid price, GET /prices at ${credentials.baseUrl} (${iso})`,
        at: iso,
        carry: carry as never,
      },
    ];
  } else {
    quote = parseQuote(options.quote);
    const { text, sourceName } = await readInputFile(ctx, args.file!, 'rates file');
    const read = parseRatesFile(text, sourceName, market);
    if ('problems' in read) throw inputFileProblems(sourceName, read.problems, FIX_ROWS);
    const client = await serverOf(ctx);
    if (client) await nearServerPrice(client, market, quote, read.rows, sourceName);
    // Corrections, not guesses: a rate is recorded for a day that has come (a wrong one is corrected, never replaced).
    const today = await booksToday(ctx);
    const future = read.rows.find((row) => row.date > today);
    if (future)
      throw new UsageError(
        `${sourceName}: date: ${future.date} is after today (${today}); a rate is recorded for a day that has come.`,
      );
    rows = read.rows.map((row) => ({
      date: row.date,
      spot: row.spot,
      forward: row.forward ?? '',
      discount_factor: row.discount_factor ?? '',
      source: row.source,
    }));
  }
  const { added, held } = await recordRates(ctx, market, quote, rows, {
    correct: options.correct ? options.reason!.trim() : undefined,
    record: options.record,
    by: options.by,
  });
  ctx.output.document({ market, quote, recorded: added, rates: rows, pending_approval: held }, () =>
    ctx.output.note(
      `${market} (${quote}): ${plural(added, 'rate')} ${options.correct ? 'corrected' : 'recorded'}${added < rows.length ? `, ${rows.length - added} already there` : ''}.${held.length ? ` ${heldNote(held)}` : ''}`,
    ),
  );
}

/** What is recorded of a market: a row a date, with its source. */
async function listRates(ctx: Options, market: string) {
  const state = await readState(ctx, ratesOf(market));
  const rates = state.rates.get(market);
  const rows = [...(rates?.rows.values() ?? [])]
    .sort((a, b) => a.date.localeCompare(b.date))
    .map((row) => ({
      date: row.date,
      spot: exactText(row.spot),
      forward: row.forward ? exactText(row.forward) : null,
      discount_factor: row.discountFactor ? exactText(row.discountFactor) : null,
      source: row.source,
      at: row.at ?? null,
    }));
  return ctx.output.list(rows, RATE_FIELDS, {
    empty: `No rate of ${market} is recorded; import them (hedge acct rates FILE --market ${market} --quote "…") or record today's (hedge acct rates --record --market ${market}).${rows.length || (await readState(ctx, 'all')).rates.size || state.relationships.size ? '' : await recordsElsewhere(ctx)}`,
  });
}
