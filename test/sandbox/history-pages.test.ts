// GET /hedges/history past its first page: the reference dialect hands out
// `meta.next_cursor` while older records remain, and `?cursor=` it gives the next page; the other
// dialects keep one page. Checked on the engine's own history: every record exactly once, newest
// first, whatever the page size, and records closed meanwhile never shift a walk in progress.
import { describe, expect, it } from 'vitest';
import type { HistoryRecord } from '../../src/sandbox/engine-state.js';
import { DAY, KEY_A, T0, call, makeEngine, openFilled } from '../support/engine.js';

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
