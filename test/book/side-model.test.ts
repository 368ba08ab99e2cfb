// The side model as a table (pure: no server, no clock): each way a side's views can disagree × each kind of change →
// the verdict the model gives, written out. A dialect enters a row only where it shows the side otherwise than the
// reference server does, with its own verdict. The same rows end to end on the simulator: side-outcomes.test.ts.
import { HEDGE_STATUSES } from '../../src/core/vocabulary.js';
import { HEDGE_FIELDS } from '../../src/platform/fields/resource-fields.js';
import { SANDBOX_DIALECTS, type SandboxDialect } from '../../src/sandbox/dialect-names.js';
import {
  changeVerdict,
  closedEarly,
  cutRead,
  judgeSide,
  notionalVerdict,
  notTheRows,
  recordStanding,
  sameSide,
  soonestHeld,
  sideHolds,
  stillLive,
  type ChangeVerdict,
  type ExpectedChange,
  type HedgeRecord,
  type SideBook,
  type SideViewsRead,
  mayHaveMatured,
  latestOf,
  latestHereAt,
  whenLanded,
  changedSincePlan,
  endedLately,
  unsized,
  closeTakes,
  earlierChange,
  earlierOpen,
  movedBefore,
  reduceBeyondHeld,
  referenceInUse,
  viewsState,
} from '../../src/features/book/book.js';

const KINDS = ['open', 'add', 'reduce', 'close'] as const;
type Kind = (typeof KINDS)[number];

const NOW = Date.parse('2026-03-02T09:00:00Z');
const MATURITY = NOW + 3 * 86_400_000;
const BEFORE = 1_000;
const CHANGE = 400;

/** The side's hedges, its positions line and the history as the reference server shows them. */
interface Truth {
  records: HedgeRecord[];
  line?: { notionalUsd?: number; hedgeId?: string };
  ended: string[];
}

const filled = (id: string, notionalUsd: number): HedgeRecord => ({
  id,
  status: 'filled',
  notionalUsd,
  maturityAtMs: MATURITY,
});
const closed = (id: string, notionalUsd: number): HedgeRecord => ({ ...filled(id, notionalUsd), status: 'closed' });

/** The side before the change: open starts flat, the others from hedge `a` at BEFORE. */
function before(kind: Kind): Truth {
  return kind === 'open'
    ? { records: [], ended: [] }
    : { records: [filled('a', BEFORE)], line: { notionalUsd: BEFORE, hedgeId: 'a' }, ended: [] };
}

/** The side once the change landed, in every view. */
function after(kind: Kind): Truth {
  if (kind === 'open')
    return { records: [filled('b', BEFORE)], line: { notionalUsd: BEFORE, hedgeId: 'b' }, ended: [] };
  if (kind === 'close') return { records: [closed('a', BEFORE)], ended: ['a'] };
  const usd = kind === 'add' ? BEFORE + CHANGE : BEFORE - CHANGE;
  return { records: [filled('a', usd)], line: { notionalUsd: usd, hedgeId: 'a' }, ended: [] };
}

const expectedOf = (kind: Kind): ExpectedChange =>
  kind === 'open'
    ? { kind, before: 0, changeUsd: BEFORE, hedgeId: 'b' }
    : { kind, before: BEFORE, ...(kind !== 'close' && { changeUsd: CHANGE }) };

/** The views as read: `truth` with the history complete, on the server's time NOW. */
const views = (truth: Truth, more: Partial<SideViewsRead> = {}): SideViewsRead => ({
  records: truth.records,
  line: truth.line,
  serverNow: { bestMs: NOW },
  recordsCut: 0,
  history: { ended: new Set(truth.ended), cutAt: null },
  ...more,
});

/** How each dialect shows a hedge's record where it differs from the reference server (src/sandbox/DIALECTS.md): alpha
 * leaves an early-closed hedge `filled` (its history lists it ended); gamma shows it `settling` at notional 0 while the
 * close lands; delta keeps a client reference trimmed, in upper case. Beta differs in wire names alone, epsilon in
 * how it pages. */
const SHOWS: Record<SandboxDialect, (record: HedgeRecord) => HedgeRecord> = {
  reference: (record) => record,
  alpha: (record) => (record.status === 'closed' ? { ...record, status: 'filled' } : record),
  beta: (record) => record,
  gamma: (record) => (record.status === 'closed' ? { ...record, status: 'settling', notionalUsd: 0 } : record),
  delta: (record) =>
    record.clientReference === undefined
      ? record
      : { ...record, clientReference: record.clientReference.trim().toUpperCase() },
  epsilon: (record) => record,
};

/** The views as `dialect` shows them. */
const shownBy = (dialect: SandboxDialect, read: SideViewsRead): SideViewsRead => ({
  ...read,
  records: read.records.map(SHOWS[dialect]),
});

/** The model's book once every read it asks for is given (a test of what it asks for: below). */
function judged(read: SideViewsRead): SideBook {
  const judgement = judgeSide(read);
  if ('asks' in judgement) throw new Error(`the model asks for ${judgement.asks}`);
  return judgement;
}

type Verdict = ChangeVerdict['verdict'];
type Verdicts = Record<Kind, Verdict>;
const every = (verdict: Verdict): Verdicts => ({ open: verdict, add: verdict, reduce: verdict, close: verdict });

/** A target row's client reference, and another desk's. */
const ROW = 'deal-11';
const DESK = 'desk-b';

/** One way the views disagree: the views of a change under way or landed as the reference server shows them, the
 * verdict for each kind, and each dialect that shows those views otherwise with its verdicts (every kind it changes). */
interface Row {
  read(kind: Kind): SideViewsRead;
  /** The kinds the row applies to, each with its verdict. */
  verdict: Partial<Verdicts>;
  dialects?: Partial<Record<SandboxDialect, Partial<Verdicts>>>;
  /** The change expected, where the side held more than `before` gives it. */
  expected?(kind: Kind): ExpectedChange;
  /** The side's live hedges that are not target row ROW's (the keeper acts on none of a side holding others). */
  notTheRow?: Record<Kind, string[]>;
}

