// The target file of `hedge plan` / `hedge apply`: one row per market and side saying how much notional that side should hold, read as row-file.ts reads every row file (CSV or JSON, checked whole, every problem collected, the file's content never echoed).
import { parseDuration } from './duration.js';
import { parseClientReference, parseMarket, parseNotional, parseSide } from './input.js';
import { readInstant, readRowFile, type Field, type RowFileLayout, type RowFileOptions } from './row-file.js';
import { withoutUndefined } from './objects.js';
import { TENORS, type Side, type Tenor } from './vocabulary.js';
import { messageOf } from './security/safe-text.js';

export interface TargetRow {
  market: string;
  side: Side;
  notionalUsd: number;
  tenorDays?: Tenor;
  clientReference?: string;
  untilMs?: number;
  rollBeforeMs?: number;
  line: number;
}

type Column = 'market' | 'side' | 'notional_usd' | 'tenor_days' | 'client_reference' | 'until' | 'roll_before';

const LAYOUT: RowFileLayout<Column> = {
  required: ['market', 'side', 'notional_usd', 'tenor_days'],
  optional: ['client_reference', 'until', 'roll_before'],
  listKey: 'targets',
  rowIs: 'market and side',
  rowsAre: 'target rows',
  csvLabel: () => '',
  header: {
    unknown: (column, expected) => `column ${column} of the header is not a known column; the columns are ${expected}.`,
    repeated: (name) => `column ${name} appears more than once.`,
    lacks: (missing, expected) => `the header lacks ${missing}; it must name ${expected}, in any order.`,
  },
};
const FLAT = /^0+(?:\.0+)?$/;

export function parseTargetFile(text: string, options: RowFileOptions) {
  return readRowFile(
    text,
    options,
    LAYOUT,
    (field: Field<Column>) => {
      const market = field('market', parseMarket);
      const side = field('side', parseSide);
      // The CLI's notional (10000, 10_000, 10k, 1.5m), plus 0 for flat, which the CLI never takes.
      const notionalUsd = field('notional_usd', (raw) =>
        raw !== undefined && FLAT.test(raw.trim()) ? 0 : parseNotional(raw, 'notional_usd'),
      );
      // Required when the side should hold something (an open needs a tenor, and the plan cannot know beforehand whether the side will be open).
      const tenorDays = field('tenor_days', (raw) => {
        const value = raw?.trim().replace(/d$/i, '');
        if (!value) {
          // An unreadable notional is already a problem; whether a tenor is needed is then unknown.
          if (notionalUsd === undefined || notionalUsd === 0) return;
          throw new Error('tenor_days: missing; required when notional_usd is above 0; expected 1, 3 or 7 (days).');
        }
        const tenor = TENORS.find((allowed) => String(allowed) === value);
        if (tenor === undefined) throw new Error('tenor_days: the value is not allowed; expected 1, 3 or 7 (days).');
        return tenor;
      });
      // The optional cells: a blank one means none; the messages never repeat the cell.
      const clientReference = field('client_reference', (raw) => {
        if (!raw?.trim()) return;
        try {
          return parseClientReference(raw.trim());
        } catch (error) {
          throw new Error(messageOf(error).replace(/^--ref:/, 'client_reference:'), { cause: error });
        }
      });
      const untilMs = field('until', (raw) =>
        raw?.trim()
          ? readInstant(
              raw,
              'until: the value is not allowed; expected a date (2026-12-31, midnight UTC) or a timestamp with its zone (2026-12-31T17:00:00Z).',
            )
          : undefined,
      );
      // How long before maturity `hedge keep` rolls; 0: never (the hedge settles, then the side is re-opened).
      const rollBeforeMs = field('roll_before', (raw) => {
        if (!raw?.trim()) return;
        if (/^0+(\.0+)?[smhdw]?$/.test(raw.trim())) return 0;
        try {
          return parseDuration(raw, 'roll_before', 'smhdw').ms;
        } catch {
          throw new Error(
            'roll_before: the value is not allowed; expected a duration such as 30m, 2h or 1d (s, m, h, d, w), or 0 (never rolled: settled at maturity, then re-opened).',
          );
        }
      });
      return {
        key: market !== undefined && side !== undefined ? `${market} ${side}` : undefined,
        value: {
          market: market!,
          side: side!,
          notionalUsd: notionalUsd!,
          ...withoutUndefined({ tenorDays, clientReference, untilMs, rollBeforeMs }),
        },
      };
    },
    (earlier) => `the same market and side as ${earlier.unit} ${earlier.line}; one row per market and side.`,
  );
}
