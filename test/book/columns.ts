// The documented column order of the lists (docs/output.md), as plain and CSV output head them.
export const HEDGE_COLUMNS =
  'id,client_reference,market,side,notional_usd,tenor_days,status,struck_rate,opened_at,maturity_at,filled_at,closed_at,units,order_key,order_tx_hash,fill_tx_hash'.split(
    ',',
  );
export const HISTORY_COLUMNS =
  'hedge_id,client_reference,market,side,notional_usd,tenor_days,opened_at,closed_at,close_reason,entry_price,exit_price,gross_pnl_usd,carry_usdc,fees_usdc,net_pnl_usd'.split(
    ',',
  );
export const POSITION_COLUMNS =
  'market,side,client_reference,notional_usd,entry_price,mark_price,gross_pnl_usd,accrued_carry_usdc,net_pnl_usd,close_fee_usdc,margin_usdc,net_margin_usd,maturity_at,hedge_id,units,opened_at'.split(
    ',',
  );