/** Each way the views can disagree (the sandbox's option or dialect that serves it in brackets). */
const TABLE: Record<string, Row> = {
  'every view in step': {
    read: (kind) => views(after(kind)),
    verdict: every('landed'),
    // gamma: the closed hedge still `settling` on its record: waited on until it shows a status hedge knows.
    dialects: { alpha: { close: 'landed' }, gamma: { close: 'not-yet' } },
  },
  'the records behind: they show the side as before (viewLagMs on the records)': {
    read: (kind) => views({ ...after(kind), records: before(kind).records }),
    // A close's hedge still `filled` on its record: the history lists it ended, which proves the close.
    verdict: { open: 'not-yet', add: 'not-yet', reduce: 'not-yet', close: 'landed' },
  },
  'the positions line behind (viewLagMs)': {
    read: (kind) => views({ ...after(kind), line: before(kind).line }),
    verdict: every('not-yet'),
    dialects: { alpha: { close: 'not-yet' }, gamma: { close: 'not-yet' } },
  },
  'the history behind (viewLagMs)': {
    read: (kind) => views({ ...after(kind), ended: [] }),
    // Only a close shows in the history: a held side in step is judged without it.
    verdict: { close: 'landed' },
    // alpha: the closed hedge still `filled`, and nothing yet says it ended.
    dialects: { alpha: { close: 'not-yet' }, gamma: { close: 'not-yet' } },
  },
  'a 404 for the hedge the server just named: its record not visible yet (recordLagMs)': {
    read: (kind) => {
      const id = kind === 'open' ? 'b' : 'a';
      const truth = after(kind);
      return views({ ...truth, records: truth.records.filter((record) => record.id !== id) }, { named: [id] });
    },
    verdict: every('not-yet'),
  },
  'a 404 for the hedge the server just named, and no positions line for it yet (recordLagMs, viewLagMs)': {
    read: (kind) => {
      const id = kind === 'open' ? 'b' : 'a';
      const truth = after(kind);
      return views(
        { ...truth, records: truth.records.filter((record) => record.id !== id), line: undefined },
        { named: [id] },
      );
    },
    // Flat in every view but for the server's word: settling, never a side another actor emptied. (A closed side shows
    // no line: the row above.)
    verdict: { open: 'not-yet', add: 'not-yet', reduce: 'not-yet' },
  },
  "the server's clock ahead, no Date header: its stamps put it past the maturity (noDateHeader, advance)": {
    read: (kind) => views(after(kind), { serverNow: { bestMs: MATURITY + 1 } }),
    // A held hedge past its maturity, not settled yet: settling; a flat side holds none.
    verdict: { open: 'not-yet', add: 'not-yet', reduce: 'not-yet', close: 'landed' },
    dialects: { alpha: { close: 'landed' }, gamma: { close: 'not-yet' } },
  },
  "the server's clock behind, no Date header: this machine's clock past the maturity, the server's not": {
    read: (kind) => views(after(kind), { serverNow: { bestMs: MATURITY - 60_000 } }),
    verdict: every('landed'),
    dialects: { alpha: { close: 'landed' }, gamma: { close: 'not-yet' } },
  },
  'a status hedge does not know on the changed hedge (`pending_settlement`, notional 0)': {
    read: (kind) => {
      const id = kind === 'open' ? 'b' : 'a';
      const truth = after(kind);
      const unknown = { id, status: 'pending_settlement', notionalUsd: 0, maturityAtMs: MATURITY };
      return views({ ...truth, records: [unknown], ended: [] });
    },
    verdict: every('not-yet'),
  },
  'several hedges on the side: an older one, `c`, held throughout, closed with the side (severalPerSide)': {
    read: (kind) => {
      const truth = after(kind);
      if (kind === 'close') return views({ records: [...truth.records, closed('c', 500)], ended: ['a', 'c'] });
      return views({
        records: [...truth.records, filled('c', 500)],
        line: { notionalUsd: truth.line!.notionalUsd! + 500, hedgeId: truth.line!.hedgeId },
        ended: [],
      });
    },
    verdict: every('landed'),
    dialects: { alpha: { close: 'landed' }, gamma: { close: 'not-yet' } },
    // The side held `c` before the change too.
    expected: (kind) => ({ ...expectedOf(kind), before: expectedOf(kind).before + 500 }),
  },
  'fills in parts: half of the change shows in every view (a close lands whole)': {
    read: (kind) => {
      const half = kind === 'open' ? BEFORE / 2 : kind === 'add' ? BEFORE + CHANGE / 2 : BEFORE - CHANGE / 2;
      const id = kind === 'open' ? 'b' : 'a';
      // An open's hedge stays `submitted` until it has filled whole.
      const status = kind === 'open' ? 'submitted' : 'filled';
      return views({ records: [{ ...filled(id, half), status }], line: { notionalUsd: half, hedgeId: id }, ended: [] });
    },
    verdict: { open: 'not-yet', add: 'partly', reduce: 'partly' },
  },
  "moved by another actor: another desk's hedge `c` opened instead, or 1,000 added besides": {
    read: (kind) => {
      const other = { ...filled('c', 700), clientReference: DESK };
      if (kind === 'open') return views({ records: [other], line: { notionalUsd: 700, hedgeId: 'c' }, ended: [] });
      if (kind === 'close')
        return views({
          records: [
            { ...closed('a', BEFORE), clientReference: ROW },
            { ...other, notionalUsd: 250 },
          ],
          line: { notionalUsd: 250, hedgeId: 'c' },
          ended: ['a'],
        });
      const usd = after(kind).line!.notionalUsd! + 1_000;
      return views({
        records: [{ ...filled('a', usd), clientReference: ROW }],
        line: { notionalUsd: usd, hedgeId: 'a' },
        ended: [],
      });
    },
    verdict: every('moved'),
    // gamma: the closed hedge still `settling`, so the side is not judged yet.
    dialects: { alpha: { close: 'moved' }, gamma: { close: 'not-yet' }, delta: every('moved') },
    notTheRow: { open: ['c'], add: [], reduce: [], close: ['c'] },
  },
  'a history that cannot be paged to its end: 40 records, no next page named (delta, unmarkedHistoryPages)': {
    read: (kind) => views({ ...after(kind), ended: [] }, { history: { ended: new Set(), cutAt: 40 } }),
    // Held sides in step need no history; a flat side's closed hedge needs none either.
    verdict: every('landed'),
    // alpha: whether its `filled` hedge ended is in the history past what could be read.
    dialects: { alpha: { close: 'cannot-tell' }, gamma: { close: 'not-yet' } },
  },
  'a hedge list that cannot be paged to its end: 50 records, the line holds more (alpha: page size not read)': {
    read: (kind) => {
      const truth = after(kind);
      return views(
        { ...truth, line: truth.line && { notionalUsd: truth.line.notionalUsd! + 300, hedgeId: truth.line.hedgeId } },
        { recordsCut: 50 },
      );
    },
    // A flat side lists no line to fall short of.
    verdict: { open: 'cannot-tell', add: 'cannot-tell', reduce: 'cannot-tell', close: 'landed' },
    dialects: { alpha: { close: 'landed' }, gamma: { close: 'not-yet' } },
  },
  'references in another case: the row says deal-11, its hedges were sent as Deal-11': {
    read: (kind) => {
      const truth = after(kind);
      return views({ ...truth, records: truth.records.map((record) => ({ ...record, clientReference: 'Deal-11' })) });
    },
    verdict: every('landed'),
    // delta keeps them as DEAL-11: still the row's.
    dialects: { alpha: { close: 'landed' }, gamma: { close: 'not-yet' }, delta: every('landed') },
    notTheRow: { open: [], add: [], reduce: [], close: [] },
  },
};

