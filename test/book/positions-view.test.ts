// The lines under each side's row in `hedge positions`: a side's hedges aligned down the
// table and fitted to the width by the Table's own rule (a settling side's reason: side-views.test.ts).
// Rendering only: the sides are given as flows/position-sides.ts makes them.
import { stripVTControlCharacters as stripAnsi } from 'node:util';
import { makeChalk } from '../../src/platform/terminal/color.js';
import { sideLines, type SideView } from '../../src/features/book/positions-view.js';
import { displayWidth } from '../../src/platform/terminal/width.js';

const NOW = Date.parse('2026-03-02T09:00:00.000Z');
const ID_A = 'hdg_0mm8y7c0000001akyzl68pze';
const ID_B = 'hdg_0mm8y7c0000004ziub5uf0sq';
const c = makeChalk(false);

const buy = {
  state: 'in-step',
  hedges: [
    {
      id: ID_A,
      status: 'filled',
      client_reference: 'DEAL-7',
      notional_usd: 10_000,
      maturity_at: '2026-03-03T09:00:00.000Z',
    },
    {
      id: ID_B,
      status: 'submitted',
      client_reference: 'DEAL-2026-11-ACME-TREASURY-0042',
      notional_usd: 3_000,
      maturity_at: '2026-03-09T09:00:00.000Z',
    },
  ],
};

const lines = (width: number, sides: Array<SideView | undefined>) =>
  sideLines(sides, { width, chalk: c, nowMs: NOW }).sections.map((section) => ({
    ...section,
    line: stripAnsi(section.line),
  }));

it("each hedge a line under its side's row, aligned: id, reference, notional, status, time left (and the UTC maturity where there is room)", () => {
  expect(lines(140, [buy, undefined])).toEqual([
    {
      before: 1,
      line: `  └ ${ID_A}  DEAL-7                           10,000.00 USD  filled     1d 0h  2026-03-03 09:00 UTC`,
    },
    // Only a filled hedge counts down: one being opened has no time left to show.
    {
      before: 1,
      line: `  └ ${ID_B}  DEAL-2026-11-ACME-TREASURY-0042   3,000.00 USD  submitted         2026-03-09 09:00 UTC`,
    },
  ]);
});

it('at 80 columns the id and notional stay whole, a long reference is cut with …, the maturity waits for a wider terminal; no line is wider', () => {
  const shown = lines(80, [buy]);
  for (const { line } of shown) expect(displayWidth(line), line).toBeLessThanOrEqual(80);
  expect(shown.map(({ line }) => line)).toEqual([
    `  └ ${ID_A}  DEAL-7         10,000.00 USD  filled     1d 0h`,
    `  └ ${ID_B}  DEAL-2026-11…   3,000.00 USD  submitted`,
  ]);
  // Narrower still: the reference and status give way to the time left, never the id or the notional.
  expect(lines(50, [buy]).map(({ line }) => line)).toEqual([
    `  └ ${ID_A}  10,000.00 USD`,
    `  └ ${ID_B}   3,000.00 USD`,
  ]);
});

it('server text reaches the terminal only through the safe-text filter', () => {
  for (const { line } of sideLines(
    [
      {
        state: 'settling',
        why: 'views \u001b[2Jdisagree',
        hedges: [
          { id: 'hdg_\u202eevil', status: 'filled\u0007', client_reference: 'REF\u001b]0;x\u0007', notional_usd: 1 },
        ],
      },
    ],
    { width: 200, chalk: c, nowMs: NOW },
  ).sections) {
    expect(line).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
  }
});
