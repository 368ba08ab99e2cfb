// The quote card every mode: people get the card and the "indicative" line, scripts raw values. The
// card's every figure, as a desk reads it at 80 columns, is screens.test.ts's reviewed quote screen.
import { describe, expect, it } from 'vitest';
import type { Quote } from '../../src/platform/api/schemas.js';
import { makeChalk } from '../../src/platform/terminal/color.js';
import { impactBps, renderQuoteCard } from '../../src/platform/results/quote-card.js';
import { NOW, output as fakeOutput } from '../support/output/fake-output.js';

/** An Output for people (a table) or scripts (TSV), coloured or not. */
const output = (format: 'table' | 'tsv', color = false) => fakeOutput(format, { chalk: makeChalk(color) }).out;

const QUOTE: Quote = {
  market: 'USDTNGN',
  side: 'buy',
  notional_usd: 10_000,
  tenor_days: 3,
  maturity: '2026-03-05T10:00:00.000Z',
  pricing: { market_price: 1529.85, execution_price: 1530.5219, price_impact_usd: -4.4 },
  carry: { daily_usdc: 4.19, daily_rate_pct: 0.0419, total_usdc: 12.57, total_rate_pct: 0.1257 },
  upfront: { required_margin_usdc: 1000, platform_fee_usdc: 5, total_upfront_usdc: 1005 },
};

describe('renderQuoteCard', () => {
  it('maturity: the local time on a line of its own only where the zone reads differently from UTC', () => {
    const savedZone = process.env.TZ;
    try {
      process.env.TZ = 'UTC';
      const inUtc = renderQuoteCard(output('table'), QUOTE, NOW);
      expect(inUtc).toContain('Maturity          │ 2026-03-05 10:00:00 UTC, in 3d 0h');
      expect(inUtc).not.toContain(' local');
      process.env.TZ = 'Africa/Lagos';
      const inLagos = renderQuoteCard(output('table'), QUOTE, NOW);
      expect(inLagos).toContain('Maturity          │ 2026-03-05 10:00:00 UTC');
      expect(inLagos).toMatch(/│\s+│ 2026-03-05 11:00 GMT\+1 local, in 3d 0h/);
      // A maturity that is not a time is shown as sent (made safe), with nothing made up beside it.
      const unreadable = renderQuoteCard(output('table'), { ...QUOTE, maturity: 'next week' }, NOW);
      expect(unreadable).toMatch(/Maturity {10}│ next week +│/);
    } finally {
      if (savedZone === undefined) delete process.env.TZ;
      else process.env.TZ = savedZone;
    }
  });

  it('what the server sent is escaped where the card is written: the market in the title, a maturity that is not a time, an extra field', () => {
    const { out: terminal, stdout } = fakeOutput('table');
    const hostile = {
      ...QUOTE,
      market: 'USDTNGN\u001b[2J',
      maturity: 'soon\u001b]0;pw\u0007',
      note: 'x\u202ey',
    } as Quote;
    terminal.write(renderQuoteCard(terminal, hostile, NOW));
    const written = stdout();
    expect(written).not.toMatch(/[\u001b\u0007\u202e]/u);
    expect(written).toContain('Quote USDTNGN\\x1b[2J buy');
    expect(written).toMatch(/Maturity +│ soon\\x1b]0;pw\\x07 +│/);
  });

  it('shows fields it does not know, at the top level and inside the groups', () => {
    const richer = { ...QUOTE, quote_id: 'q_1', pricing: { ...QUOTE.pricing, spread_bps: 3 } } as Quote;
    const card = renderQuoteCard(output('table'), richer, NOW);
    expect(card).toMatch(/Quote ID\s+│ q_1/);
    expect(card).toMatch(/Pricing: Spread bps\s+│ 3/);
    const [header, row] = renderQuoteCard(output('tsv'), richer, NOW).split('\n');
    const plain = Object.fromEntries(header.split('\t').map((key, index) => [key, row.split('\t')[index]]));
    expect(plain).toMatchObject({ 'pricing.spread_bps': '3', quote_id: 'q_1' });
  });

  it('colours impact and carry when colour is on', () => {
    const card = renderQuoteCard(output('table', true), QUOTE, NOW);
    expect(card).toContain('\u001b[31m-4.40 USD (-4.4 bps), worse than the market price\u001b[39m');
  });

  it("plain: a header row of keys, the quote's own first, and one row of the server's values; no card, no note on stdout", () => {
    const [header, row, ...rest] = renderQuoteCard(output('tsv'), QUOTE, NOW).split('\n');
    expect([rest, header.split('\t').slice(0, 5), row]).toEqual([
      [],
      'market side notional_usd tenor_days pricing.market_price'.split(' '),
      expect.not.stringMatching(/reserves nothing|│/),
    ]);
  });

  it('impact in bps is signed like the USD impact', () => {
    expect(impactBps(QUOTE)).toBeCloseTo(-4.4, 10);
    expect(impactBps({ ...QUOTE, pricing: { ...QUOTE.pricing, price_impact_usd: 2 } })).toBeCloseTo(2, 10);
  });
});
