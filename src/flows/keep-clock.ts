// The keeper's clock, injected: unit tests pass a fake one that moves only when told, so a cycle's
// timing is tested without real waits.
import type { FlowPorts } from '../runtime/context.js';

export interface KeeperClock {
  now(): number;
  /** Resolves after `ms`, or at once when `wake` aborts (a stop signal, a SIGHUP). */
  sleep(ms: number, wake: AbortSignal): Promise<void>;
}

/** The context's clock; a wake-up ends a sleep early (no timer outlives the keeper). */
export function realKeeperClock(clock: FlowPorts['clock']): KeeperClock {
  return { now: () => clock.now(), sleep: (ms, wake) => clock.sleep(ms, wake).catch(() => undefined) };
}
