// One typed method per endpoint of the spec (§4): the one reading layer.
import * as z from 'zod/mini';
import { rememberSent } from '../../core/as-sent.js';
import { MAX_PAGE_SIZE } from '../../core/wire.js';
import type { Side } from '../../core/vocabulary.js';
import { ApiError, InvalidResponseError, NetworkError } from '../../core/errors.js';
import { findRows, followPages, PAGE_SIZE_NAMES, type PageReading, type Query } from './wire/pages.js';
import {
  accountSchema,
  hedgeSchema,
  historyRecordSchema,
  marketSchema,
  openedHedgeSchema,
  positionSchema,
  quoteSchema,
  submittedActionSchema,
} from './schemas.js';
import {
  createTransport,
  DEFAULT_RETRY_POLICY,
  memo,
  type ApiRequest,
  type ApiResponse,
  type RetryPolicy,
  type SendHooks,
  type Transport,
  type TransportConfig,
} from './transport.js';
import type { ResolvedCredentials } from '../config/credentials.js';
import type { Env } from '../config/env.js';
import { parseDecimal } from '../../core/input.js';
import { VERSION } from '../../core/version.js';
import {
  CHANGE_BODY_FIELDS,
  DEFAULT_WIRE_SETTINGS,
  namesIn,
  NO_PAGE_SIZE,
  refusedField,
  wireHint,
  type WireSettings,
} from './wire/unspecified.js';
import { historyRowKey, parsePrices } from './wire/fields.js';
import { isNumericText, readNumber } from '../../core/number-format.js';
import { isObject, withoutUndefined, type JsonObject } from '../../core/objects.js';

export interface SideRequest {
  market: string;
  side: Side;
}

export interface OpenRequest extends SideRequest {
  notional_usd: number;
  tenor_days: number;
  client_reference?: string;
}

interface ChangeRequest extends SideRequest {
  notional_usd: number;
  /** The amount's name in the journaled body a resume sends again: its key goes with that body, whatever is set now. */
  journaled_as?: string;
}

interface ListHedgesQuery {
  /** One of the spec's five, or a status the server has beyond them. */
  status?: string;
  clientReference?: string;
  limit?: number;
  /** A list short of `limit` whose last page says nothing on paging is checked for being one of more (a page of one asked). */
  checkCut?: boolean;
  /** Ask one row more than `limit`: a page that honours its size but says nothing of paging still shows more exist. */
  lookAhead?: boolean;
}

/** One page of the history: its records; what follows (another page, nothing, or nothing because the server repeated
 * a cursor or gave too many empty pages in a row); `paged`: the server pages it with cursors (a last page without one is the end); `more`: the server says
 * more exist (a has_more, a marker hedge could not send back); `mayBeCut`: as the last page, whether it may be one of
 * more though it says nothing on paging (lists' `cutAt`). */
export type HistoryPage = HedgeClient['historyPages'] extends () => AsyncGenerator<infer P> ? P : never;

/** A wire name hedge learned from the server: a refusal that named it, or its answers. */
export interface LearnedWire {
  setting: keyof WireSettings;
  value: string;
  evidence: string;
}

interface ClientOptions {
  wire?: WireSettings;
  /** Something odd about an answer the user should know (a list longer than asked, trimmed). */
  warn?: (text: string) => void;
  /** Called when a wire name is learned (the runtime keeps it in the profile and says so once). */
  learn?: (learned: LearnedWire) => void;
  /** The page-size name was learned from this server: it reads it, so a short last page under it is the whole list. */
  pageSizeLearned?: boolean;
  /** Markets and hedge ids a read saw (`marketsList`: the markets list itself), for shell completion. */
  seen?: (words: { marketsList?: string[]; markets?: string[]; hedges?: string[] }) => void;
}

/** The four writes, each with the schema its answer is read by: POST /hedges for an open (stamped with its
 * `opened_at`), else POST /hedges/<kind>. */
