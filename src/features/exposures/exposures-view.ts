// How `hedge exposures FILE` reads: one table per section on a terminal, one JSON document, or one
// section's rows (--show, default the book) in TSV, CSV and NDJSON. Renders only.
import { describePolicy, policyAsData } from './exposure-policy.js';
import type { ExposuresView } from './exposures-rules.js';
import type { FieldSpec } from '../../platform/fields/fields.js';
import { formatMoney } from '../../platform/terminal/format.js';
import type { Output } from '../../platform/terminal/output.js';
import type { Resource } from '../../platform/fields/resource-fields.js';
import { utcMinute } from '../../core/utc-text.js';

export const EXPOSURE_SECTIONS = ['book', 'exposures', 'schedule', 'cost', 'stress', 'policy'] as const;
export type ExposureSection = (typeof EXPOSURE_SECTIONS)[number];

const market: FieldSpec = { key: 'market', label: 'Market' };
const side: FieldSpec = { key: 'side', label: 'Side', kind: 'side' };
const usd = (key: string, label: string): FieldSpec => ({ key, label, unit: 'USD', kind: 'money' });
const pnl = (key: string, label: string): FieldSpec => ({ key, label, unit: 'USD', kind: 'pnl' });

const fieldsOnly = (fields: FieldSpec[], priority?: string[]): Resource => ({
  fields,
  priority: priority ?? fields.map((field) => field.key),
});

export const EXPOSURE_LINE_RESOURCE = fieldsOnly(
  [
    { key: 'id', label: 'ID', kind: 'text' },
    market,
    { key: 'type', label: 'Type' },
    { key: 'amount', label: 'Amount', kind: 'money' },
    { key: 'currency', label: 'Ccy' },
    { key: 'due', label: 'Due', kind: 'utc' },
    { key: 'days_to_due', label: 'Days', kind: 'count' },
    { key: 'bucket', label: 'Bucket' },
    { key: 'ratio', label: 'Ratio', kind: 'count' },
    { key: 'cover_side', label: 'Cover', kind: 'side' },
    usd('exposure_usd', 'Exposure'),
    usd('hedge_usd', 'Hedge'),
    { key: 'sizing_price', label: 'Sized at', unit: 'rate', kind: 'rate' },
  ],
  [
    'id',
    'cover_side',
    'hedge_usd',
    'due',
    'amount',
    'currency',
    'type',
    'bucket',
    'ratio',
    'exposure_usd',
    'market',
    'days_to_due',
    'sizing_price',
  ],
);

export const BOOK_RESOURCE = fieldsOnly(
  [
    market,
    side,
    usd('target_usd', 'Target'),
    usd('band_low_usd', 'Band low'),
    usd('band_high_usd', 'Band high'),
    { key: 'tenor_days', label: 'Tenor', unit: 'days', kind: 'count' },
    { key: 'until', label: 'Until', kind: 'utc' },
    // Lists of ids and reasons wrap at their spaces in a narrow table, never cut inside an id or a word.
    {
      key: 'exposures',
      label: 'Covers',
      kind: 'text',
      wrap: true,
      get: (row) => (Array.isArray(row.exposures) ? row.exposures.join(' ') : row.exposures),
    },
  ],
  ['side', 'target_usd', 'market', 'band_low_usd', 'band_high_usd', 'tenor_days', 'until', 'exposures'],
);

export const SCHEDULE_RESOURCE = fieldsOnly(
  [
    { key: 'at', label: 'At', kind: 'utc' },
    market,
    side,
    usd('from_usd', 'From'),
    usd('to_usd', 'To'),
    pnl('change_usd', 'Change'),
    { key: 'reason', label: 'Why', kind: 'text', wrap: true },
  ],
  ['at', 'side', 'to_usd', 'change_usd', 'reason', 'from_usd', 'market'],
);

export const COST_RESOURCE = fieldsOnly(
  [
    { key: 'due', label: 'Due', kind: 'utc' },
    market,
    { key: 'exposures', label: 'Due then', kind: 'text', wrap: true },
    { key: 'carry_usdc', label: 'Carry', unit: 'USDC', kind: 'pnl' },
    { key: 'fees_usdc', label: 'Fees', unit: 'USDC', kind: 'pnl' },
    { key: 'rolls', label: 'Rolls', kind: 'count' },
    { key: 'cost_usdc', label: 'Cost', unit: 'USDC', kind: 'pnl' },
  ],
  ['due', 'cost_usdc', 'exposures', 'carry_usdc', 'fees_usdc', 'rolls', 'market'],
);

