// Who made each record, always (the name given, else HEDGE_USER, else this machine's user at its host), and four eyes:
// a policy kept in the records' own chain under which a designation, a correction, a de-designation and a close count
// only once another person approves them, each approval a record of its own. On the textbook forward of
// docs/examples, the keyless `local` store (the team store's run is in acct-team-store.test.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import { hedgeIn, tempFolders, ROOT } from '../support/hedge-cli.js';
import { exits, ok, okJson } from '../support/cli-runs.js';

const folder = tempFolders('hedge-acct-approval-');
const clock = { now: () => Date.parse('2026-03-02T12:00:00Z'), sleep: async () => {} };
const EXAMPLE = JSON.parse(readFileSync(join(ROOT, 'docs', 'examples', 'relationship.json'), 'utf8'));
const IMPORT = ['acct', 'rates', join(ROOT, 'docs', 'examples', 'rates-eurusd.csv'), '--market', 'EURUSD'];
const LATE = ['--recorded-late', 'from the 2018 spreadsheet'];
const ADA = { HEDGE_USER: 'Ada Obi' };
const BOLA = { HEDGE_USER: 'Bola Ade' };

function setUp(relationship = EXAMPLE) {
  const dir = folder();
  const run = (args: string[], env: Record<string, string> = ADA) => hedgeIn(dir, args, { clock, env });
  const path = join(dir, 'r.json');
  writeFileSync(path, JSON.stringify(relationship));
  const log = async () =>
    (okJson(await run(['acct', 'log', '--json'])) as Array<Record<string, unknown>>).map((row) => [
      row.seq,
      row.kind,
      row.by,
      row.approval,
    ]);
  const status = async () =>
    (okJson(await run(['acct', 'list', '--json'])) as Array<{ id: string; status: string }>).map((row) => [
      row.id,
      row.status,
    ]);
  return { dir, run, designate: () => run(['acct', 'designate', path, ...LATE]), log, status };
}

describe('who: every record carries who made it', () => {
  it('--by, else HEDGE_USER, else this machine’s user@host; a name that cannot be one is refused, nothing recorded', async () => {
    const { run, designate, log } = setUp();
    ok(await run([...IMPORT, '--quote', 'USD per EUR', '--by', 'Chidi Eze']));
    ok(await designate());
    ok(await run(['acct', 'event', 'EUR-SALE-1', '--occurred', '2019-02-01'], {}));
    expect(await log()).toEqual([
      [1, 'rates', 'Chidi Eze', null],
      [2, 'designation', 'Ada Obi', null],
      [3, 'event', `${userInfo().username}@${hostname()}`, null],
    ]);
    // The keyless store has no profile and no key: neither is made up.
    const [rates] = okJson(await run(['acct', 'log', 'EURUSD', '--json']));
    expect([rates.profile, rates.key]).toEqual([null, null]);
    exits(
      await run(['acct', 'event', 'EUR-SALE-1', '--occurred', '2019-02-01', '--by', ' ']),
      2,
      '--by: expected who makes the record, 1 to 64 printable characters',
    );
    exits(await run(['acct', 'policy', '--four-eyes', 'on'], { HEDGE_USER: 'a\u001b[8m' }), 2, 'HEDGE_USER: expected');
    expect(await log()).toHaveLength(3);
  });
});

