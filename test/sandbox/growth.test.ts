// The simulator at 10,000 hedges, grown through real engine writes: order, pages, idempotency
// replay and expiry must hold at that size. Timings are the self-check script's business
// (test/sandbox/growth-check.mjs); nothing here depends on how fast the machine is.
import { beforeAll, describe, expect, it } from 'vitest';

import {
  compareEvents,
  type EngineState,
  type HistoryRecord,
  type ScheduledEvent,
} from '../../src/sandbox/engine-state.js';
import { SandboxEngine } from '../../src/sandbox/index.js';
import { type GrowthResult, growHedges } from './growth.js';
import { DAY, KEY_A, T0, call, makeEngine, openBody, openFilled } from '../support/engine.js';

const HEDGES = 10_000;

describe('growing the simulator to 10,000 hedges through real writes', () => {
  let engine: SandboxEngine;
  let grown: GrowthResult;
  let idsOldestFirst: string[];
  beforeAll(() => {
    engine = makeEngine();
    grown = growHedges(engine, { apiKey: KEY_A, hedges: HEDGES, startMs: T0 });
    idsOldestFirst = grown.hedgeIds;
  });
  /** The ids of GET /hedges with this query, at the grown state's time. */
  const listed = (query: Record<string, string> = {}, on = engine) =>
    call(on, grown.nowMs, 'GET', '/hedges', { query }).data.map((hedge: { id: string }) => hedge.id);

  it('leaves every hedge opened and closed, with one history record each', () => {
    const account = Object.values(engine.state.accounts)[0];
    expect(grown.writes).toBe(2 * HEDGES);
    expect(new Set(idsOldestFirst).size).toBe(HEDGES);
    expect(Object.keys(account.hedges)).toHaveLength(HEDGES);
    expect(Object.values(account.hedges).every((hedge) => hedge.status === 'closed')).toBe(true);
    expect(account.history).toHaveLength(HEDGES);
    expect(grown.idempotencyKeys.slice(0, 3)).toEqual(['grow-1', 'grow-2', 'grow-3']);
  });

  it('pages hedges newest first at any page size and after filters', () => {
    const newestFirst = [...idsOldestFirst].reverse();
    expect(listed({ limit: '1' })).toEqual(newestFirst.slice(0, 1));
    expect(listed({ limit: '500' })).toEqual(newestFirst.slice(0, 500));
    expect(listed()).toEqual(newestFirst.slice(0, 50));
    // The oldest hedge is found by a scan that runs to the end of the book.
    expect(listed({ client_reference: 'grow-1' })).toEqual([idsOldestFirst[0]]);
    expect(listed({ status: 'filled' })).toEqual([]);
    expect(listed({ status: 'closed', limit: '3' })).toEqual(newestFirst.slice(0, 3));
  });

  it('pages history newest first: closes landing together are ordered by hedge id, descending', () => {
    const history = call(engine, grown.nowMs, 'GET', '/hedges/history', { query: { limit: '4' } }).data;
    expect(history.map((record: { hedge_id: string }) => record.hedge_id)).toEqual(
      [...idsOldestFirst].reverse().slice(0, 4),
    );
    expect(history[0].closed_at).toBe(history[1].closed_at);
    expect(history[1].closed_at > history[2].closed_at).toBe(true);
  });

  it('still replays the first and the last write by their keys, acting on nothing', () => {
    const now = grown.nowMs;
    const market = 'USDTNGN';
    const first = call(engine, now, 'POST', '/hedges', {
      body: { market, side: 'buy', notional_usd: 1_000, tenor_days: 7, client_reference: 'grow-1' },
      idempotencyKey: grown.idempotencyKeys[0],
    });
    expect(first).toMatchObject({
      status: 200,
      headers: { 'idempotent-replayed': 'true' },
      data: { id: idsOldestFirst[0] },
    });
    const last = call(engine, now, 'POST', '/hedges/close', {
      body: { market, side: 'sell' },
      idempotencyKey: grown.idempotencyKeys.at(-1),
    });
    expect(last).toMatchObject({
      status: 200,
      headers: { 'idempotent-replayed': 'true' },
      data: { hedge_id: idsOldestFirst.at(-1) },
    });
    expect(Object.keys(Object.values(engine.state.accounts)[0].hedges)).toHaveLength(HEDGES);
    expect(Object.keys(engine.state.idempotency)).toHaveLength(2 * HEDGES);
  });

  it('a state reloaded from JSON pages and replays the same', () => {
    const reloaded = new SandboxEngine(
      { apiKeys: [KEY_A], fillDelayMs: 1000 },
      JSON.parse(JSON.stringify(engine.state)) as EngineState,
    );
    expect(listed({ limit: '7' }, reloaded)).toEqual(listed({ limit: '7' }));
    const replay = call(reloaded, grown.nowMs, 'POST', '/hedges/close', {
      body: { market: 'USDTNGN', side: 'sell' },
      idempotencyKey: grown.idempotencyKeys.at(-1),
    });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    // The reloaded engine rebuilt its expiry queue: a day after the last write every key is gone.
    call(reloaded, grown.nowMs + DAY, 'GET', '/account');
    expect(reloaded.state.idempotency).toEqual({});
  });

  it('expires idempotency records by sandbox time: those a day old are really gone, the rest kept', () => {
    const records = Object.values(engine.state.idempotency);
    const cutoff = T0 + 3_600_000;
    const keptBefore = records.filter((record) => record.createdAtMs > cutoff).length;
    // The grown state is seeded: of its 20,000 records, 12,798 are younger than the cutoff.
    expect([keptBefore, records.length]).toEqual([12_798, 20_000]);
    call(engine, cutoff + DAY, 'GET', '/markets');
    const kept = Object.values(engine.state.idempotency);
    expect(kept).toHaveLength(keptBefore);
    expect(kept.every((record) => record.createdAtMs > cutoff)).toBe(true);

    // The first key is free again: a new body acts instead of answering idempotency_key_reuse.
    const reused = call(engine, cutoff + DAY, 'POST', '/hedges', {
      body: openBody('buy', 2_000),
      idempotencyKey: grown.idempotencyKeys[0],
    });
    expect([reused.status, reused.headers['idempotent-replayed']]).toEqual([200, undefined]);
    call(engine, grown.nowMs + DAY, 'GET', '/markets');
    expect(Object.keys(engine.state.idempotency)).toEqual([
      `test:${Object.keys(engine.state.accounts)[0]}:${grown.idempotencyKeys[0]}`,
    ]);
  });
});

