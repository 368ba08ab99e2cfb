import * as z from 'zod/mini';
import { en } from 'zod/locales';

import { isNumericText } from '../../core/number-format.js';
import { SIDES } from '../../core/vocabulary.js';
import type { AccountFacts, MarketFacts } from '../../core/wire.js';
import { asUtc, isObject } from './wire/fields.js';

// zod/mini: the same checks as classic zod, with less of zod loaded and run by every request command.
z.config(en());

export type { Side, Tenor } from '../../core/vocabulary.js';

/** A numeric string read as its number; anything else is left for the schema to judge. */
const numericText = (value: unknown) => (typeof value === 'string' && isNumericText(value) ? Number(value) : value);

interface FieldReaders {
  money: z.ZodMiniType<number>;
  integer: z.ZodMiniType<number>;
  /** `buy`/`sell` in any case: what hedge acts on must be one of the two. */
  side: z.ZodMiniType<(typeof SIDES)[number]>;
}

const TOLERANT: FieldReaders = {
  money: z.pipe(z.transform(numericText), z.number()),
  integer: z.pipe(z.transform(numericText), z.int()),
  side: z.pipe(
    z.transform((value) => (typeof value === 'string' ? value.toLowerCase() : value)),
    z.enum(SIDES),
  ),
};

/** Built on first use: a command that reads nothing never pays for them. */
let exactReaders: FieldReaders | undefined;
const exact = () => (exactReaders ??= { money: z.number(), integer: z.int(), side: z.enum(SIDES) });

const exactTwins = new WeakMap<object, () => z.ZodMiniType>();

/** A resource schema read tolerantly, with its exact twin built (on first use) from the same definition. */
function resource<T extends z.ZodMiniType>(define: (read: FieldReaders) => T) {
  const schema = define(TOLERANT);
  let twin: T | undefined;
  exactTwins.set(schema, () => (twin ??= define(exact())));
  return schema;
}

const exactTwin = (schema: z.ZodMiniType) => exactTwins.get(schema)?.();

type Reading<T> = z.core.util.SafeParseResult<T>;

/** One record (or any value) read by `schema`: exactly if it can be, else tolerantly. */
export function readRecord<S extends z.ZodMiniType>(schema: S, data: unknown) {
  const fast = exactTwin(schema)?.safeParse(data);
  return (fast?.success ? fast : schema.safeParse(data)) as Reading<z.infer<S>>;
}

/** A list of records read one by one, exactly while they can be. */
export function readRows<S extends z.ZodMiniType>(schema: S, rows: readonly unknown[]): Reading<Array<z.infer<S>>> {
  // A server writes a page one way: once a record needs the tolerant reading, the rest get it first.
  let twin = exactTwin(schema);
  const read: Array<z.infer<S>> = [];
  for (const row of rows) {
    let result = twin?.safeParse(row);
    if (!result?.success) {
      twin = undefined;
      result = schema.safeParse(row);
      if (!result.success) return z.array(schema).safeParse(rows);
    }
    read.push(result.data as z.infer<S>);
  }
  return { success: true, data: read };
}

const timestamp = z.pipe(z.string(), z.transform(asUtc));
/** The spec lists five statuses; a server may have more (a transient one while a close settles). */
const status = z.string().check(z.minLength(1));
const perSide = ({ money }: FieldReaders) => z.looseObject({ buy: money, sell: money });

const errorBodySchema = z.looseObject({
  code: z.string(),
  message: z.string(),
  // Its contents are not shown: an odd shape must not cost the operator the error code.
  details: z.optional(
    z.pipe(
      z.unknown(),
      z.transform((details) =>
        details === null || details === undefined ? {} : isObject(details) ? details : { value: details },
      ),
    ),
  ),
});

export const envelopeSchema = z.looseObject({
  data: z.unknown(),
  error: z.nullish(errorBodySchema),
  // Request context only: a meta that is not an object is read as none rather than refused.
  meta: z.pipe(
    z.unknown(),
    z.transform((meta) => (isObject(meta) ? meta : {})),
  ),
});

export const marketSchema = resource((read) =>
  z.looseObject({
    market: z.string(),
    status,
    price: read.money,
    available_capacity_usd: perSide(read),
    net_rate_daily_pct: perSide(read),
  }),
);

export const quoteSchema = resource((read) =>
  z.looseObject({
    market: z.string(),
    side: read.side,
    notional_usd: read.money,
    tenor_days: read.integer,
    maturity: timestamp,
    pricing: z.looseObject({
      market_price: read.money,
      execution_price: read.money,
      price_impact_usd: read.money,
    }),
    carry: z.looseObject({
      daily_usdc: read.money,
      daily_rate_pct: read.money,
      total_usdc: read.money,
      total_rate_pct: read.money,
    }),
    upfront: z.looseObject({
      required_margin_usdc: read.money,
      platform_fee_usdc: read.money,
      total_upfront_usdc: read.money,
    }),
  }),
);

export const hedgeSchema = resource((read) =>
  z.looseObject({
    id: z.string(),
    client_reference: z.nullish(z.string()),
    market: z.string(),
    side: read.side,
    notional_usd: read.money,
    tenor_days: read.integer,
    status,
    order_tx_hash: z.nullish(z.string()),
    fill_tx_hash: z.nullish(z.string()),
    struck_rate: z.nullish(read.money),
    units: z.nullish(read.money),
    order_key: z.nullish(z.string()),
    opened_at: z.nullish(timestamp),
    filled_at: z.nullish(timestamp),
    maturity_at: z.nullish(timestamp),
  }),
);

/** POST /hedges: `status`, `order_tx_hash` and `hedge_id` are all the spec promises. */
export const openedHedgeSchema = z.looseObject({
  hedge_id: z.string(),
  status: z.string(),
  order_tx_hash: z.nullish(z.string()),
});

/** POST /hedges/add|reduce|close: `submitted` with a transaction hash. */
export const submittedActionSchema = z.looseObject({
  status: z.string(),
  order_tx_hash: z.nullish(z.string()),
  hedge_id: z.nullish(z.string()),
});

// Positions, account and history: the spec names only these fields.
export const positionSchema = resource((read) =>
  z.looseObject({
    net_margin_usd: read.money,
  }),
);

export const accountSchema = resource((read) =>
  z.looseObject({
    balance_usdc: read.money,
    available_exposure_usd: read.money,
  }),
);

export const historyRecordSchema = resource((read) =>
  z.looseObject({
    net_pnl_usd: read.money,
  }),
);

export type Market = z.infer<typeof marketSchema>;
export type Quote = z.infer<typeof quoteSchema>;
export type Hedge = z.infer<typeof hedgeSchema>;
export type OpenedHedge = z.infer<typeof openedHedgeSchema>;
export type SubmittedAction = z.infer<typeof submittedActionSchema>;
export type Position = z.infer<typeof positionSchema>;
export type Account = z.infer<typeof accountSchema>;

// What these answers are read into for the rules (domain/wire.ts).
type Fits<Read extends Facts, Facts> = Read;
export type AnswersAsFacts = [Fits<Market, MarketFacts>, Fits<Account, AccountFacts>];
export type HistoryRecord = z.infer<typeof historyRecordSchema>;
