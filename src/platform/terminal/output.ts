// The one output layer every command writes through: modes and projection.
import type { ChalkInstance } from 'chalk';
import type { OutputFormat } from '../../core/vocabulary.js';
import { UsageError } from '../../core/errors.js';
import { safeJson, safeStyled, safeText } from '../../core/security/safe-text.js';
import { spreadsheetSafe } from './spreadsheet-cell.js';
import { decimalsOf, formatCell, kindOf, plainValue, rateUnitOf, valueOf } from './cells.js';
import {
  dottedNameExists,
  fieldLabel,
  fieldsByKey,
  keysOf,
  onScreen,
  pickFields,
  unknownFieldProblem,
  valueAtPath,
  withExtraFields,
  type FieldSpec,
} from '../fields/fields.js';
import { checkOutputOptions, declaredName, type OutputFields } from '../fields/output-fields.js';
import { asSent } from '../../core/as-sent.js';
import { forScripts } from '../fields/script-shape.js';
import { asRun, type Invocation } from '../../core/program.js';
import { rankedFor, type Resource } from '../fields/resource-fields.js';
import { drawCard, drawTable, EMPTY_CELL, kindColumn, type TableCell } from './table.js';
import { wrapWords } from './width.js';
import { isObject, type JsonObject } from '../../core/objects.js';

export interface OutputInit {
  /** Unset: a table. */
  format?: OutputFormat;
  chalk: ChalkInstance;
  streams: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream };
  now: () => number;
  columns?: number;
  fields?: readonly string[];
  raw?: boolean;
  query?: (data: unknown) => unknown;
  header?: boolean;
  /** Rows of cells to CSV text (ui/csv.ts, loaded only when --format csv asks for it). */
  csv?: (rows: string[][]) => string;
  stderrColumns?: number;
  /** With a JSON format: where its documents go as values instead of text on stdout: an agent's tool call takes the command's document as it was made, so nothing parses hedge's own --json text back. */
  documents?: unknown[];
  run?: Invocation;
  /** The cards the command shows in the place of its flows' notices that name them, by name (platform/results/cards.ts). */
  cards?: Record<string, (output: Output, facts: never) => void>;
  /** The --fields names checked before the command ran against what it prints (a write's documented fields, ui/output-fields.ts): never refused afterwards; one the data lacks is an empty cell or null. */
  accepted?: ReadonlySet<string>;
  /** The command is a write, whose data is printed once it has sent: a --fields or --query problem is then a warning, never exit 2 (before the send every name was already checked). */
  afterSend?: boolean;
}

interface ListOptions {
  empty: string;
  title?: string;
  omit?: readonly string[];
  totals?: { label: string; shortLabel?: string; row: JsonObject };
  sections?: ReadonlyArray<{ before: number; line: string }>;
  json?: unknown;
  jsonFields?: readonly FieldSpec[];
  /** What people should know about some columns ("Net margin: what closing now would return"): said (dim, on stderr, as one note in this order) under a table that shows one of `columns`, never about a column it left out; a note without `columns` is said under any table; `alone`: as a paragraph of its own. */
  columnNotes?: ReadonlyArray<{ columns?: readonly string[]; text: string; alone?: boolean }>;
  /** When the rows' times are counted from (the server's time they were read at); this machine's by default. */
  nowMs?: number;
  /** What a person reads instead of the table (a view of its own, like doctor's checks): its text, or drawn on the output it is given. */
  people?: (output: Output) => string | Promise<void>;
}

interface RecordOptions {
  title?: string;
  /** Lines under a person's card. */
  footer?: string[];
  json?: unknown;
  /** What a person reads instead of the card: its text, or drawn on the output it is given. */
  people?: (output: Output) => string | void;
  /** The time a relative time ("in 5h 10m") counts from: the server's, for its records' times. */
  nowMs?: number;
}

export class Output {
  readonly format: OutputFormat;
  /** Coarse: whether output is for people, for scripts as text, or JSON. */
  readonly mode: 'table' | 'plain' | 'json';
  readonly chalk: ChalkInstance;
  readonly columns: number;
  readonly raw: boolean;

