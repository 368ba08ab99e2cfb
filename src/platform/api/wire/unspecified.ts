// What the client SENDS where the spec says "not shown" is a guess.
import { isRejection, type ApiError } from '../../../core/errors.js';
import { isObject, type JsonObject } from '../../../core/objects.js';
import type { Env } from '../../config/env.js';

// The page size's upper bound is shown (500: MAX_PAGE_SIZE in core/wire.ts); its parameter's name is not.

export const NO_PAGE_SIZE = 'none';

export const DEFAULT_WIRE_SETTINGS = {
  /** GET /hedges and GET /hedges/history: the page-size query parameter (`none`: send none). */
  pageSizeParam: 'limit',
  /** POST /hedges/add and /hedges/reduce: the body's notional field (market and side are as for open). */
  changeNotionalField: 'notional_usd',
  /** GET /prices: the query parameter naming the market (the spec shows `symbols`). */
  pricesParam: 'symbols',
  /** Lists: the query parameter a page cursor is sent back under; empty: derived from the answer (`next_cursor` → `cursor`). */
  cursorParam: '',
};

export type WireSettings = typeof DEFAULT_WIRE_SETTINGS;

export const WIRE_SETTING_SOURCES = {
  pageSizeParam: { env: 'HEDGE_WIRE_PAGE_SIZE_PARAM', profileKey: 'page_size_param' },
  changeNotionalField: { env: 'HEDGE_WIRE_NOTIONAL_FIELD', profileKey: 'notional_field' },
  pricesParam: { env: 'HEDGE_WIRE_PRICES_PARAM', profileKey: 'prices_param' },
  cursorParam: { env: 'HEDGE_WIRE_CURSOR_PARAM', profileKey: 'cursor_param' },
};

/** The next step of a wire refusal: the setting that changes the name, and the command that checks. */
export function wireHint(setting: keyof WireSettings) {
  const { env, profileKey } = WIRE_SETTING_SOURCES[setting];
  return `Set ${env} (or the profile's wire.${profileKey}) to the name the server expects; \`hedge doctor\` shows what hedge detected, and \`hedge profile reset-wire\` forgets what it learned.`;
}

const WIRE_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/** Environment over profile over learned over default; a malformed name is refused with the setting named. */
export function resolveWireSettings(
  env: Env,
  profileWire: Readonly<Record<string, string>> = {},
  learnedWire: Readonly<Record<string, string>> = {},
) {
  const settings = { ...DEFAULT_WIRE_SETTINGS };
  /** default: our guess; learned: the server named it (kept in the profile); profile / environment: set by you. */
  const sources: Record<string, string> = {};
  for (const key in settings) sources[key] = 'default';
  for (const [key, { env: variable, profileKey }] of Object.entries(WIRE_SETTING_SOURCES)) {
    const [value, source] = (
      [
        [env[variable]?.trim() || undefined, 'environment'],
        [profileWire[profileKey], 'profile'],
        [learnedWire[profileKey], 'learned'],
      ] as const
    ).find(([value]) => value !== undefined) ?? [undefined, 'default'];
    if (value === undefined) continue;
    if (!WIRE_NAME.test(value)) {
      // A learned name that went bad is forgotten rather than refused: nobody typed it.
      if (source === 'learned') continue;
      const where = source === 'environment' ? variable : `the profile's wire.${profileKey}`;
      return {
        settings,
        sources,
        problem: `${where}: ${JSON.stringify(value)} is not a field or parameter name (letters, digits, "_", "." and "-", at most 64).`,
      };
    }
    // Nor is a learned amount's name in another unit used: hedge's number is USD.
    if (source === 'learned' && key === 'changeNotionalField' && !amountInUsd(value)) continue;
    settings[key as keyof WireSettings] = value;
    sources[key] = source;
  }
  return { settings, sources };
}

/** Body fields of add/reduce that are not the amount. */
export const CHANGE_BODY_FIELDS = new Set(['market', 'side']);
/** A field name that can carry the amount (what an add or reduce sends besides market and side). */
const AMOUNT_NAME = /(usd|amount|notional|size|delta|qty|quantity|value|change)/i;
/** Words that name an amount without a unit: a name holding one is the add/reduce amount's. */
const AMOUNT_WORDS = new Set(['amount', 'notional', 'size', 'delta', 'qty', 'quantity', 'value', 'change']);
/** The units hedge's amount is in: USD, and the dollar stablecoins the spec counts at par (its amounts are USDC unless
 * a name says otherwise, its markets quoted per USDT). Any other word (a currency code, `k`, `cents`, `minor`, `e6`)
 * could change what the number means. */
const USD_WORDS = new Set(['usd', 'usdc', 'usdt']);

/** A name's words: split at `_`, `-`, `.`, digits kept with their word, and camelCase (`notionalUsd`). */
const wordsOf = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/** The server's own name for the add/reduce amount, named by a refusal that did nothing and not sent by hedge:
 * `usd` when the name cannot change what hedge's number means (an amount in USD, or no unit named), `other` when it
 * names another unit or scale (`notional_kusd`, `amount_ngn`, `notional_cents`): that name is never sent or kept. */
export function notionalFieldFrom(
  error: unknown,
  sentBody: unknown,
): { field: string; unit: 'usd' | 'other' } | undefined {
  // Not a clear refusal of the body: a 401, 403, 404 or 409 says nothing about names.
  if (!isRejection(error) || [401, 403, 404, 409].includes(error.status)) return;
  const body = isObject(sentBody) ? sentBody : {};
  const field = refusedField(error);
  if (field === undefined || !WIRE_NAME.test(field) || CHANGE_BODY_FIELDS.has(field) || field in body) return;
  if (!AMOUNT_NAME.test(field)) return;
  return { field, unit: amountInUsd(field) ? 'usd' : 'other' };
}

/** Whether an add/reduce amount's name keeps hedge's number in USD: every word an amount word or a USD one. */
function amountInUsd(name: string) {
  return wordsOf(name).every((word) => AMOUNT_WORDS.has(word) || USD_WORDS.has(word));
}

/** The field a validation refusal names: `details.field` (or `param`, `parameter`, `name`). */
export function refusedField(error: ApiError) {
  for (const key of 'field param parameter name path'.split(' ')) {
    const value = error.details[key];
    if (typeof value === 'string' && value !== '') return value;
    if (Array.isArray(value) && typeof value.at(-1) === 'string') return value.at(-1) as string;
  }
}

/** Names a refusal's details offer (`allowed: [...]`, `expected: "per_page"`), never its message. */
export function namesIn(details: JsonObject) {
  // A list gives its items; a reason like "… (known: status, per_page)" itself, then the names in its own words.
  return Object.entries(details)
    .flatMap(([key, value]) =>
      key === 'field' ? [] : typeof value === 'string' ? [value, ...value.split(/[^A-Za-z0-9_.-]+/)] : value,
    )
    .filter((name): name is string => typeof name === 'string' && WIRE_NAME.test(name));
}
