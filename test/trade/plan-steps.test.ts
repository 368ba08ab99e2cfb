// The plan executor's journaled plans (pure: no server, no journal): which steps of a plan are still to take, from the
// rows an earlier run left, and under which key — a roll's close then open, killed at each point between them.
import { stepsDue, type JournaledStep } from '../../src/features/trade/plan-steps.js';
import type { JournalEntry } from '../../src/platform/journal/index.js';
import type { TradeRecord } from '../../src/features/trade/trade-actions.js';

const row = (leg: string, outcome: string) =>
  ({ id: `j-${leg}`, leg, outcome, idempotency_key: `key-${leg}` }) as unknown as JournalEntry;
const step = (leg: string, outcome?: string): JournaledStep => ({
  record: { kind: leg, leg } as unknown as TradeRecord,
  row: outcome === undefined ? undefined : row(leg, outcome),
});
const due = (steps: JournaledStep[]) => stepsDue(steps).map(({ record, key }) => [record.leg, key ?? null]);

it.each([
  [
    'nothing journaled: every step, each to get a new key',
    [undefined, undefined],
    [
      ['close', null],
      ['open', null],
    ],
  ],
  [
    'the open planned ahead, the close never journaled',
    [undefined, 'planned'],
    [
      ['close', null],
      ['open', 'key-open'],
    ],
  ],
  [
    'the close sent, its outcome unknown',
    ['unknown', 'planned'],
    [
      ['close', 'key-close'],
      ['open', 'key-open'],
    ],
  ],
  ['the close done, the open planned', ['done', 'planned'], [['open', 'key-open']]],
  ['the close found nothing to close', ['rejected', 'planned'], [['open', 'key-open']]],
  ['the open sent, waiting: an earlier step is never taken again', [undefined, 'submitted'], [['open', 'key-open']]],
  ['the open filled: nothing left', ['done', 'filled'], []],
] as const)('%s', (_name, [close, open], expected) => {
  expect(due([step('close', close), step('open', open)])).toEqual(expected);
});
