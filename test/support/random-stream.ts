import { nextRandom } from '../../src/sandbox/prng.js';

/** A seeded stream of uniform values in [0, 1) (mulberry32, the simulator's own), so a seed replays its draws. */
export function randomStream(seed: number): () => number {
  const generator = { state: seed >>> 0 };
  return () => nextRandom(generator, 'state');
}