/** Every case of the table: the reference server's, and each dialect's where it shows the views otherwise. */
const CASES = Object.entries(TABLE).flatMap(([name, row]) =>
  KINDS.filter((kind) => row.verdict[kind] !== undefined).flatMap((kind) => {
    const read = row.read(kind);
    const reference = JSON.stringify(read.records);
    return SANDBOX_DIALECTS.filter(
      (dialect) => dialect === 'reference' || JSON.stringify(shownBy(dialect, read).records) !== reference,
    ).map((dialect) => ({ name, row, kind, dialect, read: shownBy(dialect, read) }));
  }),
);

describe('the side model: how the views disagree × kind (a dialect where it shows them otherwise)', () => {
  it.each(CASES.map((entry) => [entry.name, entry.kind, entry.dialect, entry] as const))(
    '%s: %s (%s)',
    (_name, kind, dialect, { row, read }) => {
      const verdict = dialect === 'reference' ? row.verdict[kind] : row.dialects?.[dialect]?.[kind];
      expect(verdict, `${dialect} shows these views otherwise: write out its verdict`).toBeDefined();
      const book = judged(read);
      expect(changeVerdict(book, (row.expected ?? expectedOf)(kind)).verdict).toBe(verdict);
      if (row.notTheRow) expect(notTheRows(book, ROW).map((record) => record.id)).toEqual(row.notTheRow[kind]);
    },
  );

  it('a dialect is written into a row only where it shows that row otherwise', () => {
    const entered = new Set(CASES.map((entry) => `${entry.name}|${entry.kind}|${entry.dialect}`));
    const written = Object.entries(TABLE).flatMap(([name, row]) =>
      Object.entries(row.dialects ?? {}).flatMap(([dialect, verdicts]) =>
        Object.keys(verdicts).map((kind) => `${name}|${kind}|${dialect}`),
      ),
    );
    expect(written.filter((entry) => !entered.has(entry))).toEqual([]);
  });
});

describe('what the side holds', () => {
  it('flat; held (ids and notional); settling, and why; cannot tell, and why', () => {
    expect(sideHolds(judged(views({ records: [], ended: [] })))).toEqual({ holds: 'flat' });
    expect(
      sideHolds(
        judged(
          views({
            records: [filled('b', 300), filled('a', 700)],
            line: { notionalUsd: 1_000, hedgeId: 'b' },
            ended: [],
          }),
        ),
      ),
    ).toEqual({ holds: 'held', ids: ['a', 'b'], notionalUsd: 1_000 });
    expect(sideHolds(judged(views({ records: [{ id: 'a', status: 'settling', notionalUsd: 0 }], ended: [] })))).toEqual(
      {
        holds: 'settling',
        why: 'hedge a shows status "settling", which hedge does not know (neither open nor ended)',
      },
    );
    expect(
      sideHolds(
        judged(views({ records: [filled('a', 700)], line: { notionalUsd: 1_000 }, ended: [] }, { recordsCut: 50 })),
      ),
    ).toMatchObject({ holds: 'cannot-tell', why: expect.stringContaining('may be cut at 50 filled hedges') });
    expect(
      sideHolds(judged(views({ records: [filled('a', 700)], line: { notionalUsd: -5 }, ended: [] }))),
    ).toMatchObject({ holds: 'cannot-tell', why: expect.stringContaining('which cannot be') });
  });

  it('a filled hedge on a side listed in step is held without the history; the history is asked for only where the views disagree, whether the records may be cut only where the line holds more, whether the history may be cut only when it decides', () => {
    const held = { records: [filled('a', 700)], line: { notionalUsd: 700, hedgeId: 'a' }, ended: [] };
    expect(viewsState(judged({ records: held.records, line: held.line, serverNow: { bestMs: NOW } }))).toBe('in-step');
    const unlisted = { records: [filled('a', 700)], serverNow: { bestMs: NOW } };
    expect(judgeSide(unlisted)).toEqual({ asks: 'history' });
    expect(viewsState(judged({ ...unlisted, history: { ended: new Set(['a']) } }))).toBe('flat');
    expect(judgeSide({ ...unlisted, history: { ended: new Set() } })).toEqual({ asks: 'history-cut' });
    const short = { records: [filled('a', 700)], line: { notionalUsd: 900 }, serverNow: { bestMs: NOW } };
    expect(judgeSide(short)).toEqual({ asks: 'records-cut' });
  });
});