export const STRESS_RESOURCE = fieldsOnly(
  [
    market,
    { key: 'shock_pct', label: 'Shock %', kind: 'count' },
    { key: 'price', label: 'Price', unit: 'rate', kind: 'rate' },
    pnl('exposure_change_usd', 'Exposure'),
    pnl('cover_pnl_usd', 'Cover P&L'),
    pnl('net_usd', 'Net'),
  ],
  ['shock_pct', 'net_usd', 'exposure_change_usd', 'cover_pnl_usd', 'price', 'market'],
);

const POLICY_RESOURCE = fieldsOnly([
  { key: 'within_days', label: 'Within days', kind: 'count' },
  { key: 'ratio_pct', label: 'Ratio %', kind: 'count' },
]);

/** The sections as data: what JSON shows, and each section's rows for TSV/CSV/NDJSON. */
function exposuresAsData(view: ExposuresView): Record<string, unknown> {
  return {
    as_of: view.asOf,
    source: view.source,
    policy: policyAsData(view.policy),
    prices: view.prices,
    fees: Object.fromEntries(
      Object.entries(view.fees).map(([name, fee]) => [
        name,
        { rate_bps: fee.rate === null ? null : Math.round(fee.rate * 1e6) / 100, from: fee.from },
      ]),
    ),
    ...(view.availableExposureUsd === undefined ? {} : { available_exposure_usd: view.availableExposureUsd }),
    exposures: view.exposures,
    book: view.book,
    schedule: view.schedule,
    cost: view.cost,
    stress: view.stress,
  };
}

const SECTIONS: Record<ExposureSection, { resource: Resource; title: string; empty: string }> = {
  exposures: {
    resource: EXPOSURE_LINE_RESOURCE,
    title: 'Exposures as the policy sees them now',
    empty: 'No exposures.',
  },
  book: {
    resource: BOOK_RESOURCE,
    title: 'Target book now (hold each side within its band)',
    empty: 'Nothing to hold.',
  },
  schedule: {
    resource: SCHEDULE_RESOURCE,
    title: "Schedule of changes (at today's price)",
    empty: 'No change ahead: every exposure is due.',
  },
  cost: {
    resource: COST_RESOURCE,
    title: "Projected cost to each due date (today's carry and fees, rolls included)",
    empty: 'Nothing to hold, so no cost.',
  },
  stress: { resource: STRESS_RESOURCE, title: 'Stress: the price moves now by …', empty: 'No price to stress.' },
  policy: { resource: POLICY_RESOURCE, title: 'Hedge ratio by time to due', empty: 'No ratio buckets.' },
};

function sectionRows(
  view: ExposuresView,
  section: ExposureSection,
): { rows: Record<string, unknown>[]; resource: Resource; title: string; empty: string } {
  const rows = section === 'policy' ? policyAsData(view.policy).ratios : view[section];
  return { rows: rows as unknown as Record<string, unknown>[], ...SECTIONS[section] };
}

/** The command's output: every section on a terminal and in JSON, one in the row formats. */
export async function renderExposures(
  output: Output,
  view: ExposuresView,
  options: { section?: ExposureSection },
): Promise<void> {
  const held = view.book.reduce((total, row) => total + row.target_usd, 0);
  if (view.availableExposureUsd !== undefined && held > view.availableExposureUsd) {
    output.warn(
      `The target book (${formatMoney(held)} USD) is above the account's available exposure (${formatMoney(view.availableExposureUsd)} USD): the server would refuse part of it.`,
    );
  }
  for (const [market, fee] of Object.entries(view.fees)) {
    if (fee.rate === null)
      output.warn(
        `${market}: the fee could not be quoted; the projected cost shows carry only (give it with --fee-bps).`,
      );
  }
  if (output.isJson) {
    const data = exposuresAsData(view);
    if (options.section !== undefined) {
      const { rows, resource } = sectionRows(view, options.section);
      output.json(options.section === 'policy' ? data.policy : rows, resource.fields);
    } else {
      output.json(data);
    }
    return;
  }
  if (!output.isHuman) {
    const { rows, resource, empty } = sectionRows(view, options.section ?? 'book');
    await output.list(rows, resource, { empty });
    return;
  }
  output.note(output.chalk.dim(`${view.source} as of ${utcMinute(view.asOf)} UTC: ${describePolicy(view.policy)}.`));
  const sections =
    options.section === undefined ? (['exposures', 'book', 'schedule', 'cost', 'stress'] as const) : [options.section];
  for (const section of sections) {
    const { rows, resource, title, empty } = sectionRows(view, section);
    await output.list(rows, resource, { empty, title });
  }
  output.note(
    output.chalk.dim(
      'Nothing was sent. Carry and fees from your side (- you pay); stress: + a gain, - a loss, in USD.',
    ),
  );
}
