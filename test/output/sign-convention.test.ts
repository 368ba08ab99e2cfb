// The one sign convention (docs/output.md "Sign convention"): a signed figure a person reads is from the
// account's side (+ money to it or a price in its favour, - against it) and always carries words —
// "you pay" / "you earn" for carry and fees, "better / worse than quoted" for slippage and impact.
// Also the pure rules behind add and reduce: the tenor an addition is quoted with, the price an
// addition implies, and the "already open" note.
import type { Quote } from '../../src/platform/api/schemas.js';
import {
  betterOrWorse,
  cents,
  impliedAdditionPrice,
  payOrEarn,
  payWords,
  priceFavourBps,
  toAccountSide,
  toCents,
} from '../../src/core/money.js';
import { additionQuoteTenor, daysUntil, sideAlreadyOpenNote } from '../../src/features/trade/pre-trade.js';
import { readHistoryRecord } from '../../src/platform/api/wire/fields.js';
import { REPORT_GROUPINGS } from '../../src/features/report/report-rules.js';
import { buildReport, renderReportHtml } from '../support/report.js';
import { csvText } from '../../src/platform/terminal/csv.js';
import { renderReportTable, reportTable, reportPlainTotals } from '../../src/features/report/report-view.js';
import { renderRollPreview } from '../../src/platform/results/roll-outcome.js';
import { planTotals } from '../../src/features/plan/target-plan.js';
import { makeChalk } from '../../src/platform/terminal/color.js';
import { NOW, output } from '../support/output/fake-output.js';
import type { Output } from '../../src/platform/terminal/output.js';
import { impactForAccount, renderQuoteCard } from '../../src/platform/results/quote-card.js';
import {
  renderAdditionQuote,
  renderHedge,
  renderPositionChange,
  slippageBps,
} from '../../src/platform/results/write-outcome.js';

/** What `render` printed on stdout and stderr for people (a table, 200 columns wide) or in JSON. */
function printed(render: (out: Output) => unknown, format: 'table' | 'json' = 'table') {
  const { out, stdout, stderr } = output(format, { columns: 200 });
  render(out);
  return [stdout(), stderr()];
}

const BUY_QUOTE: Quote = {
  market: 'USDTNGN',
  side: 'buy',
  notional_usd: 5_000,
  tenor_days: 3,
  maturity: '2026-03-05T10:00:00.000Z',
  pricing: { market_price: 1529.85, execution_price: 1530.5219, price_impact_usd: -2.2 },
  carry: { daily_usdc: 2.1, daily_rate_pct: 0.042, total_usdc: 6.3, total_rate_pct: 0.126 },
  upfront: { required_margin_usdc: 500, platform_fee_usdc: 2.5, total_upfront_usdc: 502.5 },
};

it('money words: turns the server sign of carry and fees (positive = the account pays) to the account side, and says who pays, now or once realized', () => {
  // 0 stays 0, never -0 (toEqual tells them apart).
  expect([4.19, -2.79, 0].map(toAccountSide)).toEqual([-4.19, 2.79, 0]);
  expect([
    payOrEarn(-4.19, { per: '/day' }),
    payOrEarn(2.79),
    payOrEarn(-12.5, { realized: true }),
    payOrEarn(0.5, { realized: true }),
    payOrEarn(-0.001),
    payWords(0),
  ]).toEqual([
    '-4.19 USDC/day, you pay',
    '+2.79 USDC, you earn',
    '-12.50 USDC, you paid',
    '+0.50 USDC, you earned',
    '0.00 USDC, nothing to pay',
    'nothing to pay',
  ]);
});

it('money: USD cents round half away from zero at the decimal the value was meant to have, for losses as for gains', () => {
  // 1.005 is 1.00499999… as a float and -0.005 a half cent below zero: a loss rounds away from zero like a gain.
  expect([-0.005, -1.005, 1.005, 0.004999, -2.675, 0.1 + 0.2].map(cents)).toEqual([-0.01, -1.01, 1.01, 0, -2.68, 0.3]);
  expect([-0.005, -1.005, 1.005, 0.004999].map(toCents)).toEqual([-1, -101, 101, 0]);
  // Under half a cent is 0, never -0 (toEqual tells them apart): a tiny loss prints without a sign.
  expect([-0.004999, -0].map(cents)).toEqual([0, 0]);
});

