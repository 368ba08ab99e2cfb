// zod schemas for the envelope and every resource of the spec. They check what hedge needs to act
// safely — ids, sides, and the fields the spec names with their types — and read the rest
// leniently (design.md "Reading the real service"):
//   - a numeric string where a number is expected is read as that number ("99889.00" → 99889);
//     the client keeps the server's own data for display and --json (domain/as-sent.ts);
//   - a status outside the spec's five is kept as it came (not final where hedge waits);
//   - objects are loose: fields the spec does not show are kept and passed through.
// What still fails is a reading problem (exit 14 `unreadable`), naming the field and what came.
import * as z from 'zod';

import { SIDES } from '../domain/vocabulary.js';
import type { AccountFacts, MarketFacts } from '../domain/wire.js';

export { HEDGE_STATUSES, SIDES, TENORS, type HedgeStatus, type Side, type Tenor } from '../domain/vocabulary.js';

/** `12`, `-3.10`, `.5`, `1e3`: what a server may send as a decimal string. */
export const NUMERIC_TEXT = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

/** A numeric string read as its number; anything else is left for the schema to judge. */
const numericText = (value: unknown): unknown => (typeof value === 'string' && NUMERIC_TEXT.test(value) ? Number(value) : value);

/** A finite number, or a numeric string read as one. */
const money = z.preprocess(numericText, z.number().finite());
const integer = z.preprocess(numericText, z.number().int());
const timestamp = z.string();
/** `buy`/`sell` in any case: what hedge acts on must be one of the two. */
const side = z.preprocess((value) => (typeof value === 'string' ? value.toLowerCase() : value), z.enum(SIDES));
/** The spec lists five statuses; a server may have more (a transient one while a close settles). */
const status = z.string().min(1);
const perSide = z.looseObject({ buy: money, sell: money });

export const errorBodySchema = z.looseObject({
  code: z.string(),
  message: z.string(),
  // Its contents are not shown: an odd shape must not cost the operator the error code.
  details: z
    .unknown()
    .transform((details): Record<string, unknown> =>
      details === null || details === undefined ? {} : typeof details === 'object' && !Array.isArray(details) ? (details as Record<string, unknown>) : { value: details },
    )
    .optional(),
});

export const envelopeSchema = z.looseObject({
  data: z.unknown(),
  error: errorBodySchema.nullish(),
  // Request context only: a meta that is not an object is read as none rather than refused.
  meta: z
    .unknown()
    .transform((meta): Record<string, unknown> => (meta !== null && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Record<string, unknown>) : {})),
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
  client_reference: z.string().nullish(),
  market: z.string(),
  side,
  notional_usd: money,
  tenor_days: integer,
  status,
  order_tx_hash: z.string().nullish(),
  fill_tx_hash: z.string().nullish(),
  struck_rate: money.nullish(),
  units: money.nullish(),
  order_key: z.string().nullish(),
  opened_at: timestamp.nullish(),
  filled_at: timestamp.nullish(),
  maturity_at: timestamp.nullish(),
});

// The answers to writes are read loosely: by the time they arrive the server has acted, and an
// unexpected status word must not turn a done deal into an "invalid response".

/** POST /hedges: `status`, `order_tx_hash` and `hedge_id` are all the spec promises. */
export const openedHedgeSchema = z.looseObject({
  hedge_id: z.string(),
  status: z.string(),
  order_tx_hash: z.string().nullish(),
});

/** POST /hedges/add|reduce|close: `submitted` with a transaction hash. */
export const submittedActionSchema = z.looseObject({
  status: z.string(),
  order_tx_hash: z.string().nullish(),
  hedge_id: z.string().nullish(),
});

// Positions, account and history: the spec names only these fields; the rest pass through and
// are read tolerantly (read-position.ts, read-history.ts), never required.
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

export type Envelope = z.infer<typeof envelopeSchema>;
export type Market = z.infer<typeof marketSchema>;
export type Quote = z.infer<typeof quoteSchema>;
export type Hedge = z.infer<typeof hedgeSchema>;
export type OpenedHedge = z.infer<typeof openedHedgeSchema>;
export type SubmittedAction = z.infer<typeof submittedActionSchema>;
export type Position = z.infer<typeof positionSchema>;
export type Account = z.infer<typeof accountSchema>;

// What these answers are read into for the rules (domain/wire.ts): a schema that stopped fitting
// them fails the typecheck here.
type Fits<Read extends Facts, Facts> = Read;
export type AnswersAsFacts = [Fits<Market, MarketFacts>, Fits<Account, AccountFacts>];
export type HistoryRecord = z.infer<typeof historyRecordSchema>;
