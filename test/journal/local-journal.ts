// What the local journal's in-process tests share: one account's key at a fixed time, the fields
// of an open begun with it.
import { keyFingerprint, type BeginFields } from '../../src/platform/journal/index.js';

export const T0 = Date.UTC(2025, 0, 15, 9, 30, 0);
export const KEY_ID = keyFingerprint('hpk_test_JournalUnitKey0000001');

/** `hedge open USDTNGN buy 10000 --tenor 3` as the CLI begins it, with `overrides`. */
export function openFields(overrides: Partial<BeginFields> = {}): BeginFields {
  return {
    profile: 'desk',
    environment: 'test',
    base_url_host: 'partner.example:8443',
    key_id: KEY_ID,
    command: 'open',
    argv: ['hedge', 'open', 'USDTNGN', 'buy', '10000', '--tenor', '3'],
    request: {
      method: 'POST',
      path: '/hedges',
      body: { market: 'USDTNGN', side: 'buy', notional_usd: 10000, tenor_days: 3 },
    },
    idempotency_key: 'idem-0001',
    ...overrides,
  };
}