it('money words: a price is better for a buy when lower and for a sell when higher, in bps of the reference; slippage of a fill is signed the same way for both sides', () => {
  for (const [side, price, bps] of [
    ['buy', 1499.85, 1],
    ['buy', 1500.15, -1],
    ['sell', 1500.15, 1],
    ['sell', 1499.85, -1],
  ] as const)
    expect(priceFavourBps(side, price, 1500)).toBeCloseTo(bps, 10);
  expect([
    betterOrWorse(0.3, 'quoted', 'as quoted'),
    betterOrWorse(-0.3, 'the market price', 'none'),
    betterOrWorse(0, 'quoted', 'as quoted'),
  ]).toEqual(['better than quoted', 'worse than the market price', 'as quoted']);
  expect(slippageBps('buy', 1530.67, 1530.52)).toBeCloseTo(-0.98, 2);
  expect(slippageBps('sell', 1530.67, 1530.52)).toBeCloseTo(0.98, 2);
});

it('the quote card in that convention: earned carry is "+…, you earn"; a sell executing above the market price is better; a 1-day tenor reads "1 day"; the direction of impact comes from the two prices, the server sign only breaks a tie', () => {
  const card = quoteCard({
    ...BUY_QUOTE,
    side: 'sell',
    tenor_days: 1,
    pricing: { market_price: 1529.85, execution_price: 1530.5, price_impact_usd: 1.1 },
    carry: { daily_usdc: -1.2, daily_rate_pct: -0.024, total_usdc: -3.6, total_rate_pct: -0.072 },
  });
  for (const part of [
    '+1.10 USD (+2.2 bps), better than the market price',
    '+1.20 USDC/day (+0.0240%), you earn',
    'Carry over 1 day │ +3.60 USDC',
  ])
    expect(card).toContain(part);
  // A server that signs impact the other way round (positive = paid) still reads "worse" for this buy.
  expect(
    [
      { ...BUY_QUOTE, pricing: { ...BUY_QUOTE.pricing, price_impact_usd: 2.2 } },
      { ...BUY_QUOTE, pricing: { market_price: 1500, execution_price: 1500, price_impact_usd: 0.4 } },
    ].map((quote) => impactForAccount(quote).usd),
  ).toEqual([-2.2, 0.4]);
});

// Signed the same in TSV: test/trade/trading.test.ts (its open's slippage_bps).
it('results of open, add, reduce and close: open: slippage against the quote with words on a card', () => {
  const [card] = printed((out) =>
    renderHedge(
      out,
      {
        id: 'hdg_1',
        status: 'filled',
        market: 'USDTNGN',
        side: 'buy',
        notional_usd: 5000,
        tenor_days: 3,
        struck_rate: 1530.6749,
      },
      'Hedge filled',
      BUY_QUOTE,
    ),
  );
  expect(card).toMatch(/Slippage vs quote\s+│ -1\.0 bps, worse than quoted/);
});

it('results of open, add, reduce and close: add: the quote for the addition on a card (people) or one line on stderr (scripts), carry per day and to maturity', () => {
  const context = { maturityAt: '2026-03-04T10:00:00.000Z', daysLeft: 2, nowMs: Date.parse('2026-03-02T10:00:00Z') };
  const [card, notes] = printed((out) =>
    renderAdditionQuote(out, { quote: BUY_QUOTE, ...context, position: { notionalUsd: 10_000, entryPrice: 1530.1 } }),
  );
  for (const part of [
    'Adding 5,000.00 USD to USDTNGN buy (now 10,000.00 USD)',
    /Execution price\s+│ 1,530\.52 NGN per USDT \(position entry 1,530\.10\)/,
    /Required margin\s+│ 500\.00 USDC/,
    /Platform fee\s+│ -2\.50 USDC, you pay/,
    /Carry per day\s+│ -2\.10 USDC\/day, you pay/,
    /Carry to maturity \(est\.\)\s+│ -4\.20 USDC, you pay \(2d 0h left\)/,
    /Maturity \(unchanged\)\s+│ 2026-03-04 10:00:00 UTC \(in 2d 0h\)/,
  ])
    expect(card).toMatch(part);
  expect(notes).toBe('');
  expect(printed((out) => renderAdditionQuote(out, { quote: BUY_QUOTE, ...context }), 'json')).toEqual([
    '',
    'Quote for the addition (indicative): execution 1,530.52 NGN per USDT, margin 500.00 USDC, fee -2.50 USDC, you pay, carry -2.10 USDC/day, you pay.\n',
  ]);
});

