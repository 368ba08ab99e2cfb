// What a confirmation binds of a write's plan (confirm.ts planHash over trade-actions.ts planWrite): the kind, the
// request and the side it acts on to the cent — never a figure read alongside, such as what a close returns.
import { planHash, samePlan } from '../../src/features/write/confirm.js';
import { planWrite } from '../../src/features/trade/trade-actions.js';
import { reconcileSide } from '../../src/features/book/book.js';
import { sideAfterOf } from '../../src/features/book/side-book.js';
import type { SideRequest } from '../../src/platform/api/client.js';

const NOW = Date.parse('2026-03-02T09:00:00Z');
/** A side as the model reads it and a plan takes it: its hedges and their sum. */
const side = (...hedges: Array<[string, number]>) =>
  sideAfterOf(
    reconcileSide(
      hedges.map(([id, notionalUsd]) => ({ id, status: 'filled', notionalUsd, maturityAtMs: NOW + 86_400_000 })),
      hedges.length ? { notionalUsd: hedges.reduce((sum, [, usd]) => sum + usd, 0) } : undefined,
      NOW,
    ),
  );
const add: SideRequest = { market: 'USDTNGN', side: 'buy', notional_usd: 500 } as SideRequest;
const close = { market: 'USDTNGN', side: 'buy' } as const;

it('a plan binds its kind, request and side to the cent: the same side plans alike (a half cent, or what a close returns, aside); another hedge, another sum or another amount does not', () => {
  const held = planWrite('add', add, side(['hdg_1', 1_000]));
  expect(held).toMatchObject({ kind: 'add', side: { hedge_ids: ['hdg_1'], notional_usd: 1_000 }, expects: 1_500 });
  expect(samePlan(held, planWrite('add', add, side(['hdg_1', 1_000.004])))).toBe(true);
  expect(samePlan(held, planWrite('add', add, side(['hdg_2', 1_000])))).toBe(false);
  expect(samePlan(held, planWrite('add', add, side(['hdg_1', 1_000.01])))).toBe(false);
  expect(samePlan(held, planWrite('add', { ...add, notional_usd: 501 } as SideRequest, side(['hdg_1', 1_000])))).toBe(
    false,
  );
  expect(samePlan(held, planWrite('reduce', add, side(['hdg_1', 1_000])))).toBe(false);
  const closing = planWrite('close', close, side(['hdg_1', 1_000]), { returnsUsd: 12, landingUsd: [250] });
  expect(closing.shown).toEqual([
    {
      market: 'USDTNGN',
      notionalUsd: 1_250,
      held: { hedge_ids: ['hdg_1'], notional_usd: 1_000 },
      returnsUsd: 12,
      inBookUsd: 1_000,
    },
  ]);
  expect(planHash(closing)).toBe(
    planHash(planWrite('close', close, side(['hdg_1', 1_000]), { returnsUsd: 13, landingUsd: [250] })),
  );
  expect(samePlan(undefined, undefined)).toBe(true);
  expect(samePlan(held, undefined)).toBe(false);
});