const WRITES = {
  open: openedHedgeSchema,
  add: submittedActionSchema,
  reduce: submittedActionSchema,
  close: submittedActionSchema,
};

type Write = keyof typeof WRITES;
type Filters = Record<string, string | undefined>;
type Sent = Record<string, string | number>;

/** One typed method per endpoint over `transport`; `wire`: the names in use, as set and as learned from now on. */
export function hedgeClient(transport: Transport, options: ClientOptions) {
  let wire: WireSettings = { ...(options.wire ?? DEFAULT_WIRE_SETTINGS) };
  const learnedKeys = new Set<string>();
  let pageSizeLearned = options.pageSizeLearned === true;
  const honours = new Map<string, Promise<boolean>>();

  /** Uses a learned name from now on, and hands it to the runtime to keep (once per name). */
  function learnWire(learned: LearnedWire) {
    const { setting, value } = learned;
    wire = { ...wire, [setting]: value };
    if (setting === 'pageSizeParam') pageSizeLearned = true;
    const key = `${setting}=${value}`;
    if (learnedKeys.has(key)) return;
    learnedKeys.add(key);
    options.learn?.(learned);
  }

  /** What `reading` read of `data` (numeric strings as numbers), linked to the server's own data for output. */
  function checked<T>(
    reading: z.core.util.SafeParseResult<T>,
    data: unknown,
    status: number,
    endpoint: string,
    at = 'data',
  ) {
    if (reading.success) return rememberSent(reading.data, data);
    // zod's first issue as the field, what came there, and what hedge expected.
    const issue = reading.error.issues[0];
    let [value, field] = [data, at];
    for (const key of issue.path) {
      value = (value as never)?.[key];
      field += typeof key === 'number' ? `[${key}]` : `.${String(key)}`;
    }
    let expected = issue.message;
    if (issue.code === 'invalid_type') {
      expected = TYPE_WORDS[issue.expected] ?? issue.expected;
      if (expected === 'a number' && typeof value === 'string' && !isNumericText(value))
        expected = 'a number (or a numeric string)';
    } else if (issue.code === 'invalid_value') {
      expected = `one of ${issue.values.map((option) => JSON.stringify(option)).join(', ')}`;
    } else if (issue.code === 'too_small' && typeof value === 'string') {
      expected = 'non-empty text';
    }
    throw unreadable(endpoint, status, field, value, expected);
  }

  /** The rows of a list answer (an array, or the one array an object carries), each checked. */
  function rows<S extends z.ZodMiniType>(
    schema: S,
    { data, status }: ApiResponse,
    endpoint: string,
    { rows, rowsAt }: Pick<PageReading, 'rows' | 'rowsAt'> = findRows(data),
  ) {
    if (!rows) throw unreadable(endpoint, status, 'data', data, 'a list');
    return checked(z.array(schema).safeParse(rows), rows, status, endpoint, rowsAt);
  }

  function get(path: string, query?: ApiRequest['query']) {
    return transport.send({ method: 'GET', path, query });
  }

  async function call<S extends z.ZodMiniType>(schema: S, request: ApiRequest) {
    const { data, status } = await transport.send(request);
    return checked(schema.safeParse(data), data, status, `${request.method} ${request.path}`);
  }

  /** A list read page by page until `shown` rows (one page without a limit), learning the page-size name on the way. */
  async function list<S extends z.ZodMiniType>(
    schema: S,
    path: string,
    filters: Filters,
    {
      limit: shown,
      checkCut,
      lookAhead,
      rowKey,
    }: ListHedgesQuery & { rowKey?: (row: unknown) => { id?: string; at?: string } },
  ) {
    const endpoint = `GET ${path}`;
    const limit = lookAhead && shown !== undefined ? shown + 1 : shown;
    const items: Array<z.infer<S>> = [];
    const learn = (value: string, evidence: string) =>
      learnWire({ setting: 'pageSizeParam', value, evidence: `${endpoint} ${evidence}` });
    let pages = 0;
    let reading!: PageReading;
    let ended = 'none';
    let refused = false;
    /** A page-size name an answer stated, tried on the next page; learned once an answer confirms it. */
    let candidate: string | undefined;
    let sent: Sent = {};
    /** The page size the first page was asked at, which pages by number repeat (the stated one beside it); a size
     * repeated so proves no name. */
    let firstSize: Sent = {};
    let repeated = false;
    const fetchPage = async (query: Query, again: number, sameSize: boolean) => {
      for (;;) {
        repeated = sameSize;
        sent = sameSize
          ? { ...firstSize, ...query }
          : withPageSize(query, limit === undefined ? undefined : limit - items.length + again);
        const asked = wire.pageSizeParam;
        if (pages === 0) firstSize = asked in sent ? { [asked]: sent[asked] } : {};
        try {
          return await get(path, sent);
        } catch (error) {
          // A 400 naming the page-size parameter hedge sent: asked again once, with the name it offers or none.
          const name = wire.pageSizeParam;
          if (!(error instanceof ApiError) || error.status !== 400 || refusedField(error) !== name || !(name in sent))
            throw error;
          if (refused || error.ambiguous)
            throw error.withHint(
              `The server refused the page-size parameter \`${name}\` (its name is not shown in the spec). ${wireHint('pageSizeParam')}`,
            );
          refused = true;
          const offered = namesIn(error.details).find((other) => other !== name && PAGE_SIZE_NAMES.includes(other));
          transport.log(
            `${endpoint} refused ${name} and names ${offered ? `${offered}: asking again with it` : 'no other page-size parameter: asking again without one'}`,
          );
          if (offered) wire = { ...wire, pageSizeParam: offered };
          else learn(NO_PAGE_SIZE, `refused the page-size parameter \`${name}\` and named no other`);
        }
      }
    };
    for await (const page of followPages(
      fetchPage,
      withoutUndefined(filters) as Query,
      wire.cursorParam || undefined,
      rowKey,
    )) {
      pages += 1;
      ({ reading, next: ended } = page);
      items.push(...rows(schema, page.answer, endpoint, reading));
      const { pageSizeParam } = wire;
      // The name the refusal gave worked: keep it.
      if (refused && pages === 1 && pageSizeParam !== NO_PAGE_SIZE)
        learn(pageSizeParam, `refused the page-size parameter hedge sent and named \`${pageSizeParam}\``);
      // A page-size name an answer states (`meta.page_size: 20`) other than ours is tried on the next page.
      const stated = reading.statedPageSize;
      if (stated && candidate === stated.name && !repeated && String(sent[candidate]) === String(stated.value)) {
        learn(candidate, `states its page size as \`${candidate}\` and honoured it`);
        candidate = undefined;
      } else if (stated && !candidate && stated.name !== pageSizeParam) {
        transport.log(
          `${endpoint}: the answer states its page size as ${stated.name}=${stated.value}; trying ${stated.name} for the next page`,
        );
        wire = { ...wire, pageSizeParam: (candidate = stated.name) };
      }
      // The walk itself ends after a last page.
      if (items.length >= Math.min(limit ?? 0, reading.total ?? Infinity)) break;
    }
    // A total the server states is its own count: reached, no page after it holds more.
    let more = reading.total === undefined ? reading.more === true : items.length < reading.total;
    if (shown !== undefined && items.length > shown) {
      if (pages === 1 && items.length > limit! && wire.pageSizeParam !== NO_PAGE_SIZE)
        options.warn?.(
          `${path} answered ${items.length} records where ${limit} were asked: the server may not know the page-size parameter \`${wire.pageSizeParam}\`; showing the first ${shown}. ${wireHint('pageSizeParam')}`,
        );
      items.length = shown;
      more = true;
    }
    // Also handed over, for a reader to whom a cut matters only sometimes (one more request when it cannot tell).
    const cutCheck = () => mayBeCut(path, filters, sent, reading, ended);
    // A look-ahead that came back exactly as long as shown may be the server's own page size, our size ignored.
    const unsure = checkCut ? items.length < (shown ?? 0) : lookAhead && items.length === shown;
    const cut = unsure && !more && (await cutCheck());
    return { items, more, total: reading.total, ...(cut && { cutAt: items.length }), mayBeCut: cutCheck };
  }

  /** Whether a last page with no word on paging may be one of more: it is as long as asked, or the server ignores the
   * size (a page of one asked; a name learned from it is one it reads). */
  async function mayBeCut(path: string, filters: Filters, sent: Sent, reading: PageReading, ended: string) {
    const name = wire.pageSizeParam;
    const rows = reading.rows?.length ?? 0;
    const silent = ended === 'none' && reading.more === undefined && reading.total === undefined;
    if (!silent || pageSizeLearned || rows <= 1 || !(name in sent)) return false;
    if (rows >= Number(sent[name])) return true;
    // Asked once a command: whether the server reads the page size does not change between its reads. Whether a list
    // answers one row when one is asked under `name` (as `hedge doctor` checks): a refused, unreadable or unreachable
    // answer cannot tell, and the list already read is still given, with the warning that it may be cut.
    const reads = memo(honours, [path, filters, name], () =>
      get(path, { ...filters, [name]: 1 }).then(
        ({ data }) => (findRows(data).rows?.length ?? 0) <= 1,
        (error) => {
          if (error instanceof ApiError || error instanceof InvalidResponseError || error instanceof NetworkError)
            return false;
          throw error;
        },
      ),
    );
    return !(await reads);
  }

  /** The page size to ask for under the setting's name (none when the server takes none). */
  function withPageSize(query: Query, remaining: number | undefined) {
    const name = wire.pageSizeParam;
    if (remaining === undefined || name === NO_PAGE_SIZE || name in query) return query;
    return { ...query, [name]: Math.max(1, Math.min(MAX_PAGE_SIZE, remaining)) };
  }

  /** A write's request as journaled: an add's or reduce's amount under the server's name for it (wire settings). */
  function plan(kind: Write, body: OpenRequest | ChangeRequest | SideRequest, idempotencyKey: string): ApiRequest {
    const { market, side, journaled_as, notional_usd } = body as ChangeRequest;
    const sent =
      kind === 'open'
        ? withoutUndefined(body)
        : kind === 'close'
          ? { market, side }
          : { market, side, [journaled_as ?? wire.changeNotionalField]: notional_usd };
    return { method: 'POST', path: kind === 'open' ? '/hedges' : `/hedges/${kind}`, body: sent, idempotencyKey };
  }

  async function readHedges(query: ListHedgesQuery) {
    const read = await list(
      hedgeSchema,
      '/hedges',
      { status: query.status, client_reference: query.clientReference },
      // Each hedge once by its id, however the pages moved while they were read.
      { ...query, rowKey: (raw) => ({ id: isObject(raw) && typeof raw.id === 'string' ? raw.id : undefined }) },
    );
    sawHedges(read.items);
    return read;
  }

  function sawHedges(hedges: ReadonlyArray<{ id?: unknown; market?: unknown }>) {
    const texts = (values: unknown[]) => values.filter((value): value is string => typeof value === 'string');
    options.seen?.({
      hedges: texts(hedges.map((hedge) => hedge.id)),
      markets: texts(hedges.map((hedge) => hedge.market)),
    });
  }

  function readHistory(query: Omit<ListHedgesQuery, 'status' | 'clientReference'>) {
    return list(historyRecordSchema, '/hedges/history', {}, { ...query, rowKey: historyRowKey });
  }

  return {
    transport,
    get wire() {
      return wire;
    },
    learnWire,
    plan,
    readHedges,
    readHistory,

    /** Reads an add/reduce body back into a request (for `hedge resume`), whatever the amount's name. */
    changeRequestFromBody(body: JsonObject) {
      const amountKey = [
        wire.changeNotionalField,
        'notional_usd',
        ...Object.keys(body).filter((key) => !CHANGE_BODY_FIELDS.has(key)),
      ].find((key) => readNumber(body[key]) !== undefined);
      return {
        market: String(body.market),
        side: body.side as Side,
        notional_usd: readNumber(body[amountKey!]) ?? 0,
        journaled_as: amountKey,
      };
    },

    async listMarkets() {
      const markets = rows(marketSchema, await get('/markets'), 'GET /markets');
      options.seen?.({ marketsList: markets.map((market) => market.market) });
      return { markets };
    },

    /** GET /prices?symbols=… (its shape is not shown; see unspecified.ts): `data` as the server sent it (for --json) and the prices read from it (for people). */
    async readPrices(markets: readonly string[]) {
      const { pricesParam } = wire;
      const query = markets.length ? { [pricesParam]: markets.join(',') } : undefined;
      const { data, status } = await get('/prices', query).catch((error) => {
        // A refusal naming the market parameter is about its name (not shown beyond `symbols`).
        throw error instanceof ApiError && error.status === 400 && query && refusedField(error) === pricesParam
          ? error.withHint(`The server refused the prices parameter \`${pricesParam}\`. ${wireHint('pricesParam')}`)
          : error;
      });
      const quotes = parsePrices(data, markets);
      if (quotes) return { data, quotes };
      const shown = received(data);
      return {
        data,
        quotes: [],
        problem: new InvalidResponseError(
          `GET /prices answered HTTP ${status} with no price hedge could read: data is ${shown}.`,
          {
            endpoint: 'GET /prices',
            status,
            field: 'data',
            received: shown,
            hint: `The prices shape is not shown in the spec and this one is new to hedge; the data is shown as it came (\`hedge price --raw\`). \`hedge doctor\` shows the shape detected; report it with --verbose.`,
          },
        ),
      };
    },

    /** POST /quotes — indicative; opens and stores nothing. */
    createQuote(body: Omit<OpenRequest, 'client_reference'>) {
      return call(quoteSchema, { method: 'POST', path: '/quotes', body });
    },

    /** POST /hedges returns at `submitted` (poll getHedge for the fill); add, reduce and close at `submitted` too. */
    send(kind: Write, body: OpenRequest | ChangeRequest | SideRequest, idempotencyKey: string, hooks?: SendHooks) {
      return call(WRITES[kind], {
        ...plan(kind, body, idempotencyKey),
        ...hooks,
        stampedBy: kind === 'open' ? 'opened_at' : undefined,
      });
    },

    /** GET /hedges — newest first, up to `limit` (across pages). */
    async listHedges(query: ListHedgesQuery = {}) {
      return (await readHedges(query)).items;
    },

    async getHedge(id: string) {
      const hedge = await call(hedgeSchema, { method: 'GET', path: `/hedges/${encodeURIComponent(id)}` });
      sawHedges([hedge]);
      return hedge;
    },

    /** GET /hedges/history — newest first, up to `limit` (across pages). */
    async listHistory(query: { limit?: number }) {
      return (await readHistory(query)).items;
    },

    /** GET /hedges/history page after page, each handed over as it comes (never held whole). */
    async *historyPages() {
      const path = '/hedges/history';
      let sent: Sent = {};
      let pages = 0;
      for await (const { answer, reading, next } of followPages(
        (query) => get(path, (sent = withPageSize(query, MAX_PAGE_SIZE))),
        {},
        wire.cursorParam || undefined,
        historyRowKey,
      )) {
        const records = rows(historyRecordSchema, answer, `GET ${path}`, reading);
        const paged = pages++ > 0 || next === 'page';
        // An empty page that names a next one is not the end (a run of them too long is cut: `empty-run`).
        if (!records.length && next === 'page') continue;
        const asked = sent;
        yield {
          records,
          next,
          paged,
          more: reading.more,
          mayBeCut: () => mayBeCut(path, {}, asked, reading, next),
        };
      }
    },

    /** GET /positions — at most one line per market and side; empty when flat. */
    async listPositions() {
      const positions = rows(positionSchema, await get('/positions'), 'GET /positions');
      sawHedges(positions.map((position) => ({ id: position.hedge_id, market: position.market })));
      return positions;
    },

    getAccount() {
      return call(accountSchema, { method: 'GET', path: '/account' });
    },
  };
}

