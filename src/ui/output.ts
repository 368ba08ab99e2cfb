// The one output layer every command writes through. Formats (--format, or table on a terminal and
// tsv in a pipe):
//   table  — a person at a terminal: columns fitted to its width, cards, colour when enabled;
//   tsv    — tab-separated, a header row of field keys (--no-header drops it), raw values;
//   csv    — the same rows as RFC 4180 CSV (csv-stringify);
//   json   — exactly one JSON document (the envelope's data, as it came) on stdout;
//   ndjson — one JSON document per line: a list's elements, or the one record.
// --fields picks and orders columns in every format; --query (JMESPath) reshapes the JSON.
// Messages never go to stdout outside the table format.
import type { ChalkInstance } from 'chalk';
import { UsageError } from '../errors.js';
import {
  DEFAULT_PRIORITY,
  kindFromName,
  NUMERIC_KINDS,
  pickFields,
  unknownFieldProblem,
  withExtraFields,
  fieldLabel,
  type FieldKind,
  type FieldSpec,
} from './fields.js';
import {
  formatFixed,
  formatLocal,
  formatPercent,
  formatRelative,
  formatTimeLeft,
  formatUtc,
  formatUtcMinutes,
  fractionDigits,
  rateDecimals,
  shortHash,
} from './format.js';
import { allotColumns, displayWidth, shortenMiddle, truncateEnd, wrapWords, type ColumnDemand } from './width.js';
import { safeJson, safeStyled, safeText } from '../security/safe-text.js';

/** Coarse modes for callers that only care whether output is for people, for scripts as text, or JSON. */
export type OutputMode = 'table' | 'plain' | 'json';
/** The same names as --format (runtime/globals.ts). */
export type DataFormat = 'table' | 'tsv' | 'csv' | 'json' | 'ndjson';

export interface OutputStreams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** Rows of cells to CSV text (ui/csv.ts, loaded only when --format csv asks for it). */
export type CsvEncoder = (rows: string[][]) => string;

export interface OutputInit {
  /** Legacy and tests: 'plain' means tsv. `format` wins when both are given. */
  mode?: OutputMode;
  format?: DataFormat;
  chalk: ChalkInstance;
  streams: OutputStreams;
  now: () => number;
  /** The width to fit on screen (ui/width.ts terminalColumns); 80 when not said. */
  columns?: number;
  /** --fields, in the order given. */
  fields?: readonly string[];
  /** --query, compiled (ui/query.ts). */
  query?: (data: unknown) => unknown;
  /** false with --no-header. */
  header?: boolean;
  csv?: CsvEncoder;
}

export interface ListOptions {
  /** Said instead of a table when there are no rows (stdout in table format, stderr otherwise). */
  empty: string;
  title?: string;
  /** Fields left out of the table unless --fields names them (TSV, CSV and JSON keep them). */
  omit?: readonly string[];
  /** A totals row keyed like the rows: the last table row, a stderr line with TSV, nothing in CSV/JSON. */
  totals?: { label: string; row: Record<string, unknown> };
  /** What JSON prints when it is not the rows themselves (e.g. journal entries as stored). */
  json?: unknown[];
}

export interface RecordOptions {
  title?: string;
  footer?: string[];
  /** What JSON prints when it is not the record itself. */
  json?: unknown;
}

/** One value as shown on screen: its visible text (measured once) and the same with colour. */
interface Cell {
  text: string;
  styled: string;
  width: number;
}

/** How one column of a table shows its numbers, decided once from all of its values. */
interface ColumnFormat {
  decimals?: number;
  /** Rates: the unit the header carries, e.g. NGN/USDT. */
  unit?: string;
}