describe('four eyes: what changes the books counts once another person approves it', () => {
  it('a designation waits: not valued, listed pending; its maker cannot approve it, another person can', async () => {
    const { dir, run, designate, log, status } = setUp();
    ok(await run(['acct', 'policy', '--four-eyes', 'on']));
    // Rates count at once: they are not among what four eyes holds.
    ok(await run([...IMPORT, '--quote', 'USD per EUR']));
    exits(await designate(), 0, 'Recorded pending approval as record 3');
    expect(await status()).toEqual([['EUR-SALE-1', 'pending approval (record 3)']]);
    exits(
      await run(['acct', 'test', 'EUR-SALE-1', '--as-of', '2019-02-01']),
      2,
      "id: EUR-SALE-1's designation (record 3, by Ada Obi) awaits approval",
    );
    exits(await run(['acct', 'event', 'EUR-SALE-1', '--occurred', '2019-02-01']), 2, 'awaits approval');
    // The maker, however they spell their name, is refused and told why; nothing is recorded.
    exits(
      await run(['acct', 'approve', '3'], { HEDGE_USER: 'ada obi' }),
      2,
      'RECORD: record 3 was made by Ada Obi, who cannot approve it: four eyes asks another person',
    );
    exits(await run(['acct', 'approve', '2'], BOLA), 2, 'RECORD: record 2 (rates) does not await approval');
    exits(await run(['acct', 'approve', '3'], BOLA), 0, 'Approved record 3 (designation of EUR-SALE-1, by Ada Obi)');
    exits(
      await run(['acct', 'approve', '3'], BOLA),
      2,
      'RECORD: record 3 was approved already (record 4, by Bola Ade)',
    );
    expect(await log()).toEqual([
      [1, 'policy', 'Ada Obi', null],
      [2, 'rates', 'Ada Obi', null],
      [3, 'designation', 'Ada Obi', 'approved by Bola Ade (record 4)'],
      [4, 'approval', 'Bola Ade', null],
    ]);
    // The approval names the record by number and hash, in the same chain.
    const trail = okJson(await run(['acct', 'log', 'EUR-SALE-1', '--json']));
    expect(trail.map((row: { what: string }) => row.what)).toEqual([
      'designated as of 2018-10-15',
      'approved record 3 (designation, by Ada Obi)',
    ]);
    const records = readRecordLines(join(dir, 'acct', 'local', 'records.json'));
    expect(records[3].body).toEqual({ record: 3, hash: records[2].hash });
    expect(records[3].prev).toBe(records[2].hash);
    // Counted now: December's effective part, 770,000 × (1.23 − 1.20) = 23,100.
    const rows = okJson(await run(['acct', 'test', 'EUR-SALE-1', '--as-of', '2019-02-01', '--json']));
    expect(rows.find((row: { period: string }) => row.period === '2018-12').effective).toBe(23100);
  });
});

it('a close, a correction and a de-designation wait too; a rejected one never counts; turning four eyes off is approved', async () => {
  const { dir, run, designate, status } = setUp();
  ok(await run([...IMPORT, '--quote', 'USD per EUR']));
  ok(await designate());
  ok(await run(['acct', 'policy', '--four-eyes', 'on'], BOLA));
  // A close: the month is not closed until approved, and the next waits for it.
  exits(await run(['acct', 'close', '--period', '2018-10']), 0, 'Recorded pending approval as record 4');
  exits(
    await run(['acct', 'close', '--period', '2018-11']),
    2,
    "--period: 2018-10's close (record 4, by Ada Obi) awaits approval",
  );
  ok(await run(['acct', 'approve', '4'], BOLA));
  ok(await run(['acct', 'close', '--period', '2018-11'], BOLA));
  ok(await run(['acct', 'approve', '6']));
  const december = async () =>
    okJson(await run(['acct', 'test', 'EUR-SALE-1', '--as-of', '2019-02-01', '--json'])).find(
      (row: { period: string }) => row.period === '2018-12',
    );
  // A correction waits: December's forward restated to 1.21 counts once approved, 770,000 × (1.23 − 1.21) = 15,400.
  const fixed = join(dir, 'fixed.csv');
  writeFileSync(fixed, 'date,spot,forward,discount_factor,source\n2018-12-31,1.21,1.21,1,restated fixing\n');
  const correct = ['acct', 'rates', fixed, '--market', 'EURUSD', '--quote', 'USD per EUR', '--correct'];
  exits(await run([...correct, '--reason', 'restated']), 0, 'Recorded pending approval as record 8');
  expect((await december()).effective).toBe(23100);
  exits(await run([...correct, '--reason', 'again']), 2, "--correct: EURUSD's correction (record 8");
  ok(await run(['acct', 'approve', '8'], BOLA));
  expect((await december()).effective).toBe(15400);
  // A de-designation waits, shown beside the status; its maker withdraws it (a rejection by anyone): it never counts.
  exits(
    await run([
      ...['acct', 'event', 'EUR-SALE-1', '--de-designate', '2018-12-31'],
      ...['--reason', 'the order may move', '--ground', 'voluntary'],
    ]),
    0,
    'Recorded pending approval as record 10',
  );
  expect(await status()).toEqual([['EUR-SALE-1', 'designated; de-designated pending approval (record 10)']]);
  exits(await run(['acct', 'approve', '10', '--reject']), 2, '--reject: needs its --reason');
  exits(await run(['acct', 'approve', '10', '--reject', '--reason', 'the order stands']), 0, 'Rejected record 10');
  expect(await status()).toEqual([['EUR-SALE-1', 'designated']]);
  expect((await december()).status).toBe('designated');
  // An occurrence counts at once (not among what four eyes holds).
  ok(await run(['acct', 'event', 'EUR-SALE-1', '--occurred', '2019-02-01']));
  expect(await status()).toEqual([['EUR-SALE-1', 'ended 2019-02-01']]);
  // Off waits for another person too; meanwhile four eyes holds.
  exits(await run(['acct', 'policy', '--four-eyes', 'off']), 0, 'Four eyes stays on until another person approves');
  expect(okJson(await run(['acct', 'policy', '--json']))).toEqual({
    four_eyes: true,
    pending: [{ seq: 13, kind: 'policy', subject: 'policy', by: 'Ada Obi', recorded_at: '2026-03-02T12:00:00.000Z' }],
  });
  ok(await run(['acct', 'approve', '13'], BOLA));
  expect(okJson(await run(['acct', 'policy', '--json']))).toEqual({ four_eyes: false, pending: [] });
});

