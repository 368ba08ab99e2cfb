// Plain types depending on no other module, so dialects.ts and views.ts can name them without knowing each other.
import type { Side } from './market-model.js';

export interface PositionView {
  market: string;
  side: Side;
  hedge_id: string;
  notional_usd: number;
  units: number;
  entry_price: number;
  mark_price: number;
  gross_pnl_usd: number;
  accrued_carry_usdc: number;
  net_pnl_usd: number;
  close_fee_usdc: number;
  margin_usdc: number;
  net_margin_usd: number;
  opened_at: string;
  maturity_at: string;
}

export interface AccountView {
  balance_usdc: number;
  margin_in_use_usdc: number;
  open_exposure_usd: number;
  unrealized_pnl_usd: number;
  open_positions: number;
  available_exposure_usd: number;
  exposure_cap_usd: number;
}
