// How `hedge exposures FILE` reads: one table per section on a terminal, one JSON document, or one
// section's rows (--show, default the book) in TSV, CSV and NDJSON. Renders only.
import { describePolicy, policyAsData } from './exposure-policy.js';
import type { ExposuresView } from './exposures.js';
import type { FieldSpec } from '../../platform/fields/fields.js';
import { formatMoney } from '../../platform/terminal/format.js';
import type { Output } from '../../platform/terminal/output.js';
import type { Resource } from '../../platform/fields/resource-fields.js';
import { utcMinute } from '../../core/utc-text.js';

export const EXPOSURE_SECTIONS = ['book', 'exposures', 'schedule', 'cost', 'stress', 'policy'] as const;
export type ExposureSection = (typeof EXPOSURE_SECTIONS)[number];

export const market: FieldSpec = { key: 'market', label: 'Market' };
const side: FieldSpec = { key: 'side', label: 'Side', kind: 'side' };
/** An amount in USD (or `unit`). */
export const usd = (key: string, label: string, kind: FieldSpec['kind'] = 'money', unit = 'USD'): FieldSpec => ({
  key,
  label,
  unit,
  kind,
});

/** Fields, and the order a narrow table keeps them in (theirs when not given). */
export const resource = (fields: FieldSpec[], priority = fields.map((field) => field.key)): Resource => ({
  fields,
  priority,
});

export const EXPOSURE_LINE_RESOURCE = resource(
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

export const BOOK_RESOURCE = resource(
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

export const SCHEDULE_RESOURCE = resource(
  [
    { key: 'at', label: 'At', kind: 'utc' },
    market,
    side,
    usd('from_usd', 'From'),
    usd('to_usd', 'To'),
    usd('change_usd', 'Change', 'pnl'),
    { key: 'reason', label: 'Why', kind: 'text', wrap: true },
  ],
  ['at', 'side', 'to_usd', 'change_usd', 'reason', 'from_usd', 'market'],
);

export const COST_RESOURCE = resource(
  [
    { key: 'due', label: 'Due', kind: 'utc' },
    market,
    { key: 'exposures', label: 'Due then', kind: 'text', wrap: true },
    usd('carry_usdc', 'Carry', 'pnl', 'USDC'),
    usd('fees_usdc', 'Fees', 'pnl', 'USDC'),
    { key: 'rolls', label: 'Rolls', kind: 'count' },
    usd('cost_usdc', 'Cost', 'pnl', 'USDC'),
  ],
  ['due', 'cost_usdc', 'exposures', 'carry_usdc', 'fees_usdc', 'rolls', 'market'],
);

export const STRESS_RESOURCE = resource(
  [
    market,
    { key: 'shock_pct', label: 'Shock %', kind: 'count' },
    { key: 'price', label: 'Price', unit: 'rate', kind: 'rate' },
    usd('exposure_change_usd', 'Exposure', 'pnl'),
    usd('cover_pnl_usd', 'Cover P&L', 'pnl'),
    usd('net_usd', 'Net', 'pnl'),
  ],
  ['shock_pct', 'net_usd', 'exposure_change_usd', 'cover_pnl_usd', 'price', 'market'],
);

const POLICY_RESOURCE = resource([
  { key: 'within_days', label: 'Within days', kind: 'count' },
  { key: 'ratio_pct', label: 'Ratio %', kind: 'count' },
]);

/** The sections as data: what JSON shows, and each section's rows for TSV/CSV/NDJSON. */
function exposuresAsData(view: ExposuresView) {
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

const SECTIONS: Record<ExposureSection, Section> = {
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
  policy: {
    resource: POLICY_RESOURCE,
    title: 'Hedge ratio by time to due',
    empty: 'No ratio buckets.',
    rows: (document) => (document.policy as ReturnType<typeof policyAsData>).ratios,
  },
};

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
  const data = exposuresAsData(view);
  await renderSections(output, view, SECTIONS, data, {
    ...options,
    all: ['exposures', 'book', 'schedule', 'cost', 'stress'],
    fallback: 'book',
    footer: 'Nothing was sent. Carry and fees from your side (- you pay); stress: + a gain, - a loss, in USD.',
  });
}

export interface Section {
  resource: Resource;
  title: string;
  empty: string;
  /** The rows a list shows, when they are not the document's member of the section's name. */
  rows?: (document: Record<string, unknown>) => unknown;
}

/**
 * Sections of a document, as `hedge exposures` says them: JSON the whole document (or the section's
 * member); a table per section (`all`, or the one asked) under the policy on a terminal; one section's
 * rows (the one asked, or `fallback`) in TSV, CSV and NDJSON.
 */
export async function renderSections<S extends string>(
  output: Output,
  view: Pick<ExposuresView, 'source' | 'asOf' | 'policy'>,
  sections: Record<S, Section>,
  document: Record<string, unknown>,
  options: { section?: S; all: readonly S[]; fallback: S; footer: string },
): Promise<void> {
  const { section } = options;
  if (output.isJson) {
    if (section === undefined) output.json(document);
    else output.json(document[section], sections[section].resource.fields);
    return;
  }
  const human = output.isHuman;
  if (human)
    output.note(output.chalk.dim(`${view.source} as of ${utcMinute(view.asOf)} UTC: ${describePolicy(view.policy)}.`));
  for (const name of section !== undefined ? [section] : human ? options.all : [options.fallback]) {
    const { resource, title, empty, rows } = sections[name];
    await output.list((rows?.(document) ?? document[name]) as Record<string, unknown>[], resource, { empty, title });
  }
  if (human) output.note(output.chalk.dim(options.footer));
}