export type HedgeClient = ReturnType<typeof hedgeClient>;

/** How long one request may take unless --request-timeout says otherwise, in seconds. */
export const DEFAULT_REQUEST_TIMEOUT_S = 15;

/** A client over a transport of its own, on connections owned (and closed) by whoever built them: the runtime context. */
export function createClient({
  credentials,
  env,
  timeoutSeconds,
  requestTimeoutSeconds,
  retry,
  ...options
}: ClientOptions &
  Pick<TransportConfig, 'connections' | 'clock' | 'deadline' | 'signal' | 'observe' | 'log'> & {
    credentials: ResolvedCredentials;
    env: Env;
    /** The --timeout the deadline comes from, in seconds (named in timeout errors). */
    timeoutSeconds?: number;
    requestTimeoutSeconds?: number;
    retry?: Partial<RetryPolicy>;
  }) {
  return hedgeClient(
    createTransport({
      ...credentials,
      ...options,
      userAgent: `hedge-cli/${VERSION} (node ${process.version}; ${process.platform})`,
      nodeExtraCaCerts: env.NODE_EXTRA_CA_CERTS || undefined,
      // Exactly as Node reads it.
      tlsChecksOff: env.NODE_TLS_REJECT_UNAUTHORIZED === '0',
      connectTimeoutMs: 5_000,
      requestTimeoutMs: (requestTimeoutSeconds ?? DEFAULT_REQUEST_TIMEOUT_S) * 1000,
      // '' rather than undefined: the transport would otherwise read process.env behind the context's back.
      proxy: {
        httpsProxy: env.HTTPS_PROXY ?? env.https_proxy ?? '',
        httpProxy: env.HTTP_PROXY ?? env.http_proxy ?? '',
        noProxy: env.NO_PROXY ?? env.no_proxy ?? '',
      },
      retry: { ...DEFAULT_RETRY_POLICY, ...retry },
      deadlineTotalMs: timeoutSeconds && timeoutSeconds * 1000,
      maxAnswerBytes: maxAnswerBytes(env),
    }),
    options,
  );
}

