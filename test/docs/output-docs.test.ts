// docs/output.md lists each list's columns and its table of priorities, and the fields of each write's result:
// the lines must be the code's (src/platform/fields/resource-fields.ts, src/features/report/report-view.ts,
// src/platform/results/result-fields.ts), so that the page stays true as they change.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeChalk } from '../../src/platform/terminal/color.js';
import {
  REPORT_CSV_COLUMNS,
  REPORT_DEAL_CSV_COLUMNS,
  REPORT_DECIDES,
  REPORT_PRIORITY,
} from '../../src/features/report/report-view.js';
import * as lists from '../../src/platform/fields/resource-fields.js';
import { RESULT_FIELDS } from '../../src/platform/results/result-fields.js';
import { ROOT } from '../support/hedge-cli.js';

const page = readFileSync(join(ROOT, 'docs', 'output.md'), 'utf8');
const keys = (names: readonly string[]) => names.map((name) => `\`${name}\``).join(', ');

/** The lines under `### name`, up to the next heading. */
function section(name: string) {
  const start = page.indexOf(`### ${name}\n`);
  expect(start, `docs/output.md has no "### ${name}"`).toBeGreaterThanOrEqual(0);
  const end = page.indexOf('\n#', start + 4);
  return page.slice(start, end < 0 ? undefined : end);
}

const RESOURCES: Array<[string, lists.Resource]> = [
  ['hedges', lists.HEDGE_RESOURCE],
  ['positions', lists.POSITION_RESOURCE],
  ['history', lists.HISTORY_RESOURCE],
  ['maturities', lists.MATURITY_RESOURCE],
  ['markets', lists.marketsResource()],
  ['price', lists.PRICE_RESOURCE],
  ['journal', lists.JOURNAL_RESOURCE],
  ['profile list', lists.profilesResource(makeChalk(false), () => '')],
  ['plan', lists.PLAN_RESOURCE],
  ['apply', lists.APPLY_RESOURCE],
  ['tools', lists.TOOL_RESOURCE],
];

it.each(RESOURCES)("%s: its columns and its table of priorities are the code's", (name, resource) => {
  const text = section(name);
  expect(text).toContain(
    `- Columns: ${keys(resource.fields.filter((field) => !field.screenOnly).map((field) => field.key))}\n`,
  );
  // The priorities in two tiers: what a desk decides on, then the rest; a list without
  // the desk's tier keeps its one order.
  const decisive = resource.decisive ?? 0;
  if (decisive === 0) {
    expect(text).toContain(`| in order (no desk tier) | ${keys(resource.priority)} |\n`);
  } else {
    const rest = resource.priority.slice(decisive);
    expect(text).toContain(`| what a desk decides on | ${keys(resource.priority.slice(0, decisive))} |\n`);
    expect(text).toContain(`| the rest | ${rest.length > 0 ? keys(rest) : '—'} |\n`);
  }
});

it("the report's CSV columns (here and in docs/commands.md) and table priorities are the code's, the bar (decoration) after every figure", () => {
  // test/report/report.test.ts: `report --format csv` prints them as its header.
  expect(readFileSync(join(ROOT, 'docs', 'commands.md'), 'utf8')).toContain(`\`${REPORT_CSV_COLUMNS.join(',')}\``);
  const text = section('report');
  expect(text).toContain(`- CSV and TSV by group: ${keys(REPORT_CSV_COLUMNS)}\n`);
  expect(text).toContain(
    `- CSV and TSV \`--by hedge\`: ${keys(REPORT_DEAL_CSV_COLUMNS).replace('`group`', '`group` (the hedge id)')}\n`,
  );
  expect(text).toContain(`| what a desk decides on | ${keys(REPORT_DECIDES)} |\n`);
  expect(text).toContain(`| the rest | ${keys(REPORT_PRIORITY.slice(REPORT_DECIDES.length))} |\n`);
  expect(REPORT_PRIORITY.at(-1)).toBe('bar');
});

it.each(Object.entries(RESULT_FIELDS))(
  "a write's result, %s: the names --fields is checked against before the send are the code's",
  (name, names) => {
    const start = page.indexOf('## Results of writes\n');
    expect(start, 'docs/output.md has no "## Results of writes"').toBeGreaterThanOrEqual(0);
    expect(page.slice(start)).toContain(`- \`${name}\`: ${keys(names)}`);
  },
);
