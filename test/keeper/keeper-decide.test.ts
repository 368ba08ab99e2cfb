// The keeper's decisions as data, table by table: (what it remembers, what a cycle read) → the steps
// it starts, what it says, each row's status; a step's writes planned under the side's lock; how a
// step's end and a write's outcome change what it remembers. No server, no clock, no I/O.
import { hostname } from 'node:os';
import type { JournalEntry } from '../../src/platform/journal/index.js';
import { judgeSide, reconcileSide, type HedgeRecord, type SideBook } from '../../src/features/book/book.js';
import {
  decide,
  heldReason,
  initialKeeperState,
  plan,
  resumed,
  stepEnded,
  toResume,
  unresolvedSides,
  wouldSay,
  wrote,
  type BookObservation,
  type SideObservation,
} from '../../src/features/keeper/keeper-decide.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const NOW = Date.parse('2026-03-02T09:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const ROW = { market: 'USDTNGN', side: 'sell', notionalUsd: 2000, tenorDays: 1 } as const;
const KEY = 'USDTNGN sell';
const LIVE = { dryRun: false, converge: false, intervalMs: MINUTE, toleranceUsd: 0 };

const side = (records: HedgeRecord[], line?: { notionalUsd: number; hedgeId: string; maturityAtMs: number }) =>
  ({ book: reconcileSide(records, line, NOW) }) as SideObservation;
const flat = side([]);
/** Flat, but an open of it was answered with a hedge no view shows yet. */
const UNSEEN = { book: judgeSide({ records: [], serverNow: { bestMs: NOW }, named: ['hdg_new'] }) as SideBook };
/** One filled hedge in both views, maturing `inMs` from now. */
const covered = (notionalUsd: number, inMs: number, hedgeId = 'hdg_1') =>
  side([{ id: hedgeId, status: 'filled', notionalUsd, maturityAtMs: NOW + inMs }], {
    notionalUsd,
    hedgeId,
    maturityAtMs: NOW + inMs,
  });
/** Covered at the target of 2,000 (or drifted to 1,500), maturing tomorrow or within roll_before. */
const [COVERED, ROLL_DUE, DRIFTED, DRIFTED_DUE] = [
  covered(2000, 24 * HOUR),
  covered(2000, 30 * MINUTE),
  covered(1500, 24 * HOUR),
  covered(1500, 30 * MINUTE),
];
/** Flat after its newest hedge (maturing tomorrow) was closed an hour ago. */
const closedEarly = {
  ...flat,
  newest: {
    id: 'hdg_9',
    market: 'USDTNGN',
    side: 'sell',
    status: 'closed',
    maturity_at: iso(NOW + 24 * HOUR),
    closed_at: iso(NOW - HOUR),
  } as never,
};

/** …which the journal shows no roll closed: a colleague's close. */
const colleagueClosed = { ...closedEarly, closedByRoll: false };
/** Filled on its record, not in the positions list yet. */
const unlisted = side([{ id: 'hdg_1', status: 'filled', notionalUsd: 2000, maturityAtMs: NOW + 24 * HOUR }]);
/** This keeper's own re-open, as it waits for it to show. */
const reopened = (sinceMs: number) =>
  remembered({
    expected: { what: 're-open (2,000.00 USD)', kind: 'open', before: 0, changeUsd: 2000, hedgeId: 'hdg_new', sinceMs },
  });

const bookOf = (observed: SideObservation, more: Partial<BookObservation> = {}): BookObservation => ({
  sides: [observed],
  time: { localMs: NOW, earliestMs: NOW, latestMs: NOW, bestMs: NOW, assumed: false },
  clock: { from: ['date'] },
  ...more,
});

/** A state as earlier cycles left it: what they remember of the side. */
const remembered = (side: object) => ({
  ...initialKeeperState(),
  sides: new Map([[KEY, { failures: 0, retryAtMs: 0, said: {}, closedByUs: {}, ...side }]]),
});

/** A dry run's write: checked as an open (after a close that frees `freedUsd`), said with "would". */
const would = (notionalUsd: number, freedUsd: number, say: object) =>
  expect.objectContaining({ check: { notionalUsd, freedUsd }, say: expect.objectContaining(say) });
