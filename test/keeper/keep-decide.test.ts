import { tenorFor, type KeepRow } from '../../src/core/keep-rules.js';
import { reconcileSide, type HedgeRecord } from '../../src/features/book/book.js';
import { decideRow } from '../../src/features/keeper/keeper-decide.js';
import { parseTargetFile } from '../../src/core/target-file.js';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-03-02T09:00:00Z');
const row: KeepRow = { market: 'USDTNGN', side: 'sell', notionalUsd: 2000, tenorDays: 1 };

/** A side as the model judges it from its records and positions line, with what the keeper knows beside it. */
const side = (records: HedgeRecord[], line?: { notionalUsd: number; hedgeId: string }, keeper = {}) => ({
  book: reconcileSide(records, line, NOW),
  keeper,
});
const position = (maturityInMs: number, notionalUsd = 2000) =>
  side([{ id: 'hdg_1', status: 'filled', notionalUsd, maturityAtMs: NOW + maturityInMs }], {
    notionalUsd,
    hedgeId: 'hdg_1',
  });
const flat = side([]);
const closed = side([], undefined, { closedOutside: { hedgeId: 'hdg_9', closedAtLocalMs: NOW - HOUR } });
const dueIn2h = position(2 * HOUR);
const dueInHalfAnHour = position(HOUR / 2);
const decideOn = (changes: Partial<KeepRow>, seen: ReturnType<typeof side>, at = NOW, toleranceUsd = 0) =>
  decideRow({ ...row, ...changes }, seen.book, at, { toleranceUsd }, seen.keeper);

// [what is decided, the [row changes, view, at] cases, each case's kind]
it.each([
  [
    // Written after the close, the target says so again; before it, still the colleague's call; a target of 0 stays flat.
    'a side a colleague closed before its maturity is drift, not re-opened, until the target says so again',
    [
      [{}, closed],
      [{ statedAtMs: NOW - HOUR / 2 }, closed],
      [{ statedAtMs: NOW - 2 * HOUR }, closed],
      [{ notionalUsd: 0 }, closed],
    ],
    ['drift', 'reopen', 'drift', 'hold'],
  ],
  [
    'holds a covered side until roll_before ahead of its maturity, then rolls it (the row may widen roll_before)',
    [
      [{}, dueIn2h],
      [{}, dueIn2h, NOW + HOUR],
      [{ rollBeforeMs: 3 * HOUR }, dueIn2h],
    ],
    ['hold', 'roll', 'roll'],
  ],
  [
    'never opens a side whose hedge is still being opened, whatever its status is called',
    ['submitted', 'submitting', 'settling'].map((status) => [{}, side([{ id: 'hdg_2', status }])]),
    ['hold', 'hold', 'hold'],
  ],
  [
    'leaves a row past `until` to mature: no roll when the exposure ends by the maturity, no re-open after it; a flat target with nothing open holds',
    [
      [{ untilMs: NOW + HOUR / 2 }, dueInHalfAnHour],
      [{ untilMs: NOW + 10 * HOUR }, dueInHalfAnHour],
      [{ untilMs: NOW - 1 }, flat],
      [{ untilMs: NOW + 1 }, flat],
      [{ notionalUsd: 0, tenorDays: undefined }, flat],
    ],
    ['skip', 'roll', 'skip', 'reopen', 'hold'],
  ],
] as Array<[string, Array<[Partial<KeepRow>, ReturnType<typeof side>, number?]>, string[]]>)(
  'decideRow: %s',
  (_name, cases, expected) => {
    expect(cases.map(([changes, seen, at]) => decideOn(changes, seen, at).kind)).toEqual(expected);
  },
);

