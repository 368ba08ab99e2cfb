// The one sleep and the one time-bounded wait: every pause and every bound on a wait in hedge is one of these.
import { setTimeout as delay } from 'node:timers/promises';

/** Rejects with the signal's reason (a StopSignal says how the command ended); the context clock's sleep. */
export const sleep = (ms: number, signal?: AbortSignal) =>
  delay(ms, undefined, { signal }).catch(() => {
    throw signal?.reason;
  });

/** `work`, or a rejection with `late()` once `ms` have passed (the work may still end, unheard). */
export function within<T>(work: Promise<T>, ms: number, late: () => Error) {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

/**
 * The one poll: `attempt` again after sleeps growing to `capMs`, until `done` or `waitMs` of sleeping is
 * over; the last answer. Counted in the time slept, never a reading of the clock, so a busy machine only
 * makes the bound longer and a fake sleep runs it at once.
 */
export async function poll<T>(
  attempt: () => Promise<T>,
  done: (answer: T) => boolean,
  options: { waitMs: number; capMs: number; sleep?: (ms: number) => Promise<unknown> },
) {
  const { waitMs, capMs, sleep: pause = sleep } = options;
  let slept = 0;
  for (let next = 1; ; next = Math.min(capMs, next * 1.5)) {
    const answer = await attempt();
    if (done(answer) || slept >= waitMs) return answer;
    const ms = Math.min(next, waitMs - slept);
    await pause(ms);
    slept += ms;
  }
}