describe('what a keeper reads of a side: the hedge it rolls, a close before maturity, a read that may be cut', () => {
  const sooner = { ...filled('a', 700), maturityAtMs: MATURITY - 86_400_000 };
  const twoHeld = { records: [filled('b', 300), sooner], line: { notionalUsd: 1_000, hedgeId: 'b' }, ended: [] };
  const opening = { id: 'c', status: 'submitted' };

  it('the hedge rolled is the soonest to mature of a held side; none while a hedge of it is still opening, or it is settling or flat', () => {
    expect(soonestHeld(judged(views(twoHeld)))).toEqual(sooner);
    expect(soonestHeld(judged(views({ ...twoHeld, records: [...twoHeld.records, opening] })))).toBeUndefined();
    expect(soonestHeld(judged(views({ ...twoHeld, line: undefined })))).toBeUndefined();
    expect(soonestHeld(judged(views({ records: [], ended: [] })))).toBeUndefined();
  });

  // Beta and delta show a close as the reference server does; gamma's `settling` is a status hedge does not know (below).
  describe.each(['reference', 'alpha'] as const)('on %s', (dialect) => {
    // The side after a close of hedge `a` (alpha leaves its record `filled`: the history has it ended).
    const closed = { ...after('close'), records: after('close').records.map(SHOWS[dialect]) };
    const newest = closed.records[0];
    it('a flat side whose newest hedge ended before its maturity was closed early; not once it matured, not while another hedge opens or a status hedge does not know shows', () => {
      expect(closedEarly(judged(views(closed)), newest, NOW)).toEqual(newest);
      expect(closedEarly(judged(views(closed)), newest, MATURITY)).toBeUndefined();
      expect(
        closedEarly(judged(views({ ...closed, records: [...closed.records, opening] })), newest, NOW),
      ).toBeUndefined();
      const unknown = { id: 'c', status: 'settling', notionalUsd: 0 };
      expect(
        closedEarly(judged(views({ ...closed, records: [...closed.records, unknown] })), newest, NOW),
      ).toBeUndefined();
      expect(closedEarly(judged(views(before('close'))), filled('a', BEFORE), NOW)).toBeUndefined();
    });
  });

  it('a read that may be cut: the hedge records, or the history; whole reads are none', () => {
    const short = { records: [filled('a', 700)], line: { notionalUsd: 1_000 }, ended: [] };
    expect(cutRead(judged(views(short, { recordsCut: 50 })))).toBe('records');
    const unlisted = { records: [filled('a', 700)], ended: [] };
    expect(cutRead(judged(views(unlisted, { history: { ended: new Set(), cutAt: 40 } })))).toBe('history');
    expect(cutRead(judged(views(twoHeld)))).toBeUndefined();
  });
});

describe("what one hedge's record says alone (a deal's live hedges, a countdown, --until's final state, watch's mark)", () => {
  it.each([
    ['submitting', 'opening', true],
    ['submitted', 'opening', true],
    ['filled', 'filled', true],
    ['closed', 'ended', false],
    ['failed', 'ended', false],
    // A status hedge does not know (an early close landing, shown at notional 0): neither live nor ended.
    ['settling', 'settling', false],
    ['pending_settlement', 'settling', false],
  ])('a hedge %s on its record: %s (live: %s)', (status, standing, live) => {
    const record = { id: 'a', status };
    expect([recordStanding(record).standing, stillLive(record)]).toEqual([standing, live]);
  });

  it('a hedge shows a countdown exactly while the model has it live, on every status it knows and one it does not', () => {
    const countdown = HEDGE_FIELDS.filter((field) => ['opened_at', 'maturity_at'].includes(field.key));
    for (const status of [...HEDGE_STATUSES, 'pending_settlement'])
      expect([status, countdown.map((field) => field.relativeWhen!({ status }))]).toEqual([
        status,
        countdown.map(() => stillLive({ id: 'a', status })),
      ]);
  });

  it('a filled record the history lists ended is ended (a server may leave an early-closed hedge `filled`); a history that lists others leaves it filled', () => {
    const record = { id: 'a', status: 'filled' };
    expect([
      recordStanding(record, new Set(['a'])).standing,
      stillLive(record, new Set(['a'])),
      recordStanding(record, new Set(['b'])).standing,
      recordStanding({ id: 'a', status: 'submitted' }, new Set(['a'])).standing,
    ]).toEqual(['ended', false, 'filled', 'opening']);
  });

  it("settling is said in the side model's words, as the side of that one hedge says it", () => {
    const record = { id: 'a', status: 'settling', notionalUsd: 0 };
    expect(recordStanding(record)).toEqual({
      standing: 'settling',
      why: (sideHolds(judged(views({ records: [record], ended: [] }))) as { why: string }).why,
    });
  });
});

