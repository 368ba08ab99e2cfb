// The one sleep and the one time-bounded wait: every pause and every bound on a wait in hedge is one of these.
import { setTimeout as delay } from 'node:timers/promises';

/** Rejects with the signal's reason (a StopSignal says how the command ended); the context clock's sleep. */
export const sleep = (ms: number, signal?: AbortSignal) =>
  delay(ms, undefined, { signal }).catch(() => {
    throw signal?.reason;
  });

/** `work`, or a rejection with `late()` once `ms` have passed (the work may still end, unheard). */
export function within<T>(work: Promise<T>, ms: number, late: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
