// The server's clock as its answers tell it (src/core/server-clock.ts): a range, never a point,
// from the Date header and the stamps in the data, and an assumption said where nothing bounds it.
import { describe, expect, it } from 'vitest';
import { ASSUMED_SKEW_MS, ServerClock } from '../../src/core/server-clock.js';

const T = Date.parse('2026-11-22T08:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

describe('the server clock', () => {
  it('knows nothing at first: the server is taken as up to the assumed skew either way', () => {
    expect(new ServerClock().at(T)).toEqual({
      localMs: T,
      earliestMs: T - ASSUMED_SKEW_MS,
      latestMs: T + ASSUMED_SKEW_MS,
      bestMs: T,
      assumed: true,
    });
  });

  it("an open's own stamp lies between its send and its answer; a past stamp only bounds it from below", () => {
    const clock = new ServerClock();
    // Ahead by 45 s: sent at T, answered at T + 40 ms, stamped at T + 45.02 s on the server's clock.
    clock.learnStamps({ opened_at: iso(T + 45_020) }, T + 40, { field: 'opened_at', sentAt: T });
    expect(clock.at(T + 1000)).toMatchObject({ earliestMs: T + 1000 + 44_980, latestMs: T + 1000 + 45_021 });
    expect(clock.at(T).assumed).toBe(false);
    // The same stamp, not our own send's: before the answer only.
    const past = new ServerClock();
    past.learnStamps([{ filled_at: iso(T + 45_020) }, { opened_at: iso(T) }], T + 40);
    expect(past.at(T + 40)).toMatchObject({
      earliestMs: T + 45_020,
      latestMs: T + 45_020 + ASSUMED_SKEW_MS,
      assumed: true,
    });
  });

  it('answers that agree narrow the range; one that cannot agree is believed, and the gap kept', () => {
    const clock = new ServerClock();
    clock.learnDate(new Date(T + 45_000).toUTCString(), T, T + 200);
    expect(clock.reading()).toEqual({ lowMs: 44_800, highMs: 46_000, from: ['date'] });
    clock.learnStamps({ opened_at: iso(T + 45_500) }, T + 100, { field: 'opened_at', sentAt: T + 50 });
    expect(clock.reading()).toEqual({ lowMs: 45_400, highMs: 45_451, from: ['stamps'] });
    // The server's clock was set 10 minutes on.
    clock.learnDate(new Date(T + 645_000).toUTCString(), T, T + 200);
    expect(clock.reading()).toMatchObject({ lowMs: 644_800, highMs: 646_000, from: ['date'] });
    expect(clock.reading().disagreedMs).toBeGreaterThan(599_000);
  });
});