describe('a change sent for a named hedge (the proof of landing and the reconciles ask it)', () => {
  // The side once another actor replaced `a` by `c`, at the notional the change would leave.
  const replaced = (kind: Kind) => {
    const usd = kind === 'add' ? BEFORE + CHANGE : kind === 'reduce' ? BEFORE - CHANGE : 250;
    return judged(views({ records: [filled('c', usd)], line: { notionalUsd: usd, hedgeId: 'c' }, ended: ['a'] }));
  };
  it.each(['add', 'reduce', 'close'] as const)(
    "%s of hedge a on a side now held by c: moved, though the side's notional alone may match (a close: landed, c opened since)",
    (kind) => {
      const expected = { ...expectedOf(kind), hedgeId: 'a' };
      expect(changeVerdict(replaced(kind), expected).verdict).toBe(kind === 'close' ? 'landed' : 'moved');
      // Still held by `a`: as the side's notional says it, the hedge unnamed.
      const read = judged(views(after(kind)));
      expect(changeVerdict(read, expected)).toEqual(changeVerdict(read, expectedOf(kind)));
      expect(changeVerdict(read, expected).verdict).toBe('landed');
    },
  );
  it("an open's own hedge filled on a side in step has landed while another hedge of the side is still being opened; not while the side settles", () => {
    const opening = { id: 'c', status: 'submitted', notionalUsd: 300, maturityAtMs: MATURITY };
    const truth = after('open');
    const read = judged(views({ ...truth, records: [...truth.records, opening] }));
    // Unnamed, the side alone is still settling.
    expect(changeVerdict(read, { ...expectedOf('open'), hedgeId: undefined }).verdict).toBe('not-yet');
    expect(changeVerdict(read, expectedOf('open')).verdict).toBe('landed');
    const ended = judged(views({ records: [{ ...filled('b', BEFORE), status: 'closed' }, opening], ended: [] }));
    expect(changeVerdict(ended, expectedOf('open')).verdict).toBe('landed');
    const unlisted = judged(views({ ...truth, line: undefined }));
    expect(changeVerdict(unlisted, expectedOf('open')).verdict).toBe('not-yet');
  });
});

describe("where one view's notional stands against a change", () => {
  it.each([
    [BEFORE + CHANGE, 'landed'],
    [BEFORE + CHANGE + 0.004, 'landed'],
    [BEFORE, 'not-yet'],
    [BEFORE + CHANGE / 2, 'moved'],
    [BEFORE + 2 * CHANGE, 'moved'],
    [undefined, 'cannot-tell'],
  ])('an add to %s: %s (the waits, a change that settled meanwhile and changeVerdict read it so)', (now, says) => {
    expect(notionalVerdict(now, BEFORE, BEFORE + CHANGE)).toBe(says);
  });
});

describe('a side as it was shown', () => {
  const shown = { hedge_ids: ['a', 'b'], notional_usd: BEFORE };
  it.each([
    [{ hedge_ids: ['a', 'b'], notional_usd: BEFORE + 0.004 }, true],
    [{ hedge_ids: ['a', 'b'], notional_usd: BEFORE - 0.004 }, true],
    [{ hedge_ids: ['a', 'b'], notional_usd: BEFORE + 0.01 }, false],
    [{ hedge_ids: ['a', 'b'], notional_usd: BEFORE - 0.01 }, false],
    [{ hedge_ids: ['a', 'c'], notional_usd: BEFORE }, false],
    [{ hedge_ids: ['a'], notional_usd: BEFORE }, false],
  ])('%j is the same side: %s (the same hedges, the same notional to the cent)', (now, same) => {
    expect(sameSide(shown, now)).toBe(same);
  });
});

describe("whether a hedge may have matured by an instant on the server's clock (a roll's close of several hedges)", () => {
  it.each([
    [1_000, 999, false],
    [1_000, 1_000, true],
    [1_000, 5_000, true],
    [undefined, 0, true],
  ])('maturing at %s, the instant at the latest %s: %s', (maturityAtMs, latestMs, may) => {
    expect(mayHaveMatured(maturityAtMs, { latestMs })).toBe(may);
  });
});

describe("the server's clock as the model reads it: the latest it may read, a maturity within a margin, a landing, this machine's time of a server's instant", () => {
  /** The server 2 s ahead of this machine at its 10,000, give or take 500 ms. */
  const serverNow = { localMs: 10_000, bestMs: 12_000, earliestMs: 11_500, latestMs: 12_500, assumed: false };

  it('the latest it may read: its reading, or an instant known exactly', () => {
    expect([latestOf(serverNow), latestOf(7_000)]).toEqual([12_500, 7_000]);
  });

  it.each([
    // A roll due once its hedge may mature within roll_before (1,000 ms here), by the latest the clock may read.
    [13_500, 1_000, true],
    [13_501, 1_000, false],
    [12_500, 0, true],
    [12_501, 0, false],
    [undefined, 0, true],
  ])('maturing at %s, within %s ms of the reading: may have matured %s', (maturityAtMs, withinMs, may) => {
    expect(mayHaveMatured(maturityAtMs, serverNow, withinMs)).toBe(may);
  });

  it("a write sent now lands within one request's bound past the best reading; a hedge maturing before that may settle first", () => {
    expect(whenLanded(serverNow, 15_000)).toBe(27_000);
    expect([27_000, 27_001].map((maturityAtMs) => mayHaveMatured(maturityAtMs, whenLanded(serverNow, 15_000)))).toEqual(
      [true, false],
    );
  });

  it("a server's instant on this machine's clock, the latest it can have been (by the earliest the server's reads): a time not given compares false", () => {
    expect(latestHereAt(11_500, serverNow)).toBe(10_000);
    expect(latestHereAt(5_000, serverNow)).toBe(3_500);
    expect(latestHereAt(NaN, serverNow) < Infinity).toBe(false);
  });
});