it('acct list: each relationship’s status as the books hold it — designated, failed from DATE, de-designated, ended', async () => {
  const { run, status } = setUp();
  ok(await run([...IMPORT, '--quote', 'USD per EUR']));
  const designate = (id: string, more: Record<string, unknown>) => {
    const path = join(folder(), `${id}.json`);
    writeFileSync(path, JSON.stringify({ ...EXAMPLE, id, ...more }));
    return run(['acct', 'designate', path, ...LATE]);
  };
  ok(await designate('HELD', {}));
  // Half the forward designated under IAS 39: December's ratio is 11,550 / 23,100 = 50.0 %, outside 80–125 %.
  ok(await designate('HALF', { framework: 'ias39', ratio: '0.5' }));
  ok(await designate('STOPPED', {}));
  ok(await designate('SOLD', {}));
  ok(await run(['acct', 'event', 'STOPPED', '--de-designate', '2018-11-30', '--reason', 'revoked']));
  ok(await run(['acct', 'event', 'SOLD', '--occurred', '2019-02-01']));
  // Before December is closed the books hold no failure yet; once it is, HALF failed from November's end.
  expect(await status()).toContainEqual(['HALF', 'designated']);
  ok(await run(['acct', 'close', '--period', '2018-Q4']));
  expect(await status()).toEqual([
    ['HELD', 'designated'],
    ['HALF', 'failed from 2018-11-30'],
    ['STOPPED', 'de-designated 2018-11-30'],
    ['SOLD', 'ended 2019-02-01'],
  ]);
});