it('decideRow: a roll due on a hedge that may mature before its close lands (one request bound away) is not sent: the hedge is left to settle, a drift beside it carries no roll', () => {
  // Five seconds before maturity: a close may take the 15 s bound of a request to land, after the hedge matured.
  const dueIn5s = position(5_000);
  const decide = (seen: ReturnType<typeof side>, landingMs: number, notionalUsd = 2000) =>
    decideRow({ ...row, notionalUsd }, seen.book, NOW, { toleranceUsd: 0, landsByMs: NOW + landingMs }, seen.keeper);
  // Said once with why (a skip event), never a hold that reads as a roll still to come.
  expect(decide(dueIn5s, 15_000)).toEqual({
    kind: 'skip',
    reason: `covered; matures 2026-03-02 09:00 UTC, before a roll's close could land (within --request-timeout): left to settle, and re-opened once it has`,
  });
  expect(decide(dueIn5s, 1_000).kind).toBe('roll');
  expect(decide(dueIn5s, 15_000, 1500)).toMatchObject({ kind: 'drift', alsoRollDue: false });
  expect(decide(dueIn5s, 1_000, 1500)).toMatchObject({ kind: 'drift', alsoRollDue: true });
});

it("decideRow: near `until`, a re-open or roll gets the shortest tenor that still reaches it, never more than the row's", () => {
  expect(
    [
      [7, 20 * HOUR],
      [7, 50 * HOUR],
      [7, 100 * HOUR],
      [7, 30 * 24 * HOUR],
      [3, 6 * 24 * HOUR],
    ].map(([tenorDays, until]) => tenorFor({ ...row, tenorDays: tenorDays as 3 | 7, untilMs: NOW + until }, NOW)),
  ).toEqual([1, 3, 7, 7, 3]);
});

// Drift's add and reduce (and the roll due beside it): keeper-decide.test.ts's plan table.
// A target of 0: drift to close, never rolled (even when it matures soon): test/keeper/keep.test.ts.
it('decideRow: drift within the tolerance is no drift; drift past `until` is not rolled with it', () => {
  expect(decideOn({}, position(20 * HOUR, 2000.4), NOW, 0.5).kind).toBe('hold');
  const soon = position(HOUR / 2, 1000);
  expect([{ untilMs: NOW + HOUR / 4 }, {}].map((changes) => decideOn(changes, soon))).toMatchObject([
    { kind: 'drift', alsoRollDue: false },
    { kind: 'drift', alsoRollDue: true },
  ]);
});

it('target file: keep columns: reads until (a date or a zoned timestamp) and roll_before (0: never rolled)', () => {
  const parsed = parseTargetFile(
    'market,side,notional_usd,tenor_days,until,roll_before\nUSDTNGN,sell,2000,1,2026-12-31,2h\nUSDTNGN,buy,500,3,2026-12-31T17:00:00+01:00,\nEURUSDT,buy,700,1,,0\n',
    { sourceName: 't.csv' },
  );
  const sell = { market: 'USDTNGN', side: 'sell', notionalUsd: 2000, tenorDays: 1 };
  expect(parsed).toEqual({
    rows: [
      { ...sell, untilMs: Date.parse('2026-12-31T00:00:00Z'), rollBeforeMs: 2 * HOUR, line: 2 },
      { ...sell, side: 'buy', notionalUsd: 500, tenorDays: 3, untilMs: Date.parse('2026-12-31T16:00:00Z'), line: 3 },
      { ...sell, market: 'EURUSDT', side: 'buy', notionalUsd: 700, rollBeforeMs: 0, line: 4 },
    ],
  });
});

it('decideRow: roll_before 0 never rolls: the covered side is shown settling at its maturity, with no roll announced; once it has settled, re-opened', () => {
  const settles = { kind: 'hold', reason: 'covered; settles at its maturity (roll_before 0), then re-opened' };
  expect([decideOn({ rollBeforeMs: 0 }, dueInHalfAnHour), decideOn({ rollBeforeMs: 0 }, position(1_000))]).toEqual([
    settles,
    settles,
  ]);
  expect(decideOn({ rollBeforeMs: 0 }, flat).kind).toBe('reopen');
});

it('target file: keep columns: refuses an until without a zone and a roll_before that is not a duration, naming the line', () => {
  const parsed = parseTargetFile(
    'market,side,notional_usd,tenor_days,until,roll_before\nUSDTNGN,sell,2000,1,2026-12-31T17:00,soon\n',
    { sourceName: 't.csv' },
  );
  expect(
    'problems' in parsed && parsed.problems.map((problem) => [problem.line, problem.message.split(':')[0]]),
  ).toEqual([
    [2, 'until'],
    [2, 'roll_before'],
  ]);
});