describe("whether a hedge of the side ended lately on the server's clock (a roll of a side it left flat)", () => {
  const book = judged(
    views({ records: [closed('a', BEFORE), { ...closed('f', BEFORE), status: 'failed' }], ended: [] }),
  );
  it.each([
    [1_000, 1_999, true],
    [1_000, 2_000, true],
    [1_000, 2_001, false],
    [5_000, 2_000, true],
    [undefined, 0, false],
  ])('maturing at %s, the server at %s, within 1,000 ms: %s', (maturityAtMs, bestMs, lately) => {
    expect(endedLately(book, { id: 'a', status: 'closed', maturityAtMs }, 1_000, { bestMs })).toBe(lately);
  });

  it('one that failed never held anything, and one the side does not show ended, did not', () => {
    const at = { bestMs: 1_500 };
    expect(endedLately(book, { id: 'f', status: 'failed', maturityAtMs: 1_000 }, 1_000, at)).toBe(false);
    expect(endedLately(book, { id: 'x', status: 'closed', maturityAtMs: 1_000 }, 1_000, at)).toBe(false);
  });
});

describe('whether no view gives the side its size', () => {
  const bare = { id: 'a', status: 'filled' };
  it.each([
    ['a record without a notional, a line without one', [bare], {}, true],
    ['a record without a notional, a line with one', [bare], { notionalUsd: BEFORE }, false],
    ['every record with its notional', [filled('a', BEFORE)], {}, false],
  ] as const)('%s: %s', (_name, records, line, none) => {
    expect(unsized(judged(views({ records: [...records], line, ended: [] })))).toBe(none);
  });
});

describe("whether a side is still what a roll's plan bound, as a later read finds it on the server's clock", () => {
  /** The server's time at this machine's `localMs`, as far as the clock can tell it. */
  const clockAt = (localMs: number, bestMs: number, latestMs: number) => ({
    localMs,
    bestMs,
    latestMs,
    earliestMs: bestMs - 300,
    assumed: false,
  });
  const two = { hedge_ids: ['a', 'b'], notional_usd: BEFORE };
  const soonest = { id: 'b', maturityAtMs: 1_000 };
  const flat = { hedge_ids: [], notional_usd: 0 };
  it.each([
    ['several, as planned, before the soonest matures', { shown: two, soonest }, two, 999, undefined],
    ['several, the soonest may have matured', { shown: two, soonest }, two, 1_000, { matured: soonest }],
    ['several, one gone', { shown: two, soonest }, { hedge_ids: ['a'], notional_usd: 600 }, 999, 'moved'],
    ['several, an add on one', { shown: two, soonest }, { ...two, notional_usd: BEFORE + 500 }, 999, 'moved'],
    ['several, all gone', { shown: two, soonest }, flat, 999, 'moved'],
    [
      'a lone hedge that ended: renewed anew',
      { shown: { hedge_ids: ['a'], notional_usd: BEFORE } },
      flat,
      5_000,
      undefined,
    ],
    [
      'a lone hedge swapped',
      { shown: { hedge_ids: ['a'], notional_usd: BEFORE } },
      { hedge_ids: ['c'], notional_usd: BEFORE },
      0,
      'moved',
    ],
  ] as const)('%s: %j', (_name, bound, found, latestMs, changed) => {
    // After the close, judged when it ended (this machine's time), by the latest the server's clock may read then.
    const serverNow = clockAt(10_000, 10_000 + latestMs - 300, 10_000 + latestMs);
    const verdict = changedSincePlan(bound, found, { serverNow, closedAtLocalMs: 0 });
    expect(verdict).toEqual(changed === 'moved' ? { moved: found } : changed);
  });

  it.each([
    ['several, the soonest past the landing but before the latest reading', { shown: two, soonest }, 600, 1_000, true],
    ['several, before both', { shown: two, soonest }, 600, 999, false],
    [
      'a lone hedge maturing before the close lands',
      { shown: { hedge_ids: ['b'], notional_usd: BEFORE }, soonest },
      1_000,
      0,
      true,
    ],
    [
      'a lone hedge, the latest reading past it but not the landing',
      { shown: { hedge_ids: ['b'], notional_usd: BEFORE }, soonest },
      999,
      5_000,
      false,
    ],
  ] as const)(
    'before the close, landing within 400 ms of bestMs 200: %s',
    (_name, bound, landsMs, latestMs, matured) => {
      const serverNow = clockAt(0, 200, latestMs);
      const verdict = changedSincePlan(bound, bound.shown, { serverNow, landingMs: landsMs - 200 });
      const lone = bound.shown.hedge_ids.length === 1;
      // A lone hedge that may mature before the close lands is left to settle; of several, the side would be split.
      expect(verdict).toEqual(matured ? { matured: soonest, ...(lone && { settles: true }) } : undefined);
    },
  );

  it("a lone hedge once closed: the close's own hedge ending is no split", () => {
    const shown = { hedge_ids: ['b'], notional_usd: BEFORE };
    const serverNow = clockAt(0, 5_000, 5_000);
    expect(changedSincePlan({ shown, soonest }, shown, { serverNow })).toBeUndefined();
  });
});

describe('the hedges the server named in its answers to opens of the side (a read that trails the write)', () => {
  const filled = { id: 'a', status: 'filled', notionalUsd: 1_000, maturityAtMs: MATURITY };
  const inStep = { records: [filled], ended: [], line: { notionalUsd: 1_000, hedgeId: 'a' } };

  it('one no view shows: settling, naming it, on a side that would be flat or in step; one its records show, in any standing, changes nothing', () => {
    const flat = judged(views({ records: [], ended: [] }, { named: ['n'] }));
    expect([viewsState(flat), flat.why, flat.unseen]).toEqual([
      'settling',
      'it does not show hedge n yet, which the server named in its answer to an open of it',
      'n',
    ]);
    expect(sideHolds(judged(views(inStep, { named: ['a', 'n'] })))).toMatchObject({ holds: 'settling' });
    for (const status of ['submitted', 'failed', 'closed']) {
      const shown = { ...inStep, records: [filled, { id: 'n', status }] };
      expect(judged(views(shown, { named: ['a', 'n'] })), status).toEqual(judged(views(shown)));
    }
    expect(judged(views(inStep, { named: ['a'] }))).toEqual(judged(views(inStep)));
  });

  it('on a side settling already, its own reason stands', () => {
    const book = judged(views({ records: [filled], ended: [] }, { named: ['n'] }));
    expect([viewsState(book), book.unseen, book.why]).toEqual([
      'settling',
      undefined,
      judged(views({ records: [filled], ended: [] })).why,
    ]);
  });
});