it('a group’s entities: their declaration is a record four eyes holds, made --by; an entity’s close waits in its own books, and its approval names them', async () => {
  const { dir, run, log } = setUp();
  const example = (name: string) => join(ROOT, 'docs', 'examples', name);
  const LATE_TOO = ['--recorded-late', 'brought over from the treasury spreadsheet'];
  ok(await run(['acct', 'policy', '--four-eyes', 'on']));
  // Declared by Chidi: one record an entity, both pending; listed so, and nothing designated in them meanwhile.
  const declared = okJson(await run(['acct', 'entities', example('entities.json'), '--by', 'Chidi Eze', '--json']));
  expect(declared).toEqual({ declared: 2, pending_approval: [2, 3] });
  expect(
    (okJson(await run(['acct', 'entities', '--json'])) as Array<Record<string, unknown>>).map((row) => [
      row.code,
      row.status,
    ]),
  ).toEqual([
    ['US01', 'pending approval (record 2)'],
    ['NG01', 'pending approval (record 3)'],
  ]);
  exits(
    await run(['acct', 'designate', example('fair-value.json'), ...LATE_TOO]),
    2,
    "entity: NG01's entity (record 3, by Chidi Eze) awaits approval",
  );
  exits(
    await run(['acct', 'entities', example('entities.json')]),
    2,
    "code: US01's entity (record 2, by Chidi Eze) awaits approval",
  );
  exits(
    await run(['acct', 'approve', '2', '--by', 'chidi eze']),
    2,
    'RECORD: record 2 was made by Chidi Eze, who cannot approve it',
  );
  exits(await run(['acct', 'approve', '2']), 0, 'Approved record 2 (entity of US01, by Chidi Eze)');
  ok(await run(['acct', 'approve', '3']));
  // The books of both entities: the rates, and both relationships designated and approved.
  ok(await run(['acct', 'rates', example('rates-usdngn.csv'), '--market', 'USDNGN', '--quote', 'NGN per USD']));
  exits(await run(['acct', 'designate', example('fair-value.json'), ...LATE_TOO]), 0, 'as record 7');
  exits(await run(['acct', 'designate', example('net-investment.json'), ...LATE_TOO]), 0, 'as record 8');
  ok(await run(['acct', 'approve', '7'], BOLA));
  ok(await run(['acct', 'approve', '8'], BOLA));
  // NG01's first month held pending: its next month waits for it; US01's books close apart, meanwhile.
  const august = okJson(await run(['acct', 'close', '--period', '2025-08', '--entity', 'NG01', '--json']));
  expect(august).toMatchObject({ entity: 'NG01', months: ['2025-08'], pending_approval: [11] });
  exits(await run(['acct', 'close', '--period', '2024-10', '--entity', 'US01']), 0, 'as record 12');
  exits(
    await run(['acct', 'close', '--period', '2025-09', '--entity', 'NG01']),
    2,
    "--period: 2025-08's close in NG01's books (record 11, by Ada Obi) awaits approval",
  );
  expect(okJson(await run(['acct', 'policy', '--json'])).pending).toEqual([
    {
      seq: 11,
      kind: 'close',
      subject: '2025-08',
      entity: 'NG01',
      by: 'Ada Obi',
      recorded_at: '2026-03-02T12:00:00.000Z',
    },
    {
      seq: 12,
      kind: 'close',
      subject: '2024-10',
      entity: 'US01',
      by: 'Ada Obi',
      recorded_at: '2026-03-02T12:00:00.000Z',
    },
  ]);
  // The approval names the close by number and hash and the entity whose books it closes.
  exits(
    await run(['acct', 'approve', '11'], BOLA),
    0,
    "Approved record 11 (close of 2025-08 in NG01's books, by Ada Obi)",
  );
  const records = readRecordLines(join(dir, 'acct', 'local', 'records.json'));
  expect(records[12].body).toEqual({ record: 11, hash: records[10].hash, entity: 'NG01' });
  const trail = okJson(await run(['acct', 'log', '--json'])) as Array<Record<string, unknown>>;
  expect(trail.at(-1)).toMatchObject({
    kind: 'approval',
    subject: '2025-08',
    what: "approved record 11 (close in NG01's books, by Ada Obi)",
  });
  expect(trail.slice(1, 3).map((row) => [row.kind, row.subject, row.by, row.approval])).toEqual([
    ['entity', 'US01', 'Chidi Eze', 'approved by Ada Obi (record 4)'],
    ['entity', 'NG01', 'Chidi Eze', 'approved by Ada Obi (record 5)'],
  ]);
  // NG01's next month closes now, US01's first still pending.
  ok(await run(['acct', 'close', '--period', '2025-09', '--entity', 'NG01'], BOLA));
  expect((await log()).at(-1)).toEqual([14, 'close', 'Bola Ade', 'pending approval']);
  exits(await run(['acct', 'close', '--period', '2024-11', '--entity', 'US01']), 2, "2024-10's close in US01's books");
});

/** The store's records, a record a line, as it appends them. */
function readRecordLines(path: string) {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line)) as Array<{ body: unknown; hash: string; prev: string }>;
}
