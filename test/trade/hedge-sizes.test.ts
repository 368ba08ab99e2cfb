// Which notional a closed hedge's P&L belongs to: what the journal saw a hedge hold over
// its life (report/history-view.ts), and how `hedge history` says it on screen (the same file):
// the resized hedge's notional marked, a note naming what it held — never a guess for a hedge the
// journal did not see change.
import type { JournalEntry } from '../../src/platform/journal/index.js';
import { markResized, resizedHedges, resizedNote } from '../../src/features/report/history-view.js';
import { NOTIONAL_MARK } from '../../src/platform/fields/resource-fields.js';

const ID = 'hdg_0mwti9k8700004zmcq0nf1qp';
const OTHER = 'hdg_0mwti9hgc00001u85ljj2p7v';

let seq = 0;
/** A journal entry of `action` on USDTNGN `side`, its body's notional `usd` under `field`. */
function entry(
  action: string,
  side: string,
  usd: number | undefined,
  fields: Partial<JournalEntry> = {},
  field = 'notional_usd',
): JournalEntry {
  seq += 1;
  const at = new Date(Date.UTC(2026, 10, 23, 16, 54, seq)).toISOString();
  return {
    id: `a_${seq}`,
    seq,
    created_at: at,
    updated_at: at,
    environment: 'test',
    base_url_host: 'demo',
    key_id: 'k',
    command: action,
    request: {
      method: 'POST',
      path: action === 'open' ? '/hedges' : `/hedges/${action}`,
      body: { market: 'USDTNGN', side, [field]: usd },
    },
    idempotency_key: `key-${seq}`,
    outcome: 'done',
    ...fields,
  };
}

it("resizedHedges: follows a hedge from this journal's open through its adds and reduces that landed: the largest it held", () => {
  const entries = [
    entry('open', 'sell', 5000, { hedge_id: ID, outcome: 'filled' }),
    entry('add', 'sell', 1000, { hedge_id: ID }),
    // A reduce that failed moved nothing.
    entry('reduce', 'sell', 2500, { hedge_id: ID, outcome: 'rejected' }),
    entry('reduce', 'sell', 4000, { context: { hedge_id: ID, baseline_notional_usd: 6000 } }),
    entry('close', 'sell', undefined, { hedge_id: ID }),
    // Another hedge, only opened: not resized, not in the map.
    entry('open', 'buy', 10000, { hedge_id: OTHER, outcome: 'filled' }),
  ];
  const found = resizedHedges(entries.reverse(), new Set([ID, OTHER]));
  expect([...found.entries()]).toEqual([
    [
      ID,
      {
        openedUsd: 5000,
        changes: [
          { action: 'add', usd: 1000 },
          { action: 'reduce', usd: 4000 },
        ],
        largestUsd: 6000,
      },
    ],
  ]);
});

it('resizedHedges: without the open in the journal (opened elsewhere), says the changes alone: no largest is made up; only the hedges asked about', () => {
  const reduced = [entry('reduce', 'sell', 3000, { hedge_id: ID }, 'amount_usd')];
  expect([...resizedHedges(reduced, new Set([ID])).entries()]).toEqual([
    [ID, { changes: [{ action: 'reduce', usd: 3000 }] }],
  ]);
  expect(resizedHedges(reduced, new Set([OTHER])).size).toBe(0);
});

it("history on screen: the notional a P&L belongs to: marks a resized hedge's notional, and the others (and the totals) with a space so that the figures stay aligned", () => {
  const rows: Record<PropertyKey, unknown>[] = [{ hedge_id: ID }, { hedge_id: OTHER }];
  const totals: Record<PropertyKey, unknown> = {};
  markResized(rows, [true, false], totals);
  expect([...rows, totals].map((row) => row[NOTIONAL_MARK])).toEqual(['*', ' ', ' ']);
  // None resized: nothing marked, no column moves.
  const plain = [{ hedge_id: OTHER }];
  markResized(plain, [false]);
  expect(Object.getOwnPropertySymbols(plain[0])).toEqual([]);
});

it("history on screen: the notional a P&L belongs to: says what it held and that the P&L is the whole life's: on up to its largest, not on the notional shown", () => {
  // Reduced from its open (the note word for word, end to end: desk-columns.test.ts > history).
  // Added to, then brought back: its largest is the one shown, and still not its whole life.
  expect(
    resizedNote([
      {
        hedgeId: ID,
        shownUsd: 5000,
        sizes: {
          openedUsd: 5000,
          changes: [
            { action: 'add', usd: 1000 },
            { action: 'reduce', usd: 1000 },
          ],
          largestUsd: 6000,
        },
      },
    ]),
  ).toContain('on up to 6,000.00 USD, not on the 5,000.00 USD shown.');
  // The open unknown: the changes alone.
  expect(resizedNote([{ hedgeId: ID, shownUsd: 2000, sizes: { changes: [{ action: 'reduce', usd: 3000 }] } }])).toBe(
    `* ${ID}: reduced by 3,000.00 USD (this journal); its P&L is its whole life's, on every notional it held, not only the 2,000.00 USD shown.`,
  );
  expect(resizedNote([])).toBeUndefined();
});

it('history on screen: the notional a P&L belongs to: server text reaches the note only through the safe-text filter', () => {
  expect(
    resizedNote([
      {
        hedgeId: 'hdg_\u202eevil',
        reference: 'REF\u001b]0;x\u0007',
        sizes: { changes: [{ action: 'add', usd: 1 }] },
      },
    ])!,
  ).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
});
