// The one output layer every command writes through. Three modes:
//   table — a person at a TTY: cli-table3 tables and cards, colour when enabled;
//   plain — stdout is not a TTY: tab-separated rows, raw numbers, ISO times, no colour;
//   json  — --json: exactly one JSON document (the envelope's data) on stdout.
// Messages never go to stdout in plain or json mode.
import type { ChalkInstance } from 'chalk';
import Table from 'cli-table3';
import { kindFromName, withExtraFields, type FieldKind, type FieldSpec } from './fields.js';
import { formatLocal, formatMoney, formatPercent, formatRate, formatRelative, formatSignedMoney, formatUtc } from './format.js';
import { safeJson, safeStyled, safeText } from '../security/safe-text.js';

const LIST_CHARS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '',
};

/** Columns a cell takes on screen: colour codes take none. */
function visibleWidth(text: string): number {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '').length;
}

const CARD_CHARS = { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' };

export type OutputMode = 'table' | 'plain' | 'json';

export interface OutputStreams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export interface ListOptions {
  /** Said instead of a table when there are no rows (stdout in table mode, stderr in plain mode). */
  empty: string;
  title?: string;
  /** Fields deliberately left out of the table and TSV (shown elsewhere); JSON keeps them. */
  omit?: readonly string[];
  /** A totals row keyed like the rows; `label` fills the first column. */
  totals?: { label: string; row: Record<string, unknown> };
}

export class Output {
  readonly mode: OutputMode;
  readonly chalk: ChalkInstance;
  private readonly streams: OutputStreams;
  private readonly now: () => number;

  constructor(init: { mode: OutputMode; chalk: ChalkInstance; streams: OutputStreams; now: () => number }) {
    this.mode = init.mode;
    this.chalk = init.chalk;
    this.streams = init.streams;
    this.now = init.now;
  }

  get isJson(): boolean {
    return this.mode === 'json';
  }

  get isHuman(): boolean {
    return this.mode === 'table';
  }

  /** Raw text to stdout (a completion script, a table already rendered). */
  /** Every string leaving here passes the untrusted-text filter: our colours pass, nothing else acts on a terminal. */
  write(text: string): void {
    const safe = safeStyled(text);
    this.streams.stdout.write(safe.endsWith('\n') ? safe : `${safe}\n`);
  }

  /** The data as it came, as valid JSON whose invisible or control characters are written as escapes. */
  json(data: unknown): void {
    this.streams.stdout.write(`${safeJson(data ?? null, 2)}\n`);
  }

  /** A line for the operator, on stderr in every mode. */
  note(text: string): void {
    this.streams.stderr.write(`${safeStyled(text)}\n`);
  }

  warn(text: string): void {
    this.note(this.chalk.yellow(text));
  }

  success(text: string): void {
    this.note(this.chalk.green(text));
  }

  /**
   * A list of records: a table, TSV rows, or the array itself. `totals` (human modes only) is a
   * row of sums keyed like the rows: the last table row in table mode; in plain mode a line on
   * stderr, so that the TSV on stdout stays one record per line. JSON is the array alone.
   */
  list(rows: Record<string, unknown>[], known: FieldSpec[], options: ListOptions): void {
    if (this.mode === 'json') {
      this.json(rows);
      return;
    }
    if (rows.length === 0) {
      if (this.mode === 'table') this.write(this.chalk.dim(options.empty));
      else this.note(options.empty);
      return;
    }
    const fields = withExtraFields(known, rows, { omit: options.omit, keepAbsentKnown: this.mode === 'plain' });
    if (this.mode === 'plain') {
      for (const row of rows) this.write(fields.map((field) => plainValue(valueOf(field, row))).join('\t'));
      if (options.totals) {
        const sums = fields
          .filter((field) => options.totals!.row[field.key] !== undefined)
          .map((field) => `${field.key}=${plainValue(options.totals!.row[field.key])}`);
        this.note([options.totals.label, ...sums].join('\t'));
      }
      return;
    }
    // A list reads as columns under a ruled header, without boxes: narrower, and easy on the eye
    // when it is long.
    const head = fields.map((field) => this.chalk.bold(field.label));
    const body = rows.map((row) => fields.map((field) => this.humanValue(field, valueOf(field, row))));
    const totals = options.totals
      ? fields.map((field, index) => {
          if (index === 0) return this.chalk.bold(options.totals!.label);
          const value = options.totals!.row[field.key];
          return value === undefined ? '' : this.chalk.bold(this.humanValue(field, value));
        })
      : undefined;
    const widths = fields.map((_, column) => Math.max(...[head, ...body, ...(totals ? [totals] : [])].map((cells) => visibleWidth(cells[column]!))));
    const rule = widths.map((width) => this.chalk.dim('─'.repeat(width)));
    const table = new Table({ chars: LIST_CHARS, style: { head: [], border: [], 'padding-left': 0, 'padding-right': 2 } });
    table.push(head, rule, ...body);
    if (totals) table.push(rule, totals);
    if (options.title) this.write(this.chalk.bold(options.title));
    this.write(
      table
        .toString()
        .split('\n')
        .map((line) => line.trimEnd())
        .join('\n'),
    );
  }

  /** One record: a two-column card, `field<TAB>value` lines, or the object itself. */
  record(record: Record<string, unknown>, known: FieldSpec[], options: { title?: string; footer?: string[] } = {}): void {
    if (this.mode === 'json') {
      this.json(record);
      return;
    }
    const fields = withExtraFields(known, [record]);
    if (this.mode === 'plain') {
      for (const field of fields) this.write(`${safeText(field.key)}\t${plainValue(valueOf(field, record))}`);
      return;
    }
    this.write(this.card(fields.map((field) => [field.label, this.humanValue(field, valueOf(field, record))]), options.title));
    for (const line of options.footer ?? []) this.write(line);
  }

  /** A card from label/value pairs already formatted for people. */
  card(rows: Array<[string, string]>, title?: string): string {
    // No rule between rows: a card is read top to bottom, and multi-line values stay grouped.
    const table = new Table({ chars: CARD_CHARS, style: { head: [], border: [] } });
    for (const [label, value] of rows) table.push([this.chalk.dim(label), value]);
    return title ? `${this.chalk.bold(title)}\n${table.toString()}` : table.toString();
  }

  humanValue(field: Pick<FieldSpec, 'key' | 'kind'>, value: unknown): string {
    if (value === undefined || value === null || value === '') return this.chalk.dim('—');
    // Server text is made harmless before it is measured, coloured or printed.
    if (typeof value === 'string') value = safeText(value);
    const kind: FieldKind = field.kind ?? kindFromName(field.key, value);
    const c = this.chalk;
    switch (kind) {
      case 'money':
        return typeof value === 'number' ? formatMoney(value) : String(value);
      case 'pnl':
        if (typeof value !== 'number') return String(value);
        return value > 0 ? c.green(formatSignedMoney(value)) : value < 0 ? c.red(formatSignedMoney(value)) : formatSignedMoney(value);
      case 'rate':
        return typeof value === 'number' ? formatRate(value) : String(value);
      case 'percent':
        return typeof value === 'number' ? formatPercent(value) : String(value);
      case 'time':
        return typeof value === 'string' ? `${formatUtc(value)} ${c.dim(`(${formatRelative(value, this.now())})`)}` : String(value);
      case 'utc':
        return typeof value === 'string' ? formatUtc(value) : String(value);
      case 'side':
        return value === 'buy' ? c.green('buy') : value === 'sell' ? c.magenta('sell') : String(value);
      case 'status':
        return colorStatus(c, String(value));
      case 'json':
        return safeText(JSON.stringify(value));
      case 'count':
        return typeof value === 'number' ? value.toLocaleString('en-US') : String(value);
      default:
        return safeText(String(value));
    }
  }

  /** Human-readable `time (local, relative)` for cards like the quote's maturity. */
  timeWithLocal(iso: string): string {
    return `${formatUtc(iso)}\n${formatLocal(iso)} ${this.chalk.dim(`(${formatRelative(iso, this.now())})`)}`;
  }
}

function valueOf(field: FieldSpec, row: Record<string, unknown>): unknown {
  return field.get ? field.get(row) : row[field.key];
}

/** TSV cells: one line each, tabs and newlines included shown escaped, like every control character. */
function plainValue(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return safeText(JSON.stringify(value));
  return safeText(String(value));
}

function colorStatus(c: ChalkInstance, status: string): string {
  switch (status) {
    case 'filled':
    case 'open':
      return c.green(status);
    case 'failed':
    case 'disabled':
      return c.red(status);
    case 'submitted':
    case 'submitting':
      return c.yellow(status);
    case 'closed':
      return c.dim(status);
    default:
      return status;
  }
}
