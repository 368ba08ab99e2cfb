import type { HedgeArgs, RunOptions } from './hedge-cli.js';
import type { Simulator, SimulatorOptions } from './simulator.js';

/**
 * hedge's clock, given to the server as its real time too (`realNow`): each pause hedge takes ends at once yet shows in
 * full between two entries of the request log and in the rate limit's refill. For a rule checked on the log's times
 * (a backoff, Retry-After, a watch's cadence) in-process; a spawned run keeps its own clock.
 */
export function skippingClock() {
  let skipped = 0;
  return {
    now: () => Date.now() + skipped,
    sleep: async (ms: number, signal?: AbortSignal) => {
      signal?.throwIfAborted();
      skipped += ms;
    },
  };
}

/** A simulator from `start` whose runs and request log share one skipping clock. */
export async function onSkippingClock(start: (options: SimulatorOptions) => Promise<Simulator>) {
  const clock = skippingClock();
  const sim = await start({ realNow: clock.now });
  return { ...sim, hedge: (args: HedgeArgs, options?: RunOptions) => sim.hedge(args, { clock, ...options }) };
}