const TABLE_GAP = 2;
const GAP = ' '.repeat(TABLE_GAP);
/** Columns a card's borders and padding take: `│ label │ value │`. */
const CARD_FRAME = 7;
/** An id is shortened in the middle only when more important columns leave it no room; never below this. */
const ID_MIN_WIDTH = 13;
/** A text column may be cut down to this (with …) before columns are dropped. */
const TEXT_MIN_WIDTH = 10;
const USDT_MARKET = /^USDT([A-Z]{3})$/;
/** Marks where jsonWithList writes its list (a NUL: no data of a document holds one as text). */
const LIST_MARK = '\u0000hedge-list:';

export class Output {
  readonly format: DataFormat;
  readonly mode: OutputMode;
  readonly chalk: ChalkInstance;
  /** The width human output fits. */
  readonly columns: number;
  private readonly streams: OutputStreams;
  private readonly now: () => number;
  private readonly fields?: readonly string[];
  private readonly query?: (data: unknown) => unknown;
  private readonly header: boolean;
  private readonly csv?: CsvEncoder;

  constructor(init: OutputInit) {
    this.format = init.format ?? (init.mode === 'json' ? 'json' : init.mode === 'plain' ? 'tsv' : 'table');
    this.mode = this.format === 'table' ? 'table' : this.format === 'json' || this.format === 'ndjson' ? 'json' : 'plain';
    this.chalk = init.chalk;
    this.streams = init.streams;
    this.now = init.now;
    const streamColumns = (init.streams.stdout as { columns?: unknown }).columns;
    this.columns = init.columns ?? (typeof streamColumns === 'number' && streamColumns > 0 ? streamColumns : 80);
    this.fields = init.fields;
    this.query = init.query;
    this.header = init.header !== false;
    this.csv = init.csv;
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

  /**
   * The data as it came, as valid JSON whose invisible or control characters are written as
   * escapes; --fields keeps only the named keys of each record (in that order), then --query
   * reshapes it. ndjson: one line per element of a list, else one line. `known` names the fields a
   * record may have beyond its own keys (computed ones, and those a list of zero rows would have).
   */
  json(data: unknown, known: readonly FieldSpec[] = []): void {
    const shaped = this.shapeJson(data, known);
    if (this.format === 'ndjson') {
      const documents = Array.isArray(shaped) ? shaped : [shaped];
      let text = '';
      for (const document of documents) text += `${safeJson(document ?? null)}\n`;
      if (text !== '') this.streams.stdout.write(text);
      return;
    }
    this.streams.stdout.write(`${safeJson(shaped ?? null, 2)}\n`);
  }

  /**
   * A list written as its items come (history read page by page, never held whole): byte for byte
   * what json() writes for the whole array, in json and ndjson. Undefined in other formats, and
   * when --fields or --query need the whole list first.
   */
  jsonListWriter(): { add(item: unknown): void; end(): void } | undefined {
    if (this.mode !== 'json' || this.fields || this.query) return undefined;
    const stdout = this.streams.stdout;
    const ndjson = this.format === 'ndjson';
    let text = '';
    let count = 0;
    const flush = (): void => {
      if (text !== '') stdout.write(text);
      text = '';
    };
    return {
      add: (item) => {
        // JSON.stringify(list, null, 2) indents each element's lines by two more spaces.
        text += ndjson ? `${safeJson(item ?? null)}\n` : `${count === 0 ? '[\n  ' : ',\n  '}${safeJson(item ?? null, 2).replace(/\n/g, '\n  ')}`;
        count += 1;
        if (text.length >= 65_536) flush();
      },
      end: () => {
        if (!ndjson) text += count === 0 ? '[]\n' : '\n]\n';
        flush();
      },
    };
  }

  /**
   * A JSON document one of whose members is a long list, the list written a piece at a time from
   * `item(index)` instead of being made whole first (the report's cumulative line over 100,000
   * closes): byte for byte what json() writes for the document with the list in it. With
   * --fields, --query or ndjson the list is made and json() writes it.
   */
  jsonWithList(document: Record<string, unknown>, key: string, count: number, item: (index: number) => unknown): void {
    if (this.format !== 'json' || this.fields || this.query) {
      this.json({ ...document, [key]: Array.from({ length: count }, (_, index) => item(index)) });
      return;
    }
    // The list's place in the document's text, found by a member that can be nothing else.
    const placeholder = `${LIST_MARK}${key}`;
    const text = safeJson({ ...document, [key]: [placeholder] }, 2);
    const marked = `[\n    ${JSON.stringify(placeholder)}\n  ]`;
    const at = text.indexOf(marked);
    if (at < 0 || !(key in document) || count === 0) {
      this.json({ ...document, [key]: Array.from({ length: count }, (_, index) => item(index)) });
      return;
    }
    const stdout = this.streams.stdout;
    let chunk = `${text.slice(0, at)}[\n    `;
    for (let index = 0; index < count; index++) {
      // A member of the document's top level: its elements are indented by four spaces.
      chunk += `${index === 0 ? '' : ',\n    '}${safeJson(item(index) ?? null, 2).replace(/\n/g, '\n    ')}`;
      if (chunk.length >= 65_536) {
        stdout.write(chunk);
        chunk = '';
      }
    }
    stdout.write(`${chunk}\n  ]${text.slice(at + marked.length)}\n`);
  }

  /** The data shaped as json() shapes it (--fields, then --query), for a caller that wraps it (`--watch` records). */
  shapeJson(data: unknown, known: readonly FieldSpec[] = []): unknown {
    const picked = this.fields ? projectFields(data, this.fields, known) : data;
    return this.query ? this.query(picked) : picked;
  }

  /** A line for the operator, on stderr in every format; wrapped at word boundaries on a terminal. */
  note(text: string): void {
    const shown = this.format === 'table' ? wrapWords(text, this.columns) : text;
    this.streams.stderr.write(`${safeStyled(shown)}\n`);
  }

  warn(text: string): void {
    this.note(this.chalk.yellow(text));
  }

  success(text: string): void {
    this.note(this.chalk.green(text));
  }

  /**
   * A list of records: a table fitted to the width, TSV/CSV rows under a header of keys, or the
   * array itself. Columns: the known fields in their order, then the fields the server sent that
   * nobody named, sorted; the same order in every format.
   */
  list(rows: Record<string, unknown>[], known: FieldSpec[], options: ListOptions): void {
    if (this.mode === 'json') {
      this.json(options.json ?? rows, known);
      return;
    }
    if (this.mode === 'plain') {
      const fields = this.pick(withExtraFields(known, rows, { keepAbsentKnown: true }).filter((field) => !field.screenOnly));
      // A list of zero rows keeps its header: the columns a script expects, like `[]` in JSON.
      this.writeRows(fields, rows);
      if (rows.length === 0) this.note(options.empty);
      if (options.totals && this.format === 'tsv' && rows.length > 0) {
        const totals = options.totals;
        const sums = fields.filter((field) => totals.row[field.key] !== undefined).map((field) => `${field.key}=${plainValue(totals.row[field.key])}`);
        this.note([totals.label, ...sums].join('\t'));
      }
      return;
    }
    // --fields names any column there is (one left out of the table by default included).
    const fields = this.fields ? this.pick(withExtraFields(known, rows, { keepAbsentKnown: true })) : withExtraFields(known, rows, { omit: options.omit });
    if (rows.length === 0) {
      this.write(this.chalk.dim(wrapWords(options.empty, this.columns)));
      return;
    }
    if (options.title) this.write(this.chalk.bold(options.title));
    const { text, dropped } = this.table(fields, rows, options.totals);
    this.write(text);
    if (dropped.length > 0) {
      this.note(this.chalk.dim(`Hidden at ${this.columns} columns: ${dropped.join(', ')} — see --format tsv or --fields.`));
    }
  }

  /** One record: a card, a header row of keys and one row (TSV/CSV), or the object itself. */
  record(record: Record<string, unknown>, known: FieldSpec[], options: RecordOptions = {}): void {
    if (this.mode === 'json') {
      this.json(options.json ?? record, known);
      return;
    }
    if (this.mode === 'plain') {
      this.write(this.recordText(record, known));
      return;
    }
    const all = withExtraFields(known, [record]);
    const fields = this.fields ? this.pick(withExtraFields(known, [record], { keepAbsentKnown: true })) : all;
    const unit = rateUnitOf([record]);
    const rows: Array<[string, string]> = fields.map((field) => {
      const format = numberFormatOf(field, [record], unit);
      const label = safeText(fieldLabel(field, 'card', { rateUnit: unit }));
      return [label, this.cell(field, valueOf(field, record), record, format, 'card').styled];
    });
    this.write(this.card(rows, options.title));
    for (const line of options.footer ?? []) this.write(this.format === 'table' ? wrapWords(line, this.columns) : line);
  }

  /** A record as TSV or CSV text: a header row of keys (unless --no-header) and one row. */
  recordText(record: Record<string, unknown>, known: FieldSpec[]): string {
    const fields = this.pick(withExtraFields(known, [record], { keepAbsentKnown: true }).filter((field) => !field.screenOnly));
    return this.rowsText(fields, [record]);
  }

  /**
   * A card from label/value pairs already formatted for people, fitted to the width: labels and
   * values wrap at word boundaries inside their column (a value may hold its own line breaks).
   */
  card(rows: Array<[string, string]>, title?: string): string {
    const labelNeed = Math.max(1, ...rows.map(([label]) => displayWidth(label)));
    const valueNeed = Math.max(1, ...rows.flatMap(([, value]) => value.split('\n').map(displayWidth)));
    // Labels take what they need when values leave room, else at most a third; values the rest.
    const labelRoom = Math.max(Math.floor((this.columns - CARD_FRAME) / 3), this.columns - CARD_FRAME - valueNeed);
    const labelWidth = Math.max(1, Math.min(labelNeed, labelRoom));
    const valueWidth = Math.max(1, Math.min(valueNeed, this.columns - CARD_FRAME - labelWidth));
    const dim = (text: string) => this.chalk.dim(text);
    const lines: string[] = [];
    if (title) lines.push(this.chalk.bold(wrapWords(title, this.columns)));
    lines.push(`┌${'─'.repeat(labelWidth + 2)}┬${'─'.repeat(valueWidth + 2)}┐`);
    for (const [label, value] of rows) {
      const labelLines = wrapWords(label, labelWidth).split('\n');
      const valueLines = value.split('\n').flatMap((line) => wrapWords(line, valueWidth).split('\n'));
      const height = Math.max(labelLines.length, valueLines.length);
      for (let index = 0; index < height; index++) {
        const left = labelLines[index] ?? '';
        const right = valueLines[index] ?? '';
        lines.push(`│ ${dim(left)}${pad(labelWidth - displayWidth(left))} │ ${right}${pad(valueWidth - displayWidth(right))} │`);
      }
    }
    lines.push(`└${'─'.repeat(labelWidth + 2)}┴${'─'.repeat(valueWidth + 2)}┘`);
    return lines.join('\n');
  }

  /** A value as a card shows it (colour, separators, relative times). */
  humanValue(field: Pick<FieldSpec, 'key' | 'kind'> & Partial<FieldSpec>, value: unknown): string {
    return this.cell(field as FieldSpec, value, {}, numberFormatOf(field as FieldSpec, [{ [field.key]: value }], undefined), 'card').styled;
  }

  /** Human-readable `time (local, relative)` for cards like the quote's maturity. */
  timeWithLocal(iso: string): string {
    return `${formatUtc(iso)}\n${formatLocal(iso)} ${this.chalk.dim(`(${formatRelative(iso, this.now())})`)}`;
  }

  // --- TSV and CSV ---

  private writeRows(fields: FieldSpec[], rows: Record<string, unknown>[]): void {
    const text = this.rowsText(fields, rows);
    if (text !== '') this.write(text);
  }

  private rowsText(fields: FieldSpec[], rows: Record<string, unknown>[]): string {
    const table: string[][] = [];
    if (this.header) table.push(fields.map((field) => safeText(field.key)));
    for (const row of rows) table.push(fields.map((field) => plainValue(valueOf(field, row))));
    if (table.length === 0) return '';
    if (this.format === 'csv') {
      if (!this.csv) throw new Error('CSV output needs its encoder (ui/csv.ts).');
      return this.csv(table).replace(/\n$/, '');
    }
    return table.map((cells) => cells.join('\t')).join('\n');
  }

  /** --fields applied to the columns there are; an unknown name is bad usage (exit 2). */
  private pick(available: FieldSpec[]): FieldSpec[] {
    if (!this.fields) return available;
    const picked = pickFields(available, this.fields);
    if ('problem' in picked) throw new UsageError(picked.problem);
    return picked.fields;
  }

  // --- The table ---

  /**
   * Rows under a ruled header, fitted to the width in one pass over the cells: each cell is
   * formatted and measured once. Room goes to columns in order of importance (allotColumns): one
   * that does not fit is dropped, and is named in a note; text is cut with … and an id shortened
   * in the middle only when more important columns leave no room for it whole.
   */
  private table(fields: FieldSpec[], rows: Record<string, unknown>[], totals?: ListOptions['totals']): { text: string; dropped: string[] } {
    const c = this.chalk;
    const unit = rateUnitOf(rows);
    const kinds = fields.map((field) => kindOf(field, rows));
    const formats = fields.map((field) => numberFormatOf(field, rows, unit));
    const right = kinds.map((kind) => NUMERIC_KINDS.has(kind));
    const heads = fields.map((field, index) => {
      const text = safeText(fieldLabel(field, 'header', { kind: kinds[index], rateUnit: formats[index]!.unit }));
      return { text, styled: c.bold(text), width: displayWidth(text) };
    });
    const widths = heads.map((head) => head.width);
    const body: Cell[][] = new Array(rows.length);
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!;
      const cells: Cell[] = new Array(fields.length);
      for (let f = 0; f < fields.length; f++) {
        const cell = this.cell(fields[f]!, valueOf(fields[f]!, row), row, formats[f]!, 'table');
        cells[f] = cell;
        if (cell.width > widths[f]!) widths[f] = cell.width;
      }
      body[r] = cells;
    }
    let totalsCells: Cell[] | undefined;
    if (totals) {
      totalsCells = fields.map((field, index) => {
        if (index === 0) {
          const text = safeText(totals.label);
          return { text, styled: c.bold(text), width: displayWidth(text) };
        }
        const value = totals.row[field.key];
        if (value === undefined) return { text: '', styled: '', width: 0 };
        const cell = this.cell(field, value, totals.row, formats[index]!, 'table');
        return { ...cell, styled: c.bold(cell.styled) };
      });
      totalsCells.forEach((cell, index) => {
        if (cell.width > widths[index]!) widths[index] = cell.width;
      });
    }

    const demands: ColumnDemand[] = fields.map((field, index) => {
      const kind = kinds[index]!;
      const priority = field.priority ?? DEFAULT_PRIORITY;
      const width = widths[index]!;
      if (kind === 'id') return { key: field.key, priority, width, minWidth: Math.min(width, ID_MIN_WIDTH), shrink: 'middle' };
      if (kind === 'text' || kind === 'json') return { key: field.key, priority, width, minWidth: Math.min(width, TEXT_MIN_WIDTH), shrink: 'truncate' };
      return { key: field.key, priority, width };
    });
    const fit = allotColumns(demands, this.columns, TABLE_GAP);
    const indexOf = new Map(fields.map((field, index) => [field.key, index]));

    const kept = fit.keep.map(({ key, width }) => ({ index: indexOf.get(key)!, width }));
    // The totals label stands in the first column shown, whichever that is.
    if (totalsCells && kept.length > 0 && kept[0]!.index !== 0) totalsCells[kept[0]!.index] = totalsCells[0]!;
    const line = (cells: Cell[]): string => {
      let out = '';
      for (let k = 0; k < kept.length; k++) {
        const { index, width } = kept[k]!;
        const cell = cells[index]!;
        let styled = cell.styled;
        let cellWidth = cell.width;
        if (cellWidth > width) {
          styled = kinds[index] === 'id' ? shortenMiddle(styled, width) : truncateEnd(styled, width);
          cellWidth = displayWidth(styled);
        }
        const room = width - cellWidth;
        if (k > 0) out += GAP;
        if (right[index]) out += pad(room) + styled;
        else out += k === kept.length - 1 ? styled : styled + pad(room);
      }
      return out.trimEnd();
    };
    const rule = kept.map(({ width }) => c.dim('─'.repeat(width))).join(GAP);
    const lines: string[] = [line(heads), rule];
    for (const cells of body) lines.push(line(cells));
    if (totalsCells) lines.push(rule, line(totalsCells));
    return { text: lines.join('\n'), dropped: fit.dropped };
  }

