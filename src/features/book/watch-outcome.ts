// What one refresh of `--watch` read, as data (flows/watch.ts reads it; ui/watch-model.ts makes the
// live view's model of it, and NDJSON prints the refresh's `data`).
import type { Hedge } from '../../platform/api/schemas.js';
import type { PositionFacts, PriceQuote } from '../../platform/api/wire/fields.js';

export type WatchReading =
  | {
      kind: 'positions';
      positions: PositionFacts[];
      references: Array<string | undefined>;
      ref?: string;
      netPnlUsd?: number;
    }
  /** `pnlField`: the account's field that carries its unrealized P&L, when one does. */
  | { kind: 'account'; account: Record<string, unknown>; pnlField?: string }
  | { kind: 'price'; market?: string; prices: PriceQuote[] }
  /** `maturityAt`: set while the hedge can still mature. */
  | { kind: 'hedge'; hedge: Hedge; maturityAt?: string };