  constructor(readonly init: OutputInit) {
    this.format = init.format ?? 'table';
    this.mode = this.format === 'table' ? 'table' : this.format.endsWith('json') ? 'json' : 'plain';
    this.chalk = init.chalk;
    this.columns = init.columns ?? 80;
    this.raw = init.raw === true;
  }

  /** The command's own output, made before it runs (runner/run-command.ts) with the cards it shows: --fields and --query checked against what it prints, so that a mistake is exit 2 with nothing sent. */
  forCommand(commandWords: string, declared?: OutputFields, cards?: OutputInit['cards']) {
    const { fields, query } = this.init;
    return new Output({
      ...this.init,
      cards,
      accepted: checkOutputOptions(declared, { fields, query: query !== undefined, json: this.isJson }, commandWords),
      afterSend: declared?.kind === 'records' && declared.sends,
    });
  }

  /** After a send, the exit code says what was sent (docs/exit-codes.md): a --fields or --query that cannot shape the data (a JMESPath function given the wrong type, found only on the data) is said on stderr and the data is printed unshaped, instead of turning the outcome into exit 2. */
  private shapedOrWhole<T>(shape: () => T, whole: T) {
    try {
      return shape();
    } catch (error) {
      if (!this.init.afterSend || !(error instanceof UsageError)) throw error;
      this.warn(
        `${error.message.replace(/\.$/, '')}; the result is printed whole instead — the write was sent, and the exit code says how it ended.`,
      );
      return whole;
    }
  }

  /** Whether a script reads JSON, or (below) a person reads the screen: for prompts and progress; a view hands its data to record, list or document instead. */
  get isJson() {
    return this.mode === 'json';
  }

  get isHuman() {
    return this.mode === 'table';
  }

  /** JSON in hedge's one shape for scripts (the names of docs/output.md, numbers as numbers): a command shows a record read under other names under ours when this is true, as it does for people. */
  get inOneShape() {
    return this.isJson && !this.raw;
  }

  /** A result whose document only a JSON reader gets: `otherwise`, the text (or the view that writes it) of the other formats; `people`, a person's instead of it; none: the command says its result on stderr. */
  document(data: unknown, otherwise?: () => string | void | Promise<void>, people = otherwise) {
    if (this.isJson) return this.json(data);
    return this.shown((this.isHuman ? people : otherwise)?.());
  }

  /** A view's text written; a view that drew itself on this output returns nothing (or the promise of its drawing). */
  private shown(text: string | void | Promise<void>) {
    if (typeof text !== 'string') return text;
    this.write(text);
  }

  /** The data under hedge's names however the server names a fact: TSV and CSV head their columns with ours too; only --raw keeps it as sent. */
  named<T, U>(data: T, rename: (data: T) => U) {
    return this.raw ? data : rename(data);
  }

  /** Every string leaving here passes the untrusted-text filter: our colours pass, nothing else acts on a terminal. */
  write(text: string) {
    const safe = safeStyled(text);
    this.init.streams.stdout.write(safe.endsWith('\n') ? safe : `${safe}\n`);
  }

  /** The data as it came, as valid JSON whose invisible or control characters are written as escapes; --fields keeps only the named keys of each record (in that order), then --query reshapes it. */
  json(data: unknown, known: readonly FieldSpec[] = [], how: { asSent?: boolean } = {}) {
    const shaped = this.shapeJson(data, known, how) ?? null;
    if (this.init.documents) {
      this.init.documents.push(shaped);
      return;
    }
    // ndjson: a line per document of a list (none for an empty one).
    const text =
      this.format === 'ndjson'
        ? [shaped]
            .flat()
            .map((document) => `${safeJson(document ?? null)}\n`)
            .join('')
        : `${safeJson(shaped, 2)}\n`;
    if (text) this.init.streams.stdout.write(text);
  }