  /** One value for the screen: made harmless, formatted by kind, measured, coloured. */
  private cell(field: FieldSpec, value: unknown, row: Record<string, unknown>, format: ColumnFormat, where: 'table' | 'card'): Cell {
    const c = this.chalk;
    if (value === undefined || value === null || value === '') return { text: '—', styled: c.dim('—'), width: 1 };
    const kind: FieldKind = field.kind ?? kindFromName(field.key, value);
    let text: string;
    let styled: string | undefined;
    if (typeof value === 'number') {
      switch (kind) {
        case 'money':
        case 'count':
        case 'rate':
          text = formatFixed(value, format.decimals ?? 2);
          break;
        case 'pnl': {
          const digits = formatFixed(Math.abs(value), format.decimals ?? 2);
          text = value > 0 ? `+${digits}` : value < 0 ? `-${digits}` : digits;
          if (value > 0) styled = c.green(text);
          else if (value < 0) styled = c.red(text);
          break;
        }
        case 'percent':
          text = formatPercent(value, format.decimals ?? 4);
          break;
        default:
          text = String(value);
      }
    } else if (typeof value === 'string') {
      const safe = safeText(value);
      switch (kind) {
        case 'time': {
          const relative = field.relativeWhen === undefined || field.relativeWhen(row) ? formatRelative(value, this.now()) : '';
          const time = where === 'table' ? formatUtcMinutes(safe) : formatUtc(safe);
          text = relative ? `${time} (${relative})` : time;
          styled = relative ? `${time} ${c.dim(`(${relative})`)}` : time;
          break;
        }
        case 'utc':
          text = where === 'table' ? formatUtcMinutes(safe) : formatUtc(safe);
          break;
        case 'countdown':
          text = formatTimeLeft(safe, this.now()) || safe;
          break;
        case 'hash':
          text = shortHash(safe);
          break;
        case 'side':
          text = safe;
          styled = value === 'buy' ? c.green(safe) : value === 'sell' ? c.magenta(safe) : safe;
          break;
        case 'status':
          text = safe;
          styled = colorStatus(c, safe);
          break;
        default:
          text = safe;
      }
    } else if (typeof value === 'object') {
      text = safeText(JSON.stringify(value));
    } else {
      text = safeText(String(value));
    }
    styled ??= text;
    if (!field.style) return { text, styled, width: displayWidth(text) };
    // A style may mark the value (`* name`): what it shows is what is measured.
    styled = field.style(styled, row);
    return { text, styled, width: displayWidth(styled) };
  }
}