describe('idempotency expiry queue', () => {
  it('a key reused after it expired keeps its new record until that one is a day old', () => {
    const engine = makeEngine();
    call(engine, T0, 'POST', '/hedges', { body: openBody('buy', 1_000), idempotencyKey: 'k' });
    const renewed = call(engine, T0 + DAY, 'POST', '/hedges', { body: openBody('sell', 1_000), idempotencyKey: 'k' });
    expect(renewed.headers['idempotent-replayed']).toBeUndefined();
    const replay = call(engine, T0 + DAY + 10, 'POST', '/hedges', {
      body: openBody('sell', 1_000),
      idempotencyKey: 'k',
    });
    expect([replay.headers['idempotent-replayed'], replay.data.id]).toEqual(['true', renewed.data.id]);
    call(engine, T0 + 2 * DAY - 1, 'GET', '/markets');
    expect(Object.keys(engine.state.idempotency)).toHaveLength(1);
    call(engine, T0 + 2 * DAY, 'GET', '/markets');
    expect(engine.state.idempotency).toEqual({});
  });
});

describe('hedge list order', () => {
  it('places hedges written in the past (fixtures) among live ones by opened_at, ties by id', () => {
    const engine = makeEngine();
    const { hedge: live, now } = openFilled(engine, T0, 'buy', 10_000);
    expect(call(engine, now, 'GET', '/hedges').data.map((hedge: { id: string }) => hedge.id)).toEqual([live.id]);
    engine.seedHedges(KEY_A, 12, 'closed', now);
    call(engine, now + 10, 'POST', '/hedges', { body: openBody('sell', 10_000) });
    const listed = call(engine, now + 10, 'GET', '/hedges', { query: { limit: '500' } }).data as Array<{
      id: string;
      opened_at: string;
    }>;
    expect(listed).toHaveLength(14);
    const sorted = [...listed].sort((a, b) =>
      a.opened_at === b.opened_at ? (a.id < b.id ? 1 : -1) : a.opened_at < b.opened_at ? 1 : -1,
    );
    expect(listed.map((hedge) => hedge.id)).toEqual(sorted.map((hedge) => hedge.id));
    expect(listed[0].opened_at).toBe(new Date(now + 10).toISOString());
  });
});

describe('event queue', () => {
  it('applies events in (dueMs, sequence) order', () => {
    const dues = [50, 10, 30, 10, 70, 20, 30, 60, 10, 40];
    const events: ScheduledEvent[] = dues.map((dueMs, index) => {
      return { dueMs, sequence: index + 1, kind: 'fill', accountId: 'a', hedgeId: `h${index}` };
    });
    const popped = events.sort(compareEvents).map((event) => [event.dueMs, event.sequence]);
    expect(popped.slice(0, 7)).toEqual([
      [10, 2],
      [10, 4],
      [10, 9],
      [20, 6],
      [30, 3],
      [30, 7],
      [40, 10],
    ]);
    expect(popped.slice(7).map(([dueMs]) => dueMs)).toEqual([50, 60, 70]);
  });
});