// The notional and margin before → after, the balance's change and the share reduced, against the simulator's own
// figures, and the line scripts get on stderr: test/trade/trading-details.test.ts ("on a terminal-width table …",
// "a partial reduce …", "quotes the added notional …").
it('results of open, add, reduce and close: add: the entry before → after, and the price the entries imply against the quote', () => {
  const change = {
    action: 'add' as const,
    market: 'USDTNGN',
    side: 'buy' as const,
    notionalUsd: 5_000,
    before: { notionalUsd: 10_000, entryPrice: 1530, marginUsdc: 1000, hedgeId: 'hdg_1' },
    position: { notionalUsd: 15_000, entryPrice: 1530.2, marginUsdc: 1500, netMarginUsd: 1490.12, hedgeId: 'hdg_1' },
    quotedPrice: 1530.55,
  };
  const [card] = printed((out) => renderPositionChange(out, change));
  // (1530.2 × 15,000 − 1530 × 10,000) / 5,000 = 1530.6: 0.3 bps above the quote, worse for a buy.
  expect(impliedAdditionPrice(change.before, change.position)).toBeCloseTo(1530.6, 9);
  for (const part of [
    /Entry\s+│ 1,530\.00 → 1,530\.20 NGN per USDT/,
    /Added at \(implied\)\s+│ 1,530\.60 NGN per USDT, -0\.3 bps, worse than quoted \(quoted 1,530\.55\)/,
  ])
    expect(card).toMatch(part);
});

it('results of open, add, reduce and close: reduce: the reduced share of the figures before (proportional): entry unchanged, returned, realized and the carry in it', () => {
  const [card] = printed((out) =>
    renderPositionChange(out, {
      action: 'reduce',
      market: 'USDTNGN',
      side: 'sell',
      notionalUsd: 5_000,
      before: {
        notionalUsd: 20_000,
        entryPrice: 1530,
        marginUsdc: 2000,
        netMarginUsd: 2010,
        netPnlUsd: 16,
        accruedCarryUsdc: 4,
      },
      position: { notionalUsd: 15_000, entryPrice: 1530, marginUsdc: 1500 },
      balanceBeforeUsdc: 10_000,
      balanceAfterUsdc: 10_502.49,
    }),
  );
  for (const part of [
    /Entry\s+│ 1,530\.00 NGN per USDT \(unchanged\)/,
    /Returned \(est\.\)\s+│ \+502\.50 USD to your balance/,
    /Realized net P&L \(est\.\)\s+│ \+4\.00 USD/,
    /Carry in it \(est\.\)\s+│ -1\.00 USDC, you paid/,
  ])
    expect(card).toMatch(part);
});

it('add and open rules: an addition is quoted with the shortest tenor covering the time to maturity; the "already open" note names the position and the add command, and refuses nothing', () => {
  const inDays = (days: number) => new Date(NOW + days * 86_400_000).toISOString();
  expect([
    ...[0.5, 1, 2.9, 6.99, 9].map((days) => additionQuoteTenor(inDays(days), NOW)),
    additionQuoteTenor(undefined, NOW, 3),
    additionQuoteTenor(undefined, NOW, 5),
  ]).toEqual([1, 1, 3, 7, 7, 3, 1]);
  expect(daysUntil(inDays(2.5), NOW)).toBeCloseTo(2.5, 10);
  expect([daysUntil(inDays(-1), NOW), daysUntil('not a time', NOW)]).toEqual([0, undefined]);
  expect(
    sideAlreadyOpenNote(
      { market: 'USDTNGN', side: 'buy', notionalUsd: 10_000, hedgeId: 'hdg_7' },
      'hedge --demo add USDTNGN buy 5000',
    ),
  ).toBe(
    'Note: the buy side of USDTNGN is already open (10,000.00 USD, hedge hdg_7). To add to that hedge (same maturity): `hedge --demo add USDTNGN buy 5000`. ' +
      'Opening anyway asks the service for another hedge on the same side, which it may refuse.',
  );
});