function valueOf(field: FieldSpec, row: Record<string, unknown>): unknown {
  return field.get ? field.get(row) : row[field.key];
}

function pad(count: number): string {
  return count > 0 ? ' '.repeat(count) : '';
}

/** The field's kind, or what its first present value says it is. */
function kindOf(field: FieldSpec, rows: Record<string, unknown>[]): FieldKind {
  if (field.kind) return field.kind;
  for (const row of rows) {
    const value = valueOf(field, row);
    if (value !== undefined && value !== null) return kindFromName(field.key, value);
  }
  return 'text';
}

/** `NGN/USDT` when every row is of one USDT market; undefined when rows mix markets or say none. */
function rateUnitOf(rows: Record<string, unknown>[]): string | undefined {
  let market: unknown;
  for (const row of rows) {
    if (market === undefined) market = row.market;
    else if (row.market !== market) return undefined;
  }
  const match = typeof market === 'string' ? USDT_MARKET.exec(market) : null;
  return match ? `${match[1]}/USDT` : undefined;
}

/**
 * One number of decimals for the whole column: money 2, percentages 4, rates what their smallest
 * value needs, other numbers as many as the most precise value has (at most 6).
 */
function numberFormatOf(field: FieldSpec, rows: Record<string, unknown>[], unit: string | undefined): ColumnFormat {
  const kind = kindOf(field, rows);
  const rateUnit = field.unit === 'rate' ? unit : undefined;
  if (field.decimals !== undefined) return { decimals: field.decimals, unit: rateUnit };
  if (kind === 'money' || kind === 'pnl') return { decimals: 2 };
  if (kind === 'percent') return { decimals: 4 };
  if (kind !== 'rate' && kind !== 'count') return {};
  let decimals = 0;
  for (const row of rows) {
    const value = valueOf(field, row);
    if (typeof value !== 'number') continue;
    const needed = kind === 'rate' ? rateDecimals(value) : fractionDigits(value);
    if (needed > decimals) decimals = needed;
  }
  return { decimals, unit: rateUnit };
}