/** The add of 500 to a side 500 short of its target; the roll of the target's notional. */
const [WOULD_ADD_500, WOULD_ROLL_2000] = [
  would(500, 0, {
    event: 'converge',
    action: 'add',
    message: 'would add 500.00 USD to reach the target of 2,000.00 USD',
  }),
  would(2000, 2000, { message: 'would roll: close hdg_1, then open 2,000.00 USD for 1 days' }),
];

const DECIDE = [
  {
    name: 'a book that could not be read: the error said, nothing started, the side unknown (never flat)',
    observation: { book: { error: new Error('GET /positions timed out') } },
    said: ['error: GET /positions timed out'],
    status: { state: 'unknown (the book could not be read)', current_usd: null, current_unknown: true },
  },
  {
    name: 'a step of the row still in flight: nothing started again, the row says since when',
    observation: { inFlight: new Map([[KEY, { kind: 'reopen' as const, sinceMs: NOW - 30_000 }]]) },
    status: 'reopen in flight (30 s)',
  },
  {
    name: 'an unresolved action of the side: left alone, said as a skip (once while it stays unresolved), and the roll it will need still shown',
    again: 1,
    side: COVERED,
    observation: { unresolved: new Map([[KEY, 'the add of journal j1 is unresolved']]) },
    said: ['skip: the add of journal j1 is unresolved'],
    status: {
      state: 'the add of journal j1 is unresolved',
      current_usd: 2000,
      next_action: 'roll',
      next_action_at: iso(NOW + 23 * HOUR),
    },
  },
  {
    name: 'covered, its roll not due: held, naming when it rolls (roll_before ahead of maturity)',
    side: COVERED,
    status: { state: 'covered', current_usd: 2000, next_action: 'roll', next_action_at: iso(NOW + 23 * HOUR) },
  },
  {
    name: 'covered, within roll_before of its maturity: a roll of that hedge started',
    side: ROLL_DUE,
    actions: [{ kind: 'roll', key: KEY, hedgeIds: ['hdg_1'] }],
    status: 'roll in flight',
  },
  {
    name: 'flat: a re-open started (planned again under the lock)',
    actions: [{ kind: 'reopen', hedgeIds: [] }],
    status: { state: 'reopen in flight', current_usd: null },
  },
  {
    name: 'flat, --dry-run: the re-open is its checks and what it would say',
    settings: { dryRun: true },
    actions: [
      {
        kind: 'reopen',
        writes: [
          {
            check: { notionalUsd: 2000, freedUsd: 0 },
            say: {
              event: 'reopen',
              market: 'USDTNGN',
              side: 'sell',
              dry_run: true,
              notional_usd: 2000,
              tenor_days: 1,
              message: 'would open 2,000.00 USD for 1 days',
            },
          },
        ],
      },
    ],
    status: 'reopen in flight',
  },
  {
    name: 'roll due, --dry-run: checked as an open after a close that frees the same notional',
    side: ROLL_DUE,
    settings: { dryRun: true },
    actions: [
      {
        kind: 'roll',
        writes: [WOULD_ROLL_2000],
      },
    ],
    status: 'roll in flight',
  },
  {
    name: 'flat past `until`: not re-opened, said as a skip, once',
    again: 1,
    row: { untilMs: NOW - HOUR },
    said: [/^skip: the exposure ended \(until 2026-03-02 08:00 UTC\)/],
    status: { state: expect.stringMatching(/^the exposure ended/) },
  },
  {
    name: 'drifted (a colleague reduced it), without --converge: reported only (once while it stays the same drift), nothing started',
    again: 2,
    side: DRIFTED,
    said: ['drift: reported only; run with --converge to bring it back'],
    status: 'drifted to 1,500.00 USD (target 2,000.00 USD): reported only (run with --converge to bring it back)',
  },
  {
    name: 'drifted, with --converge: said every cycle, and brought back',
    side: DRIFTED,
    settings: { converge: true },
    earlier: 1,
    actions: [{ kind: 'drift', hedgeIds: ['hdg_1'] }],
    said: ['drift: --converge add 500.00 USD to reach the target'],
    status: 'drift in flight',
  },
  {
    name: 'drifted, --converge --dry-run: said with "would", the add checked as an open',
    side: DRIFTED,
    settings: { converge: true, dryRun: true },
    actions: [
      {
        kind: 'drift',
        writes: [WOULD_ADD_500],
      },
    ],
    said: ['drift: --converge would add 500.00 USD to reach the target'],
    status: 'drift in flight',
  },
  {
    name: 'drifted and its roll due, without --converge: the drift reported, the roll started',
    side: DRIFTED_DUE,
    actions: [{ kind: 'drift' }],
    said: ['drift: reported only; run with --converge to bring it back'],
    status: 'drift in flight',
  },
  {
    name: 'drifted and its roll due, --dry-run without --converge: the drift reported, the roll a real run starts said with "would" and checked',
    side: DRIFTED_DUE,
    settings: { dryRun: true },
    actions: [
      {
        kind: 'drift',
        writes: [
          {
            check: { notionalUsd: 1500, freedUsd: 1500 },
            say: {
              event: 'roll',
              market: 'USDTNGN',
              side: 'sell',
              dry_run: true,
              notional_usd: 1500,
              hedge_ids: ['hdg_1'],
              maturity_at: iso(NOW + 30 * MINUTE),
              tenor_days: 1,
              message: 'would roll: close hdg_1, then open 1,500.00 USD for 1 days',
            },
          },
        ],
      },
    ],
    said: ['drift: reported only; run with --converge to bring it back'],
    status: 'drift in flight',
  },
  {
    name: 'drifted and its roll due, --converge --dry-run: the add, then the roll of the target notional, as a real run makes them',
    side: DRIFTED_DUE,
    settings: { converge: true, dryRun: true },
    actions: [
      {
        kind: 'drift',
        writes: [WOULD_ADD_500, WOULD_ROLL_2000],
      },
    ],
    said: ['drift: --converge would add 500.00 USD to reach the target'],
    status: 'drift in flight',
  },
  {
    name: "a colleague's close before maturity (the journal shows no roll closed it): drift, left flat",
    side: colleagueClosed,
    said: [
      'drift: closed outside the keeper (hdg_9); left flat: not re-opened until the target file says so again (edit it, then SIGHUP), or run with --converge',
    ],
    status: 'flat: closed outside the keeper (drift): reported only (run with --converge to bring it back)',
  },
  {
    name: '…restored with --converge',
    side: colleagueClosed,
    settings: { converge: true },
    actions: [{ kind: 'drift' }],
    said: ['drift: closed outside the keeper (hdg_9); --converge re-open 2,000.00 USD to reach the target'],
    status: 'drift in flight',
  },
  {
    name: "flat after this keeper's own roll closed its hedge: the keeper's to re-open, not drift",
    side: closedEarly,
    state: remembered({ closedByUs: { hdg_9: true } }),
    actions: [{ kind: 'reopen' }],
    status: 'reopen in flight',
  },
  {
    name: "…and as the journal shows it (the roll's rows name the hedge): the keeper's to re-open, not drift",
    side: { ...closedEarly, closedByRoll: true },
    actions: [{ kind: 'reopen' }],
    status: 'reopen in flight',
  },
  {
    name: 'a stop asked for: nothing new started',
    observation: { stopping: true },
    status: 'stopping: not started',
  },
  {
    name: 'views that disagree (filled on its record, not in the positions list): settling, what it holds unknown',
    side: unlisted,
    status: {
      state: expect.stringMatching(/^settling: hedge hdg_1 is filled on its record, not in the positions list yet/),
      current_usd: null,
      current_unknown: true,
    },
  },
  {
    name: 'settling past 10 min (server time): cannot tell, said once',
    again: 1,
    side: unlisted,
    state: remembered({ settlingSince: NOW - 11 * MINUTE }),
    said: [/^error: The sell side of USDTNGN has been settling for 11 min \(server time\)/],
    status: { current_unknown: true },
  },
  {
    name: 'flat, but an open of it was answered with a hedge no view shows yet: settling, never re-opened',
    side: UNSEEN,
    status: { state: expect.stringMatching(/it does not show hedge hdg_new yet/), current_unknown: true },
  },
  {
    name: 'a hedge of the side still opening: held until it resolves',
    side: side([{ id: 'hdg_2', status: 'submitted' }]),
    status: { state: 'hdg_2 is submitted; waiting for it to resolve', current_usd: null, current_unknown: true },
  },
  {
    name: 'covered, its roll due, but another hedge of the side still opening: held until it resolves, never rolled meanwhile',
    side: side(
      [
        { id: 'hdg_1', status: 'filled', notionalUsd: 2000, maturityAtMs: NOW + 30 * MINUTE },
        { id: 'hdg_2', status: 'submitted' },
      ],
      { notionalUsd: 2000, hedgeId: 'hdg_1', maturityAtMs: NOW + 30 * MINUTE },
    ),
    status: { state: 'hdg_2 is submitted; waiting for it to resolve', current_usd: null, current_unknown: true },
  },
  {
    name: 'a hedge of the side in a status hedge does not know: settling, nothing sent',
    side: side([{ id: 'hdg_2', status: 'pending' }]),
    status:
      'settling: hedge hdg_2 shows status "pending", which hedge does not know (neither open nor ended); waiting for every view to agree',
  },
  {
    name: "this keeper's own re-open not in every view yet: settling, nothing sent",
    state: reopened(NOW),
    status:
      "settling: this keeper's own re-open (2,000.00 USD) is not in every view yet; waiting for every view to agree",
    expecting: true,
  },
  {
    name: '…past 10 min after it landed: cannot tell',
    state: reopened(NOW - 11 * MINUTE),
    said: [/^error: this keeper's own re-open \(2,000.00 USD\) is not in every view yet 11 min after it landed/],
    status: { current_unknown: true },
    expecting: true,
  },
  {
    name: '…shown in every view: the expectation dropped, the side decided again',
    side: covered(2000, 24 * HOUR, 'hdg_new'),
    state: reopened(NOW),
    status: 'covered',
    expecting: false,
  },
  {
    name: "no Date header and no open answered: the server's clock unknown, said once",
    again: 1,
    side: COVERED,
    book: { time: { localMs: NOW, earliestMs: NOW, latestMs: NOW + 5 * MINUTE, bestMs: NOW, assumed: true } },
    said: [/^notice server_time_unknown: The server sends no Date header/],
    status: 'covered',
  },
  {
    name: "no Date header, the clock known from the answers' stamps: said",
    side: COVERED,
    book: { clock: { from: ['stamps' as const], lowMs: 0, highMs: 0 } },
    said: [/^notice server_time_from_stamps: The server sends no Date header: its clock is/],
    status: 'covered',
  },
  {
    name: "a Date header behind the times in the server's records: said as not used, never as no Date header",
    side: COVERED,
    book: { clock: { from: ['stamps' as const], lowMs: 0, highMs: 0, dateBehindMs: 300_000 } },
    said: [
      /^notice server_time_from_stamps: The server's Date header is behind the times in its records \(not used\): its clock is .*its Date header is 5 min behind the times in its records, so not used\)\.$/,
    ],
    status: 'covered',
  },
  {
    name: "the server's clock 10 min ahead: said; the roll timed on the server's",
    side: covered(2000, 65 * MINUTE),
    book: {
      time: {
        localMs: NOW,
        earliestMs: NOW + 10 * MINUTE,
        latestMs: NOW + 10 * MINUTE,
        bestMs: NOW + 10 * MINUTE,
        assumed: false,
      },
    },
    actions: [{ kind: 'roll' }],
    said: [/^notice clock_skew: The server's clock is 10 min ahead of this machine's/],
    status: 'roll in flight',
  },
];

it.each(DECIDE)('decide: $name', (row) => {
  const settings = { ...LIVE, ...row.settings };
  const observation = {
    rows: [{ ...ROW, ...row.row }],
    book: bookOf(row.side ?? flat, row.book),
    unresolved: new Map(),
    inFlight: new Map(),
    stopping: false,
    ...row.observation,
  };
  let state = row.state ?? initialKeeperState();
  for (let cycle = 0; cycle < (row.earlier ?? 0); cycle++) state = decide(state, observation, NOW, settings).state;
  const before = JSON.stringify([...state.sides]);
  const decided = decide(state, observation, NOW, settings);
  // A dry run's writes as it checks and says them.
  expect(decided.actions.map((action) => ({ ...action, writes: action.writes?.map(wouldSay) }))).toEqual(
    (row.actions ?? []).map((action) => expect.objectContaining(action)),
  );
  // A live step is planned again under the side's lock; a dry run's writes are this cycle's.
  for (const action of decided.actions) expect(action.writes !== undefined).toBe(settings.dryRun);
  // What was said, one line each: an event with its code and reason or message, or an error's message.
  expect(
    decided.events.map((one) =>
      'say' in one
        ? `${one.say.event}${one.say.code ? ` ${String(one.say.code)}` : ''}: ${String(one.say.reason ?? one.say.message)}`
        : `error: ${(one.error as Error).message}`,
    ),
  ).toEqual((row.said ?? []).map((one) => (typeof one === 'string' ? one : expect.stringMatching(one))));
  // A status given as a string is the row's state.
  const status = typeof row.status === 'string' ? { state: row.status } : row.status;
  expect(decided.rows).toEqual([expect.objectContaining(status)]);
  if (row.expecting !== undefined) expect(!!decided.state.sides.get(KEY)?.expected).toBe(row.expecting);
  // Pure: what it was handed is as it was.
  expect(JSON.stringify([...state.sides])).toBe(before);
  for (let cycle = 0, after = decided.state; cycle < (row.again ?? 0); cycle++) {
    const repeated = decide(after, observation, NOW, settings);
    expect([repeated.actions, repeated.events, repeated.rows]).toEqual([[], [], [expect.objectContaining(status)]]);
    after = repeated.state;
  }
});

// A roll due, a flat side, drift's add with --converge and a colleague's close restored with it: each step's writes as
// the server receives them, in test/keeper/keep.test.ts.
const PLAN = [
  { name: 'covered (another step got there first): nothing', side: COVERED, writes: [] },
  { name: 'settling on the fresh read: nothing', side: UNSEEN, writes: [] },
  { name: 'drifted, without --converge: nothing', side: DRIFTED, writes: [] },
  {
    name: 'over target, --converge: the reduce',
    side: covered(2500, 24 * HOUR),
    settings: { converge: true },
    writes: [{ kind: 'reduce', deltaUsd: 500, targetUsd: 2000, beforeUsd: 2500 }],
  },
  {
    name: 'drifted and its roll due, --converge: the add, then the roll',
    side: DRIFTED_DUE,
    settings: { converge: true },
    writes: [
      { kind: 'add', deltaUsd: 500 },
      { kind: 'roll', hedgeId: 'hdg_1', tenorDays: 1 },
    ],
  },
  {
    name: 'drifted and its roll due, without --converge: the roll only',
    side: DRIFTED_DUE,
    writes: [{ kind: 'roll', hedgeId: 'hdg_1' }],
  },
  {
    name: "a colleague's close, without --converge: nothing",
    side: colleagueClosed,
    writes: [],
  },
  {
    name: 'a roll due beside a drift left alone gets, near until, the shortest tenor that reaches it, as any roll does',
    side: DRIFTED_DUE,
    row: { tenorDays: 7 as const, untilMs: NOW + 2 * 24 * HOUR },
    writes: [{ kind: 'roll', hedgeId: 'hdg_1', tenorDays: 3 }],
  },
];

it.each(PLAN)(
  'plan (a live step, again under the side lock on a fresh read): $name',
  ({ side: observed, settings, row, writes }) => {
    expect(plan(initialKeeperState(), bookOf(observed), { ...ROW, ...row }, { ...LIVE, ...settings }).writes).toEqual(
      writes.map((write) => expect.objectContaining(write)),
    );
  },
);

// [name, step, failures before, failed, dry run, failures after, retried in, the row's status]
it.each([
  ['a live step done: failures cleared', 'roll', 3, false, false, 0, undefined, 'roll done'],
  ["a dry run's step done", 'reopen', 0, false, true, 0, undefined, 'would reopen'],
  ['a first failure: tried again one interval later', 'reopen', 0, true, false, 1, MINUTE, 'reopen failed; retrying'],
  ['failures in a row: the wait doubles', 'roll', 2, true, false, 3, 4 * MINUTE, 'roll failed; retrying'],
  ["a flat side's re-open waits at most 5 min", 'reopen', 5, true, false, 6, 5 * MINUTE, 'reopen failed; retrying'],
  [
    'a roll may wait longer (the side is covered meanwhile)',
    'roll',
    5,
    true,
    false,
    6,
    32 * MINUTE,
    'roll failed; retrying',
  ],
  ['…but never more than an hour', 'roll', 19, true, false, 20, 60 * MINUTE, 'roll failed; retrying'],
  ["a dry run's refusal", 'reopen', 0, true, true, 1, MINUTE, 'reopen would be refused'],
] as const)('stepEnded: %s', (_name, kind, before, failed, dryRun, failures, retryInMs, text) => {
  // After `before` failed steps of the row.
  const state = remembered({ failures: before });
  const ended = stepEnded(
    state,
    // A step of the row (its status, which stepEnded does not read, left out).
    { key: KEY, row: ROW, kind, hedgeIds: ['hdg_1'], serverOffsetMs: 0 } as never,
    NOW,
    { ...LIVE, dryRun },
    failed ? { error: new Error('capacity') } : undefined,
  );
  expect(ended.statusText).toBe(text);
  expect(ended.state.sides.get(KEY)).toMatchObject({
    failures,
    retryAtMs: retryInMs === undefined ? 0 : NOW + retryInMs,
  });
  expect(ended.events).toEqual(
    failed
      ? [
          {
            error: expect.any(Error),
            fields: expect.objectContaining({
              action: kind,
              failures,
              hedge_ids: ['hdg_1'],
              retry_at: iso(NOW + retryInMs),
            }),
          },
        ]
      : [],
  );
});

const entry = (fields: Partial<JournalEntry>) =>
  ({
    id: 'j1',
    command: 'open',
    outcome: 'unknown',
    via: 'keeper',
    host: hostname(),
    group: 'keep-1',
    request: { method: 'POST', path: '/hedges', body: { market: 'USDTNGN', side: 'sell', notional_usd: 2000 } },
    ...fields,
  }) as JournalEntry;

it("this keeper's writes and unfinished rows: once rolled, the side waits for both hedges to show", () => {
  const roll = {
    kind: 'roll' as const,
    row: ROW,
    hedgeId: 'hdg_1',
    tenorDays: 1 as const,
    notionalUsd: 2000,
    maturityAtMs: NOW,
  };
  const outcome = {
    kind: 'rolled',
    view: {
      notional_usd: 2000,
      close: { hedge_id: 'hdg_1' },
      open: { hedge_id: 'hdg_2', journal_id: 'j2' },
    },
    notes: [],
  } as never;
  const landed = wrote(initialKeeperState(), roll, { kind: 'rolled', outcome }, NOW);
  // Its open leg's hedge on the side the close leg left flat, and the closed hedge gone.
  expect(landed.state.sides.get(KEY)?.expected).toEqual({
    what: 'roll (2,000.00 USD)',
    kind: 'open',
    before: 0,
    changeUsd: 2000,
    hedgeId: 'hdg_2',
    gone: ['hdg_1', 'hdg_1'],
    sinceMs: NOW,
  });
  expect(landed.events).toEqual([
    { say: expect.objectContaining({ event: 'roll', hedge_ids: ['hdg_1', 'hdg_2'], journal_id: 'j2' }) },
  ]);
});

const reopen = { kind: 'open' as const, row: ROW, deltaUsd: 2000, targetUsd: 2000, beforeUsd: 0 };
/** The write flow's answer: sent, with `result`. */
const sent = (result: object) => ({ kind: 'sent', group: 'keep-1', result }) as never;
/** …resolved: the re-opened hedge hdg_3 in `status`. */
const resolved = (status: string) =>
  sent({ kind: 'resolved', result: { id: 'hdg_3', status }, entry: entry({ hedge_id: 'hdg_3' }) });

it.each([
  [
    'a re-opened hedge that failed on-chain is a failure of the step, and nothing is expected of the side',
    reopen,
    resolved('failed'),
    'The re-opened hedge hdg_3 failed on-chain; nothing was opened.',
    0,
  ],
  [
    'a convergence the write flow did not send is a failure',
    { kind: 'add', row: ROW, deltaUsd: 500, targetUsd: 2000, beforeUsd: 1500 },
    sent({ kind: 'dry-run' }),
    'Nothing was sent for the convergence.',
    0,
  ],
  [
    'a landed re-open: the side waits for its hedge, the re-open said with its journal row',
    reopen,
    resolved('filled'),
    undefined,
    1,
  ],
] as const)("this keeper's writes and unfinished rows: %s", (_name, write, done, failure, expected) => {
  const landed = wrote(initialKeeperState(), write, done, NOW);
  // The failure raised; the side's expectations and events, one each for a landed write.
  expect([landed.failure?.message, landed.state.sides.get(KEY)?.expected ? 1 : 0, landed.events.length]).toEqual([
    failure,
    expected,
    expected,
  ]);
});

it.each(['amount_usd', 'delta_usd'])(
  "this keeper's writes and unfinished rows: a resumed converge's event names the add's amount whatever the server calls it (%s)",
  (name) => {
    const add = entry({
      command: 'add',
      request: { method: 'POST', path: '/hedges/add', body: { market: 'USDTNGN', side: 'sell', [name]: 500 } },
    });
    const done = sent({ kind: 'resolved', result: {}, entry: add });
    expect(resumed({ entry: add, group: 'keep-1' }, done)).toMatchObject({
      say: { event: 'converge', resumed: true, notional_usd: 500 },
    });
  },
);

it("this keeper's writes and unfinished rows: finishes only its own rows of the target's idle sides, one per group, a roll by its roll", () => {
  expect(
    toResume(
      [
        entry({ id: 'j6', group: 'keep-2', outcome: 'filled' }),
        entry({ id: 'j5', group: 'roll-1' }),
        entry({ id: 'j4', group: 'roll-1' }),
        entry({ id: 'j3', group: 'keep-3', via: undefined }),
        entry({ id: 'j2', group: 'keep-4', host: 'elsewhere.example' }),
        entry({
          id: 'j1',
          group: 'keep-5',
          request: { method: 'POST', path: '/hedges', body: { market: 'USDTNGN', side: 'buy' } },
        }),
        entry({ id: 'j0', group: 'keep-1' }),
      ],
      new Set(),
      [ROW],
    ).map(({ entry: row, how }) => `${row.id} ${how}`),
  ).toEqual(['j0 write', 'j4 roll']);
  expect(toResume([entry({ id: 'j0' })], new Set([KEY]), [ROW])).toEqual([]);
  expect(heldReason(entry({ id: 'j0' }), { pid: 42, host: 'desk-2' } as never)).toBe(
    'open in progress by another process (pid 42 on desk-2, journal j0): left alone until it resolves',
  );
});

it("this keeper's writes and unfinished rows: a row holds the side it changes as the write pipeline reads it (its endpoint and its body's market and side, trimmed and in either case, `hedge api`'s too); a row that changes no side holds none", () => {
  const post = (id: string, path: string, body: unknown, method = 'POST') =>
    entry({ id, command: 'api', via: undefined, request: { method, path, body } });
  const held = unresolvedSides(
    [
      post('j1', '/hedges/reduce', { market: ' usdtngn ', side: 'SELL', notional_usd: 500 }),
      post('j2', '/hedges/add', { market: 'USDTGHS', side: 'long' }),
      post('j3', '/hedges/add', { market: 7, side: 'buy' }),
      post('j4', '/quotes', { market: 'USDTKES', side: 'buy' }),
      post('j5', '/hedges', { market: 'USDTZAR', side: 'buy' }, 'GET'),
      post('j6', '/hedges/%61dd/', { market: 'USDTKES', side: ' Buy' }),
    ],
    new Set(['USDTZAR buy']),
  );
  expect([...held].map(([key, row]) => `${key}: ${row.id}`)).toEqual(['USDTNGN sell: j1', 'USDTKES buy: j6']);
});
