// How journal entries are shown: `hedge journal` (a table, TSV rows, or the entries as stored) and
// `hedge journal show ID` (a card, `field<TAB>value` lines, or the entry as stored). Every string
// that came from the journal file passes safeText before it reaches the screen: the file is local,
// but it holds what the server answered (messages, hedge ids) and can be edited by hand.
import type { ChalkInstance } from 'chalk';
import Table from 'cli-table3';
import type { JournalEntry, Outcome } from '../journal/index.js';
import { safeText } from '../security/safe-text.js';
import type { FieldSpec } from './fields.js';
import { formatMoney, formatRelative, formatUtc } from './format.js';
import type { Output } from './output.js';

const LIST_CHARS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '',
};

/** A string for the screen, or undefined when the value is absent or not text. */
function text(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return safeText(typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value));
}

function bodyOf(entry: JournalEntry): Record<string, unknown> {
  const body = entry.request?.body;
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

/** `test · desk` — where the action was sent, and by which profile. */
function whereOf(entry: JournalEntry): string {
  return [entry.environment, entry.profile].filter((part) => typeof part === 'string' && part !== '').join(' · ');
}

export function colorOutcome(c: ChalkInstance, outcome: Outcome | string): string {
  const shown = safeText(String(outcome));
  switch (outcome) {
    case 'filled':
    case 'done':
      return c.green(shown);
    case 'failed':
    case 'rejected':
      return c.red(shown);
    case 'pending':
    case 'submitted':
    case 'unknown':
      return c.yellow.bold(shown);
    case 'abandoned':
      return c.dim(shown);
    default:
      return shown;
  }
}

/** The list's columns, in order; the row values are the raw (sanitised) ones for TSV. */
interface ListRow {
  id: string;
  created_at: string;
  command: string;
  market?: string;
  side?: string;
  notional_usd?: number;
  outcome: string;
  hedge_id?: string;
  environment: string;
}

const LIST_FIELDS: FieldSpec[] = [
  { key: 'id', label: 'ID' },
  { key: 'created_at', label: 'Time' },
  { key: 'command', label: 'Command' },
  { key: 'market', label: 'Market' },
  { key: 'side', label: 'Side' },
  { key: 'notional_usd', label: 'Notional (USD)' },
  { key: 'outcome', label: 'Outcome' },
  { key: 'hedge_id', label: 'Hedge ID' },
  { key: 'environment', label: 'Where' },
];

function listRow(entry: JournalEntry): ListRow {
  const body = bodyOf(entry);
  return {
    id: text(entry.id) ?? '',
    created_at: text(entry.created_at) ?? '',
    command: text(entry.command) ?? '',
    market: text(body.market),
    side: text(body.side),
    notional_usd: typeof body.notional_usd === 'number' ? body.notional_usd : undefined,
    outcome: text(entry.outcome) ?? '',
    hedge_id: text(entry.hedge_id),
    environment: safeText(whereOf(entry)),
  };
}

/**
 * The journal, newest first: the entries exactly as stored under --json; one TSV row per entry
 * when piped (columns as LIST_FIELDS, empty cells kept); a ruled table on a terminal.
 */
export function renderJournalList(output: Output, entries: JournalEntry[], options: { empty: string; now: number }): void {
  if (output.isJson) {
    output.json(entries);
    return;
  }
  if (entries.length === 0) {
    if (output.isHuman) output.write(output.chalk.dim(options.empty));
    else output.note(options.empty);
    return;
  }
  const rows = entries.map(listRow);
  if (!output.isHuman) {
    for (const row of rows) {
      const record = row as unknown as Record<string, unknown>;
      output.write(LIST_FIELDS.map((field) => cell(record[field.key])).join('\t'));
    }
    return;
  }
  const c = output.chalk;
  const dash = c.dim('—');
  const head = LIST_FIELDS.map((field) => c.bold(field.label));
  const body = rows.map((row) => [
    row.id,
    `${formatUtc(row.created_at)} ${c.dim(`(${formatRelative(row.created_at, options.now)})`)}`,
    row.command,
    row.market ?? dash,
    row.side === 'buy' ? c.green('buy') : row.side === 'sell' ? c.magenta('sell') : (row.side ?? dash),
    row.notional_usd === undefined ? dash : formatMoney(row.notional_usd),
    colorOutcome(c, row.outcome),
    row.hedge_id ?? dash,
    row.environment || dash,
  ]);
  const widths = LIST_FIELDS.map((_, column) => Math.max(...[head, ...body].map((cells) => visibleWidth(cells[column]!))));
  const table = new Table({ chars: LIST_CHARS, style: { head: [], border: [], 'padding-left': 0, 'padding-right': 2 } });
  table.push(head, widths.map((width) => c.dim('─'.repeat(width))), ...body);
  output.write(
    table
      .toString()
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n'),
  );
}

/** One entry's fields, in the order a person reads them; absent ones are left out of the card. */
function detailOf(entry: JournalEntry): Array<[key: string, label: string, value: string | undefined]> {
  const request = entry.request ?? { method: '', path: '', body: null };
  return [
    ['id', 'Journal ID', text(entry.id)],
    ['command', 'Command', text(entry.command)],
    ['argv', 'As typed', Array.isArray(entry.argv) ? safeText(['hedge', ...entry.argv.map(String)].join(' ')) : undefined],
    ['outcome', 'Outcome', text(entry.outcome)],
    ['created_at', 'Started', text(entry.created_at)],
    ['updated_at', 'Updated', text(entry.updated_at)],
    ['resolved_at', 'Resolved', text(entry.resolved_at)],
    ['environment', 'Environment', text(entry.environment)],
    ['profile', 'Profile', text(entry.profile)],
    ['base_url_host', 'Host', text(entry.base_url_host)],
    ['key_id', 'Key fingerprint', text(entry.key_id)],
    ['account', 'Account', text(entry.account)],
    ['request', 'Request', text(`${String(request.method)} ${String(request.path)}`)],
    ['body', 'Body', text(request.body)],
    ['idempotency_key', 'Idempotency key', text(entry.idempotency_key)],
    ['hedge_id', 'Hedge ID', text(entry.hedge_id)],
    ['order_tx_hash', 'Order tx', text(entry.order_tx_hash)],
    ['error_code', 'Error code', text(entry.error_code)],
    ['message', 'Message', text(entry.message)],
    ['group', 'Group', text(entry.group)],
    ['leg', 'Leg', text(entry.leg)],
    ['context', 'Context', text(entry.context)],
  ];
}

/** One entry: as stored under --json, `field<TAB>value` lines when piped, a card on a terminal. */
export function renderJournalEntry(output: Output, entry: JournalEntry, options: { now: number; footer?: string[] }): void {
  if (output.isJson) {
    output.json(entry);
    return;
  }
  const fields = detailOf(entry);
  if (!output.isHuman) {
    for (const [key, , value] of fields) if (value !== undefined) output.write(`${key}\t${value}`);
    return;
  }
  const c = output.chalk;
  const rows: Array<[string, string]> = fields
    .filter((field): field is [string, string, string] => field[2] !== undefined)
    .map(([key, label, value]) => {
      if (key === 'outcome') return [label, colorOutcome(c, entry.outcome)];
      if (key.endsWith('_at')) return [label, `${formatUtc(value)} ${c.dim(`(${formatRelative(value, options.now)})`)}`];
      return [label, value];
    });
  output.write(output.card(rows, `Journal ${safeText(entry.id)}`));
  for (const line of options.footer ?? []) output.write(line);
}

function cell(value: unknown): string {
  if (value === undefined || value === null) return '';
  return safeText(String(value));
}

/** Columns a cell takes on screen: colour codes take none. */
function visibleWidth(value: string): number {
  // eslint-disable-next-line no-control-regex
  return value.replace(/\u001b\[[0-9;]*m/g, '').length;
}