describe("a report row's columns add up to its net P&L, in every grouping and format", () => {
  // Closed hedges as the server sends them: carry and fees positive when the account pays (carry
  // earned on some), net = gross - carry - fees on the server's side.
  const raw = Array.from({ length: 12 }, (_, index) => {
    const opened = Date.UTC(2026, 10, 1) + index * 3 * 86_400_000;
    const gross = ((index * 7919) % 4001) - 2000;
    const carry = index % 3 === 0 ? -((index * 31) % 97) - 1 : ((index * 53) % 211) + 1;
    const fees = ((index * 17) % 89) + 1;
    return {
      hedge_id: `hdg_${String(index).padStart(4, '0')}`,
      client_reference: index % 4 === 3 ? undefined : `DEAL-${index % 4}`,
      market: index % 5 === 0 ? 'USDTKES' : 'USDTNGN',
      side: index % 2 === 0 ? 'buy' : 'sell',
      tenor_days: [1, 3, 7][index % 3],
      notional_usd: 1000 + index * 250,
      entry_price: 1500 + index,
      exit_price: 1501 + index,
      opened_at: new Date(opened).toISOString(),
      closed_at: new Date(opened + 86_400_000).toISOString(),
      gross_pnl_usd: gross / 100,
      carry_usdc: carry / 100,
      fees_usdc: fees / 100,
      net_pnl_usd: (gross - carry - fees) / 100,
    };
  });
  /** A row's figures, in the order they add up: gross + carry + fees = net. */
  const FIGURES = 'gross_pnl_usd carry_pnl_usdc fees_pnl_usdc net_pnl_usd'.split(' ');
  const figuresOf = (record: any) => FIGURES.map((name) => record[name]);
  const cents = (text: string | number) => Math.round(Number(String(text).replace(/[,+\s]/g, '')) * 100);

  function columnsOf(lines: string[], where: string, separator: string) {
    const [header, ...rows] = lines.map((line) => line.split(separator));
    const at = FIGURES.map((name) => header.indexOf(name));
    expect(at, where).not.toContain(-1);
    return rows.map((row) => at.map((index) => row[index]));
  }

  it.each(REPORT_GROUPINGS)('--by %s: JSON, CSV, TSV, the table and the HTML', async (by) => {
    const facts = raw.map(readHistoryRecord);
    const report = buildReport(facts, [], { by });
    expect(report.groups.length).toBeGreaterThan(1);
    // JSON (and NDJSON, which a report prints as JSON) and the TSV's totals line: each group and the totals.
    const json = JSON.parse(JSON.stringify(report));
    const totals = Object.fromEntries(
      reportPlainTotals(report)
        .split('\t')
        .slice(1)
        .map((pair) => pair.split('=')),
    );
    expect([json.totals, totals].map((figures) => cents(figures.fees_pnl_usdc))).toEqual(
      Array(2).fill(-raw.reduce((sum, record) => sum + Math.round(record.fees_usdc * 100), 0)),
    );
    const csv = columnsOf(csvText(reportTable(report)).trimEnd().split('\n'), `csv ${by}`, ',');
    const tsv = columnsOf(output('tsv').out.cellsText(reportTable(report)).split('\n'), `tsv ${by}`, '\t');
    expect([csv.length, tsv.length]).toEqual([report.groups.length, report.groups.length]);

    // The table: each group's line and the totals' end in gross, carry, fees and net (the bar has no digits).
    const table = await renderReportTable(report, makeChalk(false), 250, Date.parse('2026-06-01T00:00:00Z'));
    const labels = [...report.groups.map((group) => group.label), 'Total'];
    const lines = table.split('\n').filter((line) => labels.includes(line.split(/\s{2,}/)[0]));
    expect(lines).toHaveLength(labels.length);

    // The HTML file: every row of figures, each closed hedge's and the totals'.
    const html = renderReportHtml(report, {
      account: 'desk',
      environment: 'test',
      generatedAt: '2026-12-01T00:00:00.000Z',
      records: facts,
    });
    const cells = [...html.matchAll(/<tr>(.*?)<\/tr>/g)]
      .map((row) => [...row[1].matchAll(/<t[dh] class="num[^"]*">([^<]*)<\/t[dh]>/g)].map((cell) => cell[1]))
      .filter((cells) => cells.length >= 5);
    expect(cells.length).toBeGreaterThan(raw.length);

    for (const [where, rows] of Object.entries({
      json: [...json.groups, json.totals].map(figuresOf),
      csv,
      tsv,
      'tsv totals': [figuresOf(totals)],
      table: lines.map((line) => line.match(/[+-]?[\d,]+\.\d\d/g)!.slice(-4)),
      html: cells.map((row) => row.slice(-4)),
    }))
      for (const [gross, carry, fees, net] of rows)
        expect(cents(gross) + cents(carry) + cents(fees), `${where} ${by}: ${gross} ${carry} ${fees} ${net}`).toBe(
          cents(net),
        );
  });
});

/** The roll card of a 5,000 USD buy side to 3 days, its closing hedge maturing at `maturityAt`. */
const rollCard = (maturityAt: string) =>
  printed((out) =>
    renderRollPreview(out, {
      preview: {
        market: 'USDTNGN',
        side: 'buy',
        notionalUsd: 5_000,
        tenorDays: 3,
        quote: BUY_QUOTE,
        closing: { netMarginUsd: 501.2, hedgeId: 'hdg_1', maturityAt },
      },
      nowMs: NOW,
    }),
  )[0];

it('the roll card in that convention: carry over the new tenor reads "-… USDC, you pay" like the quote card', () => {
  const card = rollCard('2026-03-02T12:00:00.000Z');
  expect(card).toMatch(/Carry over the tenor\s+│ -6\.30 USDC, you pay/);
});

it('the roll card: a maturity the server wrote unreadably is shown as sent, with no empty "()" where how far off it is would be', () => {
  const card = rollCard('soon');
  expect(card).toMatch(/ Matures\s+│ soon\s+│/);
  expect(card).not.toContain('()');
});

// Each step's fee and carry, and the plan's carry, on the account's side in CSV and on stderr:
// test/output/one-name-per-fact.test.ts ("plan: fee_pnl_usdc, carry_pnl_usdc …").
it("a plan in that convention: the plan's totals: its carry on the account's side; the fee and upfront what is put up", () => {
  // One open of 5,000 USD (planTotals reads each step's change).
  expect(planTotals({ steps: [{ deltaUsd: 5_000 }] } as never, [{ quote: BUY_QUOTE }])).toMatchObject({
    platform_fee_usdc: 2.5,
    total_upfront_usdc: 502.5,
    carry_pnl_usdc: -6.3,
  });
});

// The quote card in every mode: people get the card and the "indicative" line, scripts raw values. The
// card's every figure, as a desk reads it at 80 columns, is screens.test.ts's reviewed quote screen.
/** The quote's card for people (a table) or its row for scripts (TSV), coloured or not. */
const quoteCard = (quote: Quote, format: 'table' | 'tsv' = 'table', color = false) =>
  renderQuoteCard(output(format, { chalk: makeChalk(color) }).out, quote, NOW);

// In UTC, no local line: screens.test.ts's reviewed quote screens.
it('renderQuoteCard maturity: the local time on a line of its own only where the zone reads differently from UTC', () => {
  vi.stubEnv('TZ', 'Africa/Lagos');
  try {
    const inLagos = quoteCard(BUY_QUOTE);
    expect(inLagos).toContain('Maturity          │ 2026-03-05 10:00:00 UTC');
    expect(inLagos).toMatch(/│\s+│ 2026-03-05 11:00 GMT\+1 local, in 3d 0h/);
    // A maturity that is not a time is shown as sent (made safe), with nothing made up beside it.
    const unreadable = quoteCard({ ...BUY_QUOTE, maturity: 'next week' });
    expect(unreadable).toMatch(/Maturity {10}│ next week +│/);
  } finally {
    vi.unstubAllEnvs();
  }
});

it('renderQuoteCard what the server sent is escaped where the card is written: the market in the title, a maturity that is not a time, an extra field', () => {
  const hostile = {
    ...BUY_QUOTE,
    market: 'USDTNGN\u001b[2J',
    maturity: 'soon\u001b]0;pw\u0007',
    note: 'x\u202ey',
  } as Quote;
  const [written] = printed((out) => out.write(renderQuoteCard(out, hostile, NOW)));
  expect(written).not.toMatch(/[\u001b\u0007\u202e]/u);
  expect(written).toContain('Quote USDTNGN\\x1b[2J buy');
  expect(written).toMatch(/Maturity +│ soon\\x1b]0;pw\\x07 +│/);
});

it("renderQuoteCard shows fields it does not know, at the top level and inside the groups, on the card and plain; plain: a header row of keys, the quote's own first, and one row of the server's values, no card, no note on stdout; colours impact and carry when colour is on", () => {
  const richer = { ...BUY_QUOTE, quote_id: 'q_1', pricing: { ...BUY_QUOTE.pricing, spread_bps: 3 } } as Quote;
  const card = quoteCard(richer);
  expect(card).toMatch(/Quote ID\s+│ q_1/);
  expect(card).toMatch(/Pricing: Spread bps\s+│ 3/);
  const [header, row, ...rest] = quoteCard(richer, 'tsv').split('\n');
  const plain = Object.fromEntries(header.split('\t').map((key, index) => [key, row.split('\t')[index]]));
  expect(plain).toMatchObject({ 'pricing.spread_bps': '3', quote_id: 'q_1' });
  expect([rest, header.split('\t').slice(0, 5), row]).toEqual([
    [],
    'market side notional_usd tenor_days pricing.market_price'.split(' '),
    expect.not.stringMatching(/reserves nothing|│/),
  ]);
  expect(quoteCard(BUY_QUOTE, 'table', true)).toContain(
    '\u001b[31m-2.20 USD (-4.4 bps), worse than the market price\u001b[39m',
  );
});