describe("a write's proof over every view, and a resume's reconcile on the same proof", () => {
  const verdictOf = (...args: Parameters<typeof changeVerdict>) => {
    const proof = changeVerdict(...args);
    return proof.asks ? `asks ${proof.asks}` : proof.verdict;
  };
  const two = { records: [filled('a', 600), filled('b', 400)], line: { notionalUsd: BEFORE, hedgeId: 'a' }, ended: [] };
  const onlyB = { records: [filled('b', 400)], line: { notionalUsd: 400, hedgeId: 'b' }, ended: ['a'] };
  const flat = judged(views({ records: [{ ...filled('a', BEFORE), status: 'closed' }], ended: [] }));

  it('a close of a side of two hedges lands once neither shows, not while one of those it ended is still held; a side held only by a hedge opened since has landed', () => {
    const close = { kind: 'close', before: BEFORE, hedgeId: 'a', gone: ['a', 'b'] } as const;
    expect(verdictOf(judged(views(two)), close)).toBe('not-yet');
    expect(verdictOf(judged(views(onlyB)), close)).toBe('not-yet');
    const since = { records: [filled('c', 300)], line: { notionalUsd: 300, hedgeId: 'c' }, ended: ['a', 'b'] };
    expect(verdictOf(judged(views(since)), close)).toBe('landed');
    expect(verdictOf(judged(views({ records: [], ended: ['a', 'b'] })), close)).toBe('landed');
  });

  it("an add or a reduce whose side every view shows flat, though it would not close it, is judged by its hedge's record: carrying it, landed; at its figure before, it ended first; otherwise, unread, or where the side's other changes known since make its figure either way, cannot be told", () => {
    for (const kind of ['add', 'reduce'] as const) {
      const expected = { ...expectedOf(kind), hedgeId: 'a' };
      const after = kind === 'add' ? BEFORE + CHANGE : BEFORE - CHANGE;
      expect(verdictOf(flat, expected, { ...filled('a', after), status: 'closed' })).toBe('landed');
      expect(verdictOf(flat, expected, { ...filled('a', BEFORE), status: 'closed' })).toBe('ended-first');
      expect(verdictOf(flat, expected, { ...filled('a', 77), status: 'closed' })).toBe('ended-untold');
      expect(verdictOf(flat, expected, null)).toBe('ended-untold');
      expect(verdictOf(flat, expected)).toBe('asks hedge');
      // The side's other changes known since: the record is told only where no sum of them makes its figure both with
      // the change and without it.
      const record = (figure: number) => ({ ...filled('a', figure), status: 'closed' as const });
      const other = kind === 'add' ? 'reduce' : 'add';
      // Another change of the same amount the other way: back at the old figure may be both netting out.
      const nets = {
        ...expected,
        others: [
          { kind: other, changeUsd: CHANGE },
          { kind: 'add', changeUsd: 77 },
        ],
      } as const;
      expect([BEFORE, after].map((figure) => verdictOf(flat, nets, record(figure)))).toEqual([
        'ended-untold',
        'landed',
      ]);
      // The same way: the figure with the change may be the other's alone.
      const same = { ...expected, others: [{ kind, changeUsd: CHANGE }] };
      expect([BEFORE, after].map((figure) => verdictOf(flat, same, record(figure)))).toEqual([
        'ended-first',
        'ended-untold',
      ]);
      const apart = {
        ...expected,
        others: [
          { kind: 'add', changeUsd: 77 },
          { kind: 'reduce', changeUsd: 31 },
        ],
      } as const;
      expect([BEFORE, after, BEFORE + 46].map((figure) => verdictOf(flat, apart, record(figure)))).toEqual([
        'ended-first',
        'landed',
        'ended-first',
      ]);
      expect(verdictOf(flat, { ...expected, others: [{ kind: 'add' }] }, record(after))).toBe('ended-untold');
    }
    // A reduce of about the whole side closes it: flat is its landing, no record needed.
    expect(verdictOf(flat, { kind: 'reduce', before: BEFORE, changeUsd: BEFORE })).toBe('landed');
  });

  it('an add that shows in part is not yet landed, and said apart from a side as it was (at the bound: cannot be told)', () => {
    const part = judged(
      views({
        records: [filled('a', BEFORE + CHANGE / 2)],
        line: { notionalUsd: BEFORE + CHANGE / 2, hedgeId: 'a' },
        ended: [],
      }),
    );
    expect(verdictOf(part, expectedOf('add'))).toBe('partly');
    expect(verdictOf(judged(views(before('add'))), expectedOf('add'))).toBe('not-yet');
  });

  it("a resume's reconcile: the wait's proof, with a side that held nothing, a close's hedge that may have matured (on the latest the views' clock reads) and a close never answered whose own hedge is still held", () => {
    const serverNow = { bestMs: NOW, latestMs: NOW + 60_000 };
    const close = { kind: 'close', before: BEFORE, hedgeId: 'a' } as const;
    const gone = judged(views({ records: [], ended: ['a'] }));
    expect(earlierChange(gone, close, { answered: true, serverNow })).toEqual({ asks: 'hedge' });
    expect(earlierChange(gone, close, { answered: true, hedge: filled('a', BEFORE), serverNow })).toEqual({
      verdict: 'landed',
    });
    const maturing = { ...filled('a', BEFORE), maturityAtMs: NOW + 30_000 };
    expect(earlierChange(gone, close, { answered: true, hedge: maturing, serverNow })).toEqual({
      verdict: 'unknown',
      why: 'matured',
    });
    expect(earlierChange(gone, close, { answered: true, hedge: null, serverNow })).toEqual({
      verdict: 'unknown',
      why: 'unread',
    });
    const held = judged(views(before('close')));
    expect(earlierChange(held, close, { answered: false, serverNow })).toEqual({ verdict: 'not-landed' });
    expect(earlierChange(held, close, { answered: true, serverNow })).toEqual({ verdict: 'unknown' });
    const nothing = judged(views({ records: [], ended: [] }));
    expect(earlierChange(nothing, { kind: 'close', before: 0 }, { answered: false, serverNow })).toEqual({
      verdict: 'not-landed',
      why: 'held-nothing',
    });
    expect(earlierChange(nothing, { kind: 'close', before: 0 }, { answered: true, serverNow })).toMatchObject({
      verdict: 'unknown',
    });
    const added = judged(views(after('add')));
    expect(earlierChange(added, expectedOf('add'), { answered: false, serverNow })).toEqual({ verdict: 'landed' });
  });

  it("a resume's reconcile beside what the journal knows: views still settling at the read's bound are an answered send landing, an unanswered one untold; another change of the side since leaves a close's absence and a side as before untold; the baseline moved by the adds and reduces that landed since", () => {
    const serverNow = { bestMs: NOW };
    expect(earlierChange(undefined, expectedOf('add'), { answered: true, serverNow })).toMatchObject({
      verdict: 'landed',
    });
    expect(earlierChange(undefined, expectedOf('add'), { answered: false, serverNow })).toMatchObject({
      verdict: 'unknown',
    });
    const close = { kind: 'close', before: BEFORE, hedgeId: 'a' } as const;
    const gone = judged(views({ records: [], ended: ['a'] }));
    const since = { answered: true, changedSince: true, hedge: filled('a', BEFORE), serverNow };
    expect(earlierChange(gone, close, since)).toEqual({ verdict: 'unknown' });
    expect(earlierChange(judged(views(before('close'))), close, { ...since, answered: false })).toEqual({
      verdict: 'unknown',
    });
    expect(earlierChange(judged(views(after('add'))), expectedOf('add'), since)).toEqual({ verdict: 'landed' });
    expect(earlierChange(gone, undefined, { answered: true, serverNow })).toMatchObject({ verdict: 'unknown' });
    expect(movedBefore(BEFORE, [])).toBe(BEFORE);
    expect(
      movedBefore(BEFORE, [
        { kind: 'add', changeUsd: CHANGE },
        { kind: 'reduce', changeUsd: 100.254 },
      ]),
    ).toBe(1_299.75);
  });

  it("a resume's reconcile of an open: its named hedge, followed (one that cannot be read or in a status hedge does not know: untold); else the side's hedges opened since, by the deal reference it carries (none: it never landed, unless another change of the side is known since), without a reference untold", () => {
    const b = filled('b', BEFORE);
    const odd = { id: 'b', status: 'settling', notionalUsd: 0 };
    expect(earlierOpen({ named: b })).toEqual({ verdict: 'landed', hedge: b });
    expect(earlierOpen({ named: null })).toEqual({ verdict: 'unknown' });
    expect(earlierOpen({ named: odd })).toMatchObject({ verdict: 'unknown', why: expect.stringContaining('settling') });
    expect(earlierOpen({ opened: [b], byReference: true })).toEqual({ verdict: 'landed', hedge: b });
    expect(earlierOpen({ opened: [], byReference: true })).toEqual({ verdict: 'not-landed' });
    expect(earlierOpen({ opened: [], byReference: true }, true)).toEqual({ verdict: 'unknown' });
    expect(earlierOpen({ opened: [b], byReference: false })).toEqual({ verdict: 'unknown' });
  });

  it('what a close takes: its filled hedges and those being opened; flat, 0; a reduce beyond what every view agrees it holds', () => {
    const opening = { id: 'c', status: 'submitted', notionalUsd: 250 };
    expect(closeTakes(judged(views({ ...two, records: [...two.records, opening] })))).toBe(BEFORE + 250);
    expect(closeTakes(judged(views({ records: [], ended: [] })))).toBe(0);
    expect(reduceBeyondHeld(judged(views(two)), BEFORE + 0.01)).toEqual({ heldUsd: BEFORE, ids: ['a', 'b'] });
    expect(reduceBeyondHeld(judged(views(two)), BEFORE + 0.004)).toBeUndefined();
    expect(reduceBeyondHeld(judged(views({ ...two, line: undefined })), BEFORE * 2)).toBeUndefined();
  });

  it("whether a deal's reference is in use: held on its side; being opened; filled and not ended; of filled ones on a side whose history may be cut, cannot be told; a status hedge does not know, neither", () => {
    const a = filled('a', BEFORE);
    expect(referenceInUse([a])).toEqual({ asks: 'books', of: ['a'] });
    const inStep = judged(views({ records: [a], line: { notionalUsd: BEFORE, hedgeId: 'a' }, ended: [] }));
    expect(referenceInUse([a], () => inStep)).toEqual({ active: [a], unknown: [] });
    const endedA = judged(views({ records: [a], ended: ['a'] }));
    expect(referenceInUse([a], () => endedA)).toEqual({ active: [], unknown: [] });
    const cut = judged(views({ records: [a], ended: [] }, { history: { ended: new Set(), cutAt: 50 } }));
    expect(referenceInUse([a], () => cut)).toEqual({ active: [a], unknown: [], historyCut: 50 });
    const opening = { id: 'o', status: 'submitted' };
    const odd = { id: 's', status: 'settling' };
    expect(referenceInUse([opening, odd])).toEqual({ active: [opening], unknown: [odd] });
  });
});
