// The declaration of `hedge exposures`: its arguments, options, tier and examples (the
// manifest collects it; exposures.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';

export const EXPOSURES = declare({
  name: 'exposures',
  group: 'automation',
  summary: 'Receivables and payables to a target book; cost, stress, report',
  description:
    'From an exposures file (receivables and payables by due date) and a hedge-ratio policy to the target book now, its schedule of changes, the projected cost to each due date and a stress table; sends no write',
  tier: 'read',
  args: [
    {
      name: 'file',
      required: true,
      description: 'the exposures file (CSV or JSON: id,market,type,amount,currency,due[,hedge_ratio]), or - for stdin',
    },
  ],
  options: [
    {
      flags: '--policy <file>',
      key: 'policy',
      kind: 'value',
      description: 'a policy file (JSON: ratios, band_pct, sizing, functional, netting); flags win over it',
    },
    {
      flags: '--ratios <buckets>',
      key: 'ratios',
      kind: 'value',
      description: 'hedge ratio by days to due, e.g. 30:100,90:75,*:50 (the default)',
    },
    {
      flags: '--band <pct>',
      key: 'band',
      kind: 'value',
      description: 're-size band, percent of the target (default 5)',
    },
    {
      flags: '--sizing <how>',
      key: 'sizing',
      kind: 'value',
      description: "USD sizing: current (today's price, the default) or fixed (the first cover's)",
      values: ['current', 'fixed'],
    },
    {
      flags: '--functional <currency>',
      key: 'functional',
      kind: 'value',
      description: "the currency your books are in: USD (default) or the market's quote currency, e.g. NGN",
    },
    {
      flags: '--no-netting',
      key: 'netting',
      kind: 'negatable',
      description: 'cover receivables and payables of a market apart (default: net them)',
    },
    {
      flags: '--fee-bps <bps>',
      key: 'feeBps',
      kind: 'value',
      description: 'the fee per notional traded, in basis points (default: one indicative quote per market)',
    },
    {
      flags: '--show <section>',
      key: 'show',
      kind: 'value',
      description:
        'one section: book (default in tsv/csv), exposures, schedule, cost, stress, policy; with --report coverage, cost, effectiveness',
      values: ['book', 'exposures', 'schedule', 'cost', 'stress', 'policy', 'coverage', 'effectiveness'],
    },
    {
      flags: '--report',
      key: 'report',
      kind: 'flag',
      description: 'how the book has covered them: coverage per week, cost to date, effectiveness (from history)',
    },
    {
      flags: '--html <file>',
      key: 'html',
      kind: 'value',
      description: 'with --report: also write a self-contained HTML report (charts) to this file',
    },
  ],
  examples: [
    // The sample files of a checkout (docs/examples/): every example runs as written from its root.
    'hedge exposures docs/examples/exposures.csv',
    'hedge exposures docs/examples/exposures.csv --functional NGN --no-netting',
    'hedge exposures docs/examples/exposures.csv --show cost --format csv',
    'hedge exposures docs/examples/exposures.json --json',
    'hedge exposures docs/examples/exposures.csv --report --html cover.html',
  ],
});
