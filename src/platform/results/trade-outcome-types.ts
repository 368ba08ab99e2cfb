import type { PositionFacts } from '../api/wire/fields.js';
import type { Hedge, HistoryRecord, OpenedHedge, Position, SubmittedAction } from '../api/schemas.js';
import type { SideAfter } from '../journal/index.js';

type BookPositionShape = PositionFacts & { raw: Position };

/** What an add or reduce learned, as the flow returns it (flows/trade-actions.ts `ChangeResult`). */
export interface LandedChange {
  action: 'add' | 'reduce';
  market: string;
  side: 'buy' | 'sell';
  notionalUsd: number;
  closed: boolean;
  afterNotionalUsd?: number;
  position?: BookPositionShape;
  before?: BookPositionShape;
  hedge?: Hedge;
  realized?: HistoryRecord;
  quotedPrice?: number;
  balanceBeforeUsdc?: number;
  balanceAfterUsdc?: number;
  baselineUsd?: number;
}

/** One trade's outcome as it is shown (built by flows/trade-actions.ts `tradeView` from the write flow's outcome). */
export type TradeView =
  | { kind: 'open-submitted'; answer: OpenedHedge }
  | { kind: 'open-resolved'; hedge: Hedge }
  | { kind: 'change-submitted'; action: 'add' | 'reduce'; answer: SubmittedAction }
  | { kind: 'change-landed'; change: LandedChange; answer: SubmittedAction }
  | { kind: 'close-submitted'; answer: SubmittedAction }
  | {
      kind: 'close-landed';
      closed: {
        market: string;
        side: string;
        estimate?: number;
        hedgeId?: string;
        realized?: HistoryRecord;
        /** The side's hedges once the close was seen, when it is not flat (opened by another since). */
        openNow?: SideAfter;
      };
      answer: SubmittedAction;
    };
