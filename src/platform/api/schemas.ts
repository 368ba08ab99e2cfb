import * as z from 'zod/mini';
import { en } from 'zod/locales';

import { readNumber } from '../../core/number-format.js';
import { SIDES } from '../../core/vocabulary.js';
import { asUtc } from './wire/fields.js';
import { isObject } from '../../core/objects.js';

// zod/mini: the same checks as classic zod, with less of zod loaded and run by every request command.
z.config(en());

/** A numeric string read as its number; anything else is left for the schema to judge. */
const numericText = (value: unknown) => readNumber(value) ?? value;

const money = z.pipe(z.transform(numericText), z.number());
const integer = z.pipe(z.transform(numericText), z.int());
/** `buy`/`sell` in any case: what hedge acts on must be one of the two. */
const side = z.pipe(
  z.transform((value) => (typeof value === 'string' ? value.toLowerCase() : value)),
  z.enum(SIDES),
);

const timestamp = z.pipe(z.string(), z.transform(asUtc));
/** Text or a time, missing or null. */
const optionalText = z.nullish(z.string());
const optionalTime = z.nullish(timestamp);
/** The spec lists five statuses; a server may have more (a transient one while a close settles). */
const status = z.string().check(z.minLength(1));
const perSide = z.looseObject({ buy: money, sell: money });

export const envelopeSchema = z.looseObject({
  data: z.unknown(),
  error: z.nullish(
    z.looseObject({
      code: z.string(),
      message: z.string(),
      // Its contents are not shown: an odd shape must not cost the operator the error code.
      details: z.optional(
        z.pipe(
          z.unknown(),
          z.transform((details) => (details == null ? {} : isObject(details) ? details : { value: details })),
        ),
      ),
    }),
  ),
  // Request context only: a meta that is not an object is read as none rather than refused.
  meta: z.pipe(
    z.unknown(),
    z.transform((meta) => (isObject(meta) ? meta : {})),
  ),
});

export const marketSchema = z.looseObject({
  market: z.string(),
  status,
  price: money,
  available_capacity_usd: perSide,
  net_rate_daily_pct: perSide,
});

export const quoteSchema = z.looseObject({
  market: z.string(),
  side,
  notional_usd: money,
  tenor_days: integer,
  maturity: timestamp,
  pricing: z.looseObject({
    market_price: money,
    execution_price: money,
    price_impact_usd: money,
  }),
  carry: z.looseObject({
    daily_usdc: money,
    daily_rate_pct: money,
    total_usdc: money,
    total_rate_pct: money,
  }),
  upfront: z.looseObject({
    required_margin_usdc: money,
    platform_fee_usdc: money,
    total_upfront_usdc: money,
  }),
});

export const hedgeSchema = z.looseObject({
  id: z.string(),
  client_reference: optionalText,
  market: z.string(),
  side,
  notional_usd: money,
  tenor_days: integer,
  status,
  order_tx_hash: optionalText,
  fill_tx_hash: optionalText,
  struck_rate: z.nullish(money),
  units: z.nullish(money),
  order_key: optionalText,
  opened_at: optionalTime,
  filled_at: optionalTime,
  maturity_at: optionalTime,
});

/** POST /hedges: `status`, `order_tx_hash` and `hedge_id` are all the spec promises. */
export const openedHedgeSchema = z.looseObject({
  hedge_id: z.string(),
  status: z.string(),
  order_tx_hash: optionalText,
});

/** POST /hedges/add|reduce|close: `submitted` with a transaction hash. */
export const submittedActionSchema = z.looseObject({
  status: z.string(),
  order_tx_hash: optionalText,
  hedge_id: optionalText,
});

// Positions, account and history: the spec names only these fields.
export const positionSchema = z.looseObject({
  net_margin_usd: money,
});

export const accountSchema = z.looseObject({
  balance_usdc: money,
  available_exposure_usd: money,
});

export const historyRecordSchema = z.looseObject({
  net_pnl_usd: money,
});

export type Market = z.infer<typeof marketSchema>;
export type Quote = z.infer<typeof quoteSchema>;
export type Hedge = z.infer<typeof hedgeSchema>;
export type OpenedHedge = z.infer<typeof openedHedgeSchema>;
export type SubmittedAction = z.infer<typeof submittedActionSchema>;
export type Position = z.infer<typeof positionSchema>;

export type HistoryRecord = z.infer<typeof historyRecordSchema>;
