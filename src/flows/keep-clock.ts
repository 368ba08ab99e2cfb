// The keeper's clock, injected: what time it is (for back-offs, cycle spacing and event times) and
// how it waits between cycles. The real one is the context's clock and a timer; unit tests pass a
// fake one that moves only when told, so a cycle's timing is tested without real 2 s waits.
import { setTimeout as delay } from 'node:timers/promises';

export interface KeeperClock {
  now(): number;
  /** Resolves after `ms`, or at once when `wake` aborts (a stop signal, a SIGHUP). */
  sleep(ms: number, wake: AbortSignal): Promise<void>;
}

/** The context's clock, and a timer that a wake-up cancels (no timer outlives the keeper). */
export function realKeeperClock(now: () => number): KeeperClock {
  return {
    now,
    sleep: (ms, wake) => delay(ms, undefined, { signal: wake }).catch(() => undefined),
  };
}
