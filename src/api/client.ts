// One typed method per endpoint of the spec (§4). Each reads the envelope through the transport
// and validates `data` with zod; what a schema does not name passes through untouched.
import type { z } from 'zod';
import { InvalidResponseError } from '../errors.js';
import {
  accountSchema,
  hedgeSchema,
  historyRecordSchema,
  marketSchema,
  openedHedgeSchema,
  positionSchema,
  quoteSchema,
  submittedActionSchema,
  type Account,
  type Hedge,
  type HedgeStatus,
  type HistoryRecord,
  type Market,
  type OpenedHedge,
  type Position,
  type Quote,
  type Side,
  type SubmittedAction,
} from './schemas.js';
import type { ApiRequest, ApiResponse, Transport } from './transport.js';
import { ApiError } from '../errors.js';
import { changeNotionalBody, DEFAULT_WIRE_SETTINGS, MAX_PAGE_SIZE, parsePrices, PRICE_SYMBOLS_SEPARATOR, WIRE_SETTING_SOURCES, type PriceQuote, type WireSettings } from './unspecified.js';
import { numberOf } from './read-position.js';

export interface QuoteRequest {
  market: string;
  side: Side;
  notional_usd: number;
  tenor_days: number;
}

export interface OpenRequest extends QuoteRequest {
  client_reference?: string;
}

export interface SideRequest {
  market: string;
  side: Side;
}

export interface ChangeRequest extends SideRequest {
  notional_usd: number;
}

export interface ListHedgesQuery {
  status?: HedgeStatus;
  clientReference?: string;
  limit?: number;
}

/** One page of GET /hedges/history (HedgeClient.historyPages). */
export interface HistoryPage {
  records: HistoryRecord[];
  /** What follows: another page; nothing; nothing because the server repeated a cursor. */
  next: 'page' | 'none' | 'repeated';
  /** The server pages this list with cursors: a last page without one is the end of the history. */
  paged: boolean;
}

export interface MarketList {
  markets: Market[];
  allowedMarkets?: string[];
  source?: string;
  meta: Record<string, unknown>;
}

/** Describes a request without sending it (`--dry-run`). */
export interface PlannedRequest extends ApiRequest {
  url: string;
}

export interface ClientOptions {
  wire?: WireSettings;
  /** Something odd about an answer the user should know (a list longer than asked, trimmed). */
  warn?: (text: string) => void;
}

export class HedgeClient {
  readonly transport: Transport;
  readonly wire: WireSettings;
  private readonly warn: (text: string) => void;

  constructor(transport: Transport, options: ClientOptions = {}) {
    this.transport = transport;
    this.wire = options.wire ?? DEFAULT_WIRE_SETTINGS;
    this.warn = options.warn ?? (() => {});
  }

  /** A list call: the page size under its setting's name; longer than asked is trimmed (and said); a refusal names the setting. */
  private async list<S extends z.ZodType>(schema: S, path: string, query: Record<string, string | number | undefined>, limit?: number): Promise<Array<z.infer<S>>> {
    const request: ApiRequest = { method: 'GET', path, query: { ...query, [this.wire.pageSizeParam]: limit } };
    let items: Array<z.infer<S>>;
    try {
      items = (await this.call(schema.array(), request)) as Array<z.infer<S>>;
    } catch (error) {
      if (error instanceof ApiError && error.status === 400 && limit !== undefined) {
        const { env, profileKey } = WIRE_SETTING_SOURCES.pageSizeParam;
        throw error.withHint(
          `The server refused the page-size parameter \`${this.wire.pageSizeParam}\` (its name is not shown in the spec). Set ${env} (or the profile's wire.${profileKey}) to the name it expects.`,
        );
      }
      throw error;
    }
    if (limit !== undefined && items.length > limit) {
      this.warn(`${path} answered ${items.length} records where ${limit} were asked: the server may not know the page-size parameter \`${this.wire.pageSizeParam}\` (set ${WIRE_SETTING_SOURCES.pageSizeParam.env}); showing the first ${limit}.`);
      items = items.slice(0, limit);
    }
    return items;
  }

  /** Reads an add/reduce body back into a request (for `hedge resume`), whatever the notional field's name. */
  changeRequestFromBody(body: Record<string, unknown>): ChangeRequest {
    return {
      market: String(body.market),
      side: body.side as Side,
      notional_usd: numberOf(body[this.wire.changeNotionalField]) ?? numberOf(body.notional_usd) ?? 0,
    };
  }

  private parse<S extends z.ZodType>(schema: S, response: ApiResponse, endpoint: string): z.infer<S> {
    const result = schema.safeParse(response.data);
    if (!result.success) {
      const issue = result.error.issues[0];
      const where = issue?.path.length ? ` at data.${issue.path.join('.')}` : '';
      throw new InvalidResponseError(
        `${endpoint} answered HTTP ${response.status} with data that does not match the contract${where}: ${issue?.message ?? 'invalid'}.`,
        { endpoint, status: response.status, hint: 'The service changed or a proxy altered the answer; run with --verbose and report it.' },
      );
    }
    // The server's data itself, not zod's copy: a loose object's copy puts the named fields first,
    // and --json prints the data in the order it came. (The resource schemas only check; none transforms.)
    return response.data as z.infer<S>;
  }

  private async call<S extends z.ZodType>(schema: S, request: ApiRequest): Promise<z.infer<S>> {
    const response = await this.transport.send(request);
    return this.parse(schema, response, `${request.method} ${request.path}`);
  }