/** HEDGE_MAX_ANSWER_MB in bytes, undefined when unset; a value that is not a size in MiB is refused. */
export function maxAnswerBytes(env: Env) {
  const raw = env.HEDGE_MAX_ANSWER_MB;
  if (!raw?.trim()) return;
  return (
    parseDecimal(raw, { name: 'HEDGE_MAX_ANSWER_MB', unit: 'MiB', min: 0, aboveMin: true, max: 4096, example: '64' }) *
    1024 *
    1024
  );
}

/** A value as an error shows it: short JSON and its kind (`"long" (text)`, `5 (a number)`, missing). */
function received(value: unknown) {
  if (value == null) return value === null ? 'null' : 'missing';
  const json = JSON.stringify(value) ?? String(value);
  // JSON's kinds: a boolean is named as itself here, not as what is expected.
  const kind = typeof value === 'boolean' ? 'a boolean' : TYPE_WORDS[Array.isArray(value) ? 'array' : typeof value];
  return `${json.length > 60 ? `${json.slice(0, 57)}…` : json} (${kind})`;
}

const TYPE_WORDS: Record<string, string> = {
  number: 'a number',
  string: 'text',
  object: 'an object',
  array: 'a list',
  boolean: 'true or false',
};

/** An answer hedge cannot read: what came at `field`, where `expected` is expected. */
function unreadable(endpoint: string, status: number, field: string, value: unknown, expected: string) {
  return new InvalidResponseError(
    `${endpoint} answered HTTP ${status} with data hedge cannot read: ${field} is ${received(value)}, where ${expected} is expected.`,
    { endpoint, status, field, received: received(value) },
  );
}