// GET /hedges/history past its first page: the reference dialect hands out
// `meta.next_cursor` while older records remain, and `?cursor=` it gives the next page; the other
// dialects keep one page. Checked on the engine's own history: every record exactly once, newest
// first, whatever the page size, and records closed meanwhile never shift a walk in progress.
function walk(
  engine: ReturnType<typeof makeEngine>,
  now: number | (() => number),
  limit: number,
  onPage?: (index: number) => void,
): { ids: string[]; cursors: number } {
  const time = typeof now === 'number' ? () => now : now;
  const ids: string[] = [];
  let cursor: string | undefined;
  let cursors = 0;
  for (let index = 0; ; index++) {
    onPage?.(index);
    const page = call(engine, time(), 'GET', '/hedges/history', {
      query: { limit: String(limit), ...(cursor ? { cursor } : {}) },
    });
    expect(page.status).toBe(200);
    ids.push(...(page.data as HistoryRecord[]).map((record) => record.hedge_id));
    cursor = page.body.meta.next_cursor as string | undefined;
    if (cursor === undefined) return { ids, cursors };
    cursors += 1;
    expect(page.data).toHaveLength(limit);
  }
}

describe('history pages (reference dialect)', () => {
  const engine = makeEngine();
  engine.seedHedges(KEY_A, 1_234, 'closed', T0);
  const account = () => Object.values(engine.state.accounts)[0]!;
  const newestFirst = () => [...account().history].reverse().map((record) => record.hedge_id);

  it.each([[500], [37], [1]])('walks every record once, newest first, %i at a time', (limit) => {
    const expected = newestFirst();
    const { ids, cursors } = walk(engine, T0, limit);
    expect(ids).toEqual(expected);
    expect(cursors).toBe(Math.ceil(expected.length / limit) - 1);
  });

  it('a last page exactly full has no cursor', () => {
    const fresh = makeEngine();
    fresh.seedHedges(KEY_A, 10, 'closed', T0);
    const first = call(fresh, T0, 'GET', '/hedges/history', { query: { limit: '5' } });
    expect(first.body.meta.next_cursor).toEqual(expect.any(String));
    const last = call(fresh, T0, 'GET', '/hedges/history', {
      query: { limit: '5', cursor: first.body.meta.next_cursor as string },
    });
    expect([last.data.length, last.body.meta.next_cursor]).toEqual([5, undefined]);
  });

  it('hedges closing during a walk do not shift it: the walk sees the history as it stood', () => {
    const growing = makeEngine();
    growing.seedHedges(KEY_A, 120, 'closed', T0);
    const before = [...Object.values(growing.state.accounts)[0]!.history].reverse().map((record) => record.hedge_id);
    let now = T0 + DAY;
    const { ids } = walk(
      growing,
      () => now,
      25,
      () => {
        // A hedge opened, filled and closed between two pages: a newer record than any in the walk.
        const opened = openFilled(growing, now, 'buy', 1_000);
        now = opened.now;
        expect(call(growing, now, 'POST', '/hedges/close', { body: { market: 'USDTNGN', side: 'buy' } }).status).toBe(
          200,
        );
        now += 2_000;
      },
    );
    expect(ids.slice(0, 25).every((id) => !before.includes(id) || before.indexOf(id) < 25)).toBe(true);
    expect(ids.filter((id) => before.includes(id))).toEqual(before);
  });

  it('refuses a cursor it did not hand out, naming the parameter', () => {
    const refused = call(engine, T0, 'GET', '/hedges/history', { query: { limit: '10', cursor: 'not-a-cursor' } });
    expect(refused.status).toBe(400);
    expect(refused.error).toMatchObject({ code: 'validation_error' });
    expect(JSON.stringify(refused.error)).toMatch(/cursor/);
  });
});

describe('history pages (other dialects)', () => {
  it.each([
    ['alpha', 'page_size'],
    ['beta', 'per_page'],
  ] as const)('%s keeps one page and no cursor', (dialect, parameter) => {
    const engine = makeEngine({ dialect });
    engine.seedHedges(KEY_A, 30, 'closed', T0);
    const page = call(engine, T0, 'GET', '/hedges/history', { query: { [parameter]: '10' } });
    expect([page.status, page.data.length, page.body.meta.next_cursor]).toEqual([200, 10, undefined]);
  });
});