  /** GET /markets */
  async listMarkets(): Promise<MarketList> {
    const request: ApiRequest = { method: 'GET', path: '/markets' };
    const response = await this.transport.send(request);
    const markets = this.parse(marketSchema.array(), response, 'GET /markets');
    const allowed = response.meta.allowed_markets;
    return {
      markets,
      allowedMarkets: Array.isArray(allowed) ? allowed.filter((m): m is string => typeof m === 'string') : undefined,
      source: typeof response.meta.source === 'string' ? response.meta.source : undefined,
      meta: response.meta,
    };
  }

  /** GET /prices?symbols=… — the response shape is not shown; see unspecified.ts. */
  async getPrices(markets: readonly string[]): Promise<PriceQuote[]> {
    return (await this.readPrices(markets)).quotes;
  }

  /** GET /prices: `data` as the server sent it (for --json) and the prices read from it (for people). */
  async readPrices(markets: readonly string[]): Promise<{ data: unknown; quotes: PriceQuote[] }> {
    const query = markets.length ? { [this.wire.pricesParam]: markets.join(PRICE_SYMBOLS_SEPARATOR) } : undefined;
    const response = await this.transport.send({ method: 'GET', path: '/prices', query });
    const quotes = parsePrices(response.data, markets);
    if (!quotes) {
      throw new InvalidResponseError(`GET /prices answered HTTP ${response.status} with no price that could be read.`, {
        endpoint: 'GET /prices',
        status: response.status,
      });
    }
    return { data: response.data, quotes };
  }

  /** POST /quotes — indicative; opens and stores nothing. */
  createQuote(body: QuoteRequest): Promise<Quote> {
    return this.call(quoteSchema, { method: 'POST', path: '/quotes', body });
  }

  planOpen(body: OpenRequest, idempotencyKey: string): ApiRequest {
    return { method: 'POST', path: '/hedges', body: withoutUndefined(body), idempotencyKey };
  }

  /** POST /hedges — returns at `submitted`; poll getHedge for the fill. */
  openHedge(body: OpenRequest, idempotencyKey: string): Promise<OpenedHedge> {
    return this.call(openedHedgeSchema, this.planOpen(body, idempotencyKey));
  }

  planAdd(body: ChangeRequest, idempotencyKey: string): ApiRequest {
    return { method: 'POST', path: '/hedges/add', body: changeNotionalBody(this.wire, body.market, body.side, body.notional_usd), idempotencyKey };
  }

  addToHedge(body: ChangeRequest, idempotencyKey: string): Promise<SubmittedAction> {
    return this.call(submittedActionSchema, this.planAdd(body, idempotencyKey));
  }

  planReduce(body: ChangeRequest, idempotencyKey: string): ApiRequest {
    return {
      method: 'POST',
      path: '/hedges/reduce',
      body: changeNotionalBody(this.wire, body.market, body.side, body.notional_usd),
      idempotencyKey,
    };
  }

  reduceHedge(body: ChangeRequest, idempotencyKey: string): Promise<SubmittedAction> {
    return this.call(submittedActionSchema, this.planReduce(body, idempotencyKey));
  }

  planClose(body: SideRequest, idempotencyKey: string): ApiRequest {
    return { method: 'POST', path: '/hedges/close', body: { market: body.market, side: body.side }, idempotencyKey };
  }

  closeHedge(body: SideRequest, idempotencyKey: string): Promise<SubmittedAction> {
    return this.call(submittedActionSchema, this.planClose(body, idempotencyKey));
  }

  /** GET /hedges — newest first. */
  listHedges(query: ListHedgesQuery = {}): Promise<Hedge[]> {
    return this.list(hedgeSchema, '/hedges', { status: query.status, client_reference: query.clientReference }, query.limit);
  }

  /** GET /hedges/{id} */
  getHedge(id: string): Promise<Hedge> {
    return this.call(hedgeSchema, { method: 'GET', path: `/hedges/${encodeURIComponent(id)}` });
  }

  /** GET /hedges/history — newest first. */
  listHistory(query: { limit?: number } = {}): Promise<HistoryRecord[]> {
    return this.list(historyRecordSchema, '/hedges/history', {}, query.limit);
  }

  /**
   * GET /hedges/history page after page, newest first: pages of `pageSize` (MAX_PAGE_SIZE), each
   * handed over as it comes so that the caller need not hold them all. A page whose `meta`
   * carries `next_cursor` is followed by the one asked for with `cursor=` it. Each page says what
   * comes after it (`next`): another page, nothing (no cursor), or nothing because the server
   * handed a cursor it had handed before (not followed round); and whether it was reached through
   * a cursor (`paged`: then a last page without one is the end of the history).
   */
  async *historyPages(pageSize: number = MAX_PAGE_SIZE): AsyncGenerator<HistoryPage> {
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (;;) {
      const query = { [this.wire.pageSizeParam]: pageSize, ...(cursor === undefined ? {} : { cursor }) };
      const response = await this.transport.send({ method: 'GET', path: '/hedges/history', query });
      const records = this.parse(historyRecordSchema.array(), response, 'GET /hedges/history') as HistoryRecord[];
      const given = response.meta.next_cursor;
      const next = typeof given !== 'string' || given === '' || records.length === 0 ? 'none' : seen.has(given) ? 'repeated' : 'page';
      yield { records, next, paged: cursor !== undefined || next === 'page' };
      if (next !== 'page') return;
      seen.add(given as string);
      cursor = given as string;
    }
  }

  /** GET /positions — at most one line per market and side; empty when flat. */
  listPositions(): Promise<Position[]> {
    return this.call(positionSchema.array(), { method: 'GET', path: '/positions' });
  }

  /** GET /account */
  getAccount(): Promise<Account> {
    return this.call(accountSchema, { method: 'GET', path: '/account' });
  }
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