  /** Items written as they come, as the elements of a list `indent` deep in a JSON text (between `head` and `tail`), a chunk at a time — never held whole; ndjson: a line each. Undefined when --fields, --query or a caller's documents need the data whole. */
  private streamed(head: string, indent: string, tail: string, shape: (item: unknown) => unknown) {
    if (this.init.fields || this.init.query || this.init.documents) return;
    const ndjson = this.format === 'ndjson';
    let text = '';
    let count = 0;
    const flush = () => {
      if (text) this.init.streams.stdout.write(text);
      text = '';
    };
    return {
      add: (item: unknown) => {
        // JSON.stringify indents each element's lines by two more spaces than its list.
        const json = shape(item) ?? null;
        text += ndjson
          ? `${safeJson(json)}\n`
          : `${count ? ',' : `${head}[`}\n${indent}${safeJson(json, 2).replace(/\n/g, `\n${indent}`)}`;
        count += 1;
        if (text.length >= 65_536) flush();
      },
      end: () => {
        if (!ndjson) text += count ? `\n${indent.slice(2)}]${tail}` : `${head}[]${tail}`;
        flush();
      },
    };
  }

  /** A list written as its items come (history read page by page, never held whole): byte for byte what json() writes for the whole array, in json and ndjson. */
  jsonListWriter(known: readonly FieldSpec[]) {
    return this.isJson ? this.streamed('', '  ', '\n', (item) => this.forJson(item, known)) : undefined;
  }

  /** A JSON document one of whose members is a long list, the list written a piece at a time from `item(index)` instead of being made whole first (the report's cumulative line over 100,000 closes): byte for byte what json() writes for the document with the list in it. */
  jsonWithList(document: JsonObject, key: string, count: number, item: (index: number) => unknown) {
    // The list's place in the document's text, found by a member that can be nothing else (a NUL: no data of a document holds one as text).
    const placeholder = `\u0000hedge-list:${key}`;
    const [head, tail] = safeJson({ ...document, [key]: placeholder }, 2).split(JSON.stringify(placeholder));
    // A member of the document's top level: its elements are indented by four spaces.
    const list =
      this.format === 'json' && tail !== undefined && key in document && count > 0
        ? this.streamed(head, '    ', `${tail}\n`, (element) => element)
        : undefined;
    if (!list) return this.json({ ...document, [key]: Array.from({ length: count }, (_, index) => item(index)) });
    for (let index = 0; index < count; index++) list.add(item(index));
    list.end();
  }

  /** What JSON prints for `data`: the server's data as sent with --raw, else hedge's one shape. */
  private forJson(data: unknown, known: readonly FieldSpec[]) {
    return this.raw ? asSent(data) : forScripts(data, known);
  }

  /** The data shaped as json() shapes it (--fields, then --query), for a caller that wraps it (`--watch` records). */
  shapeJson(data: unknown, known: readonly FieldSpec[], how: { asSent?: boolean } = {}) {
    // One shape whatever the server (numbers as numbers), or with --raw the server's own data.
    const sent = how.asSent ? asSent(data) : this.forJson(data, known);
    const { fields, query } = this.init;
    const picked = fields ? this.shapedOrWhole(() => this.projectFields(sent, fields, known), sent) : sent;
    return query ? this.shapedOrWhole(() => query(picked), picked) : picked;
  }

  /** A line for the operator, on stderr in every format; wrapped at word boundaries when a person reads it (a table on stdout, or stderr a terminal); one line per message for a script. */
  note(text: string) {
    this.noteIn(undefined, text);
  }

  warn(text: string) {
    this.note(this.chalk.yellow(text));
  }

  success(text: string) {
    this.note(this.chalk.green(text));
  }

  /** A success the JSON document states already: said beside text output only. */
  done(text: string) {
    this.textNote(this.chalk.green(text));
  }

  /** A line on stderr beside text output (table, TSV, CSV), never beside a JSON document, which carries the same facts. */
  textNote(text: string) {
    this.noteIn(['table', 'plain'], text);
  }

  /** A view a person reads as a card on stdout, any other reader as one line on stderr (a script's stdout keeps the document). */
  cardOrNote(card: () => string, note?: string) {
    if (this.isHuman) this.write(card());
    else if (note !== undefined) this.note(note);
  }

  /** A line on stderr beside TSV or CSV only: a person's card says it already, a JSON document carries it. */
  plainNote(text: string) {
    this.noteIn(['plain'], text);
  }

  /** A warning beside a script's data (TSV, CSV, JSON): a person's table says it in place. */
  scriptWarn(text: string) {
    if (!this.isHuman) this.warn(text);
  }

  /** A pointer for the person reading a table or card; scripts get none. */
  tableNote(text: string) {
    this.noteIn(['table'], text);
  }

  /** A line on stderr where this output's mode is one of `modes` (undefined: any), every `hedge …` in it written as the user runs hedge; every note, warning and success passes here, the one place a recording output keeps them. */
  noteIn(modes: ReadonlyArray<Output['mode']> | undefined, text: string) {
    if (modes && !modes.includes(this.mode)) return;
    const named = asRun(text, this.init.run ?? {});
    // Wrapped where a person reads it; undefined: one line each, for a script.
    const wrapAt = this.init.stderrColumns ?? (this.isHuman ? this.columns : undefined);
    this.init.streams.stderr.write(`${safeStyled(wrapAt === undefined ? named : wrapWords(named, wrapAt))}\n`);
  }

  /** A list of records: a table fitted to the width, TSV/CSV rows under a header of keys, or the array itself. */
  async list(rows: JsonObject[], known: Resource | readonly FieldSpec[], options: ListOptions) {
    // A resource, or fields alone (kept in their own order when the width is short).
    const resource = 'fields' in known ? known : { fields: [...known], priority: known.map((field) => field.key) };
    if (this.isJson) {
      // NDJSON is a list's rows, a line each, also where --json prints a document of its own.
      const json = this.format === 'ndjson' && !Array.isArray(options.json) ? undefined : options.json;
      // A document of its own (not the rows) knows only its own fields: the table's do not name its keys.
      const rowFields = json === undefined || Array.isArray(json) ? resource.fields : [];
      return this.json(json ?? rows, [...rowFields, ...(options.jsonFields ?? [])]);
    }
    rows = asSent(rows);
    const { totals, columnNotes = [] } = options;
    if (this.mode === 'plain') {
      const fields = this.picked(resource.fields, rows, true);
      // A list of zero rows keeps its header: the columns a script expects, like `[]` in JSON.
      const text = this.rowsText(fields, rows);
      if (text) this.write(text);
      if (!rows.length) this.note(options.empty);
      if (totals && this.format === 'tsv' && rows.length)
        this.note(
          [
            totals.label,
            ...fields.flatMap(({ key }) =>
              totals.row[key] === undefined ? [] : [safeText(`${key}=${plainValue(totals.row[key])}`)],
            ),
          ].join('\t'),
        );
      return;
    }
    if (options.people) return this.shown(await options.people(this));
    if (!rows.length) return this.write(this.chalk.dim(wrapWords(options.empty, this.columns)));
    const fields = this.screenFields(resource.fields, rows, resource.table, options.omit);
    const wanted = this.init.fields;
    // Columns --fields names are all asked for, in its order: each is kept as the desk's are (headers on two lines first).
    const { priority, decisive } = wanted
      ? { priority: wanted, decisive: wanted.length }
      : rankedFor(
          resource,
          rows.map((row) => row.market),
        );
    // A title is wrapped at its words like every other line a person reads (never wider than the terminal).
    if (options.title) this.write(this.chalk.bold(wrapWords(options.title, this.columns)));
    const context = this.cellContext('table', options.nowMs);
    const rateUnit = rateUnitOf(rows);
    const columns = fields.map((field) => {
      // The totals count in the column's decimals (a sum can be more precise than any row).
      const kind = kindOf(field, rows);
      const decimals = decimalsOf(field, totals ? [...rows, totals.row] : rows);
      const total = totals?.row[field.key];
      const cell = (row: JsonObject, value: unknown, absoluteOnly = false) =>
        formatCell(field, value, row, decimals, { ...context, absoluteOnly });
      // Made when the table first needs them: a column that does not fit the width is never formatted.
      let cells: TableCell[] | undefined;
      let compact: TableCell[] | undefined;
      return {
        key: field.key,
        header: safeText(fieldLabel(field, 'header', rateUnit, kind)),
        ...kindColumn(kind, field.wrap ? 'wrap' : field.whole ? 'whole' : undefined),
        total: total === undefined ? EMPTY_CELL : cell(totals!.row, total),
        get cells() {
          return (cells ??= rows.map((row) => cell(row, valueOf(field, row))));
        },
        // A narrower form for a narrow table: the field's own, or a time without its "(in 2d 3h)".
        get compact() {
          const narrower = field.compact;
          if (narrower === undefined && kind !== 'time') return;
          return (compact ??= rows.map((row) => cell(row, narrower ? narrower(row) : valueOf(field, row), !narrower)));
        },
      };
    });
    const { text, hidden, leftOut } = await drawTable({
      columns,
      priority,
      decisive,
      rowCount: rows.length,
      totals: totals && {
        label: safeText(totals.label),
        shortLabel: totals.shortLabel && safeText(totals.shortLabel),
        cells: columns.map((column) => column.total),
      },
      sections: options.sections,
      width: this.columns,
      chalk: this.chalk,
      seeAlso: '--fields or --json',
    });
    this.write(text);
    if (leftOut !== undefined) this.note(this.chalk.dim(leftOut));
    // A note about a column only under a table that shows it.
    const said = columnNotes.filter(
      (note) => !note.columns || note.columns.some((key) => !hidden.includes(key) && fields.some((f) => f.key === key)),
    );
    const together = said.filter((note) => !note.alone).map((note) => note.text);
    if (together.length) this.note(this.chalk.dim(together.join(' ')));
    for (const note of said) if (note.alone) this.note(this.chalk.dim(note.text));
  }

  /** One record: a card, a header row of keys and one row (TSV/CSV), or the object itself. */
  record(record: JsonObject, known: FieldSpec[], options: RecordOptions = {}) {
    if (this.isJson) return this.json(options.json ?? record, options.json === undefined ? known : []);
    record = asSent(record);
    if (this.mode === 'plain') return this.write(this.recordText(record, known));
    if (options.people) return this.shown(options.people(this));
    const fields = this.screenFields(known, [record]);
    const rateUnit = rateUnitOf([record]);
    const context = this.cellContext('card', options.nowMs);
    const rows = fields.map((field): [string, string] => [
      safeText(fieldLabel(field, 'card', rateUnit)),
      formatCell(field, valueOf(field, record), record, decimalsOf(field, [record]), context).styled,
    ]);
    this.write(this.card(rows, options.title, options.footer));
  }

  recordText(record: JsonObject, known: FieldSpec[]) {
    return this.rowsText(this.picked(known, [record], true), [record]);
  }

  /** A card and the lines under it, each wrapped at its words, its `hedge …` as the user runs hedge (as in a note); a row without a text (a fact not known) is left out. */
  card(rows: ReadonlyArray<readonly [string, unknown]>, title?: string, footer: readonly string[] = []) {
    return [
      drawCard(
        rows.filter((row): row is [string, string] => typeof row[1] === 'string'),
        { columns: this.columns, chalk: this.chalk, title },
      ),
      ...footer.map((line) => wrapWords(asRun(line, this.init.run ?? {}), this.columns)),
    ].join('\n');
  }

  /** `nowMs`: when a time's "(in 2d 3h)" is measured from (this output's clock unless given). */
  humanValue(field: Pick<FieldSpec, 'key' | 'kind'>, value: unknown, nowMs?: number) {
    const spec = field as FieldSpec;
    return formatCell(spec, value, {}, decimalsOf(spec, [{ [field.key]: value }]), this.cellContext('card', nowMs))
      .styled;
  }

  private cellContext(where: 'table' | 'card', nowMs = this.init.now()) {
    return { chalk: this.chalk, nowMs, where };
  }

  /** What a person sees: --fields names any field there is (one left out of the table by default included); without it, the fields in their `table` order, then what the server sent that nobody named (sorted). */
  private screenFields(
    known: FieldSpec[],
    rows: JsonObject[],
    table?: readonly string[],
    omit: readonly string[] = [],
  ) {
    const shown = onScreen(known);
    if (this.init.fields) return this.picked(shown, rows);
    const order = table ?? keysOf(shown);
    return withExtraFields(
      order.flatMap((key) => shown.filter((field) => field.key === key)),
      rows,
      [...keysOf(shown.filter((field) => !order.includes(field.key))), ...omit],
    );
  }

  /** --fields applied to every field there is (one left out of the table by default included); `plain`: but those only people see (TSV and CSV's columns). An unknown name is bad usage (exit 2). */
  private picked(known: FieldSpec[], rows: JsonObject[], plain = false) {
    const all = withExtraFields(known, rows, [], true);
    const available = plain ? all.filter((field) => !field.screenOnly) : all;
    if (!this.init.fields) return available;
    const picked = pickFields(available, this.init.fields, rows, this.init.accepted);
    if (!('problem' in picked)) return picked.fields;
    return this.shapedOrWhole(() => {
      throw new UsageError(picked.problem);
    }, available);
  }

  private rowsText(fields: FieldSpec[], rows: JsonObject[]) {
    return this.cellsText([
      ...(this.init.header === false ? [] : [fields.map((field) => field.key)]),
      ...rows.map((row) => fields.map((field) => plainValue(valueOf(field, row)))),
    ]);
  }

  /** Rows of cells as CSV or TSV text, as this output's format says; names and values alike are escaped cell by cell (spreadsheetSafe), by the CSV encoder too. */
  cellsText(table: string[][]) {
    if (this.format === 'csv') {
      if (!this.init.csv) throw new Error('CSV output needs its encoder (ui/csv.ts).');
      return this.init.csv(table).replace(/\n$/, '');
    }
    return table.map((cells) => cells.map(spreadsheetSafe).join('\t')).join('\n');
  }

  /** --fields on JSON data: each record keeps only the named keys, in that order (a key a record lacks is null). */
  private projectFields(data: unknown, wanted: readonly string[], known: readonly FieldSpec[]) {
    const { accepted } = this.init;
    const records = [data].flat() as JsonObject[];
    if (!records.every(isObject))
      throw new UsageError('--fields: this output is not a record or a list of records; use --query to shape it.');
    const computed = fieldsByKey(known.filter((field) => !field.screenOnly));
    const available = new Set([...computed.keys(), ...records.flatMap(Object.keys)]);
    for (const name of wanted) {
      // A name checked before the run (a write's documented field) that this answer lacks is null.
      if (
        !available.has(name) &&
        !(accepted && declaredName(name, accepted)) &&
        !dottedNameExists(name, available, records)
      )
        throw new UsageError(unknownFieldProblem(name, [...available]));
    }
    const project = (record: JsonObject) => {
      const out: JsonObject = {};
      for (const name of wanted) {
        const field = computed.get(name);
        if (available.has(name) || !name.includes('.'))
          out[name] = Object.hasOwn(record, name) ? record[name] : ((field && valueOf(field, record)) ?? null);
        else {
          // Sets the value at the dotted path, making the objects on the way.
          const path = name.split('.');
          const last = path.pop()!;
          let node = out;
          for (const segment of path) {
            const next = node[segment];
            // A copy: an object taken whole from the record (`--fields pricing,pricing.x`) is the server's own.
            node = node[segment] = isObject(next) ? { ...next } : {};
          }
          node[last] = valueAtPath(record, name) ?? null;
        }
      }
      return out;
    };
    return Array.isArray(data) ? data.map(project) : project(data as JsonObject);
  }
}
