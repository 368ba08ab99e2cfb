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
import { changeNotionalBody, PAGE_SIZE_PARAM, parsePrices, PRICE_SYMBOLS_SEPARATOR, type PriceQuote } from './unspecified.js';

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

export class HedgeClient {
  readonly transport: Transport;

  constructor(transport: Transport) {
    this.transport = transport;
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
    return result.data;
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
    const query = markets.length ? { symbols: markets.join(PRICE_SYMBOLS_SEPARATOR) } : undefined;
    const response = await this.transport.send({ method: 'GET', path: '/prices', query });
    const prices = parsePrices(response.data, markets);
    if (!prices) {
      throw new InvalidResponseError(`GET /prices answered HTTP ${response.status} with no price that could be read.`, {
        endpoint: 'GET /prices',
        status: response.status,
      });
    }
    return prices;
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
    return { method: 'POST', path: '/hedges/add', body: changeNotionalBody(body.market, body.side, body.notional_usd), idempotencyKey };
  }

  addToHedge(body: ChangeRequest, idempotencyKey: string): Promise<SubmittedAction> {
    return this.call(submittedActionSchema, this.planAdd(body, idempotencyKey));
  }

  planReduce(body: ChangeRequest, idempotencyKey: string): ApiRequest {
    return {
      method: 'POST',
      path: '/hedges/reduce',
      body: changeNotionalBody(body.market, body.side, body.notional_usd),
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
    return this.call(hedgeSchema.array(), {
      method: 'GET',
      path: '/hedges',
      query: { status: query.status, client_reference: query.clientReference, [PAGE_SIZE_PARAM]: query.limit },
    });
  }

  /** GET /hedges/{id} */
  getHedge(id: string): Promise<Hedge> {
    return this.call(hedgeSchema, { method: 'GET', path: `/hedges/${encodeURIComponent(id)}` });
  }

  /** GET /hedges/history — newest first. */
  listHistory(query: { limit?: number } = {}): Promise<HistoryRecord[]> {
    return this.call(historyRecordSchema.array(), {
      method: 'GET',
      path: '/hedges/history',
      query: { [PAGE_SIZE_PARAM]: query.limit },
    });
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