/** TSV and CSV cells: raw values, one line each, control characters (tabs, newlines) shown escaped. */
function plainValue(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return safeText(JSON.stringify(value));
  return safeText(String(value));
}

/**
 * --fields on JSON data: each record keeps only the named keys, in that order (a key a record
 * lacks is null). Names are the record's own keys, or a known field (computed ones included).
 */
function projectFields(data: unknown, wanted: readonly string[], known: readonly FieldSpec[]): unknown {
  const records = Array.isArray(data) ? data : [data];
  if (!records.every((record) => record !== null && typeof record === 'object' && !Array.isArray(record))) {
    throw new UsageError('--fields: this output is not a record or a list of records; use --query to shape it.');
  }
  const computed = new Map(known.filter((field) => !field.screenOnly).map((field) => [field.key, field]));
  const available = new Set<string>(computed.keys());
  for (const record of records as Record<string, unknown>[]) for (const key of Object.keys(record)) available.add(key);
  for (const name of wanted) {
    if (!available.has(name)) throw new UsageError(unknownFieldProblem(name, [...available]));
  }
  const project = (record: Record<string, unknown>): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const name of wanted) {
      if (Object.prototype.hasOwnProperty.call(record, name)) out[name] = record[name];
      else {
        const field = computed.get(name);
        const value = field ? valueOf(field, record) : undefined;
        out[name] = value === undefined ? null : value;
      }
    }
    return out;
  };
  return Array.isArray(data) ? (data as Record<string, unknown>[]).map(project) : project(data as Record<string, unknown>);
}

function colorStatus(c: ChalkInstance, status: string): string {
  switch (status) {
    case 'filled':
    case 'open':
    case 'done':
      return c.green(status);
    case 'failed':
    case 'disabled':
    case 'rejected':
      return c.red(status);
    case 'submitted':
    case 'submitting':
    case 'pending':
    case 'planned':
      return c.yellow(status);
    case 'unknown':
      return c.yellow.bold(status);
    case 'closed':
    case 'abandoned':
      return c.dim(status);
    default:
      return status;
  }
}
