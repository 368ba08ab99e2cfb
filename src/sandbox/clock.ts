// Sandbox time: origin + real elapsed × speed + manual offset.

/** `speed`: sandbox milliseconds per real millisecond; `originMs`: sandbox time at start (default the real time at start). */
export function createClock({
  realNow = Date.now,
  speed = 1,
  originMs,
}: { realNow?: () => number; speed?: number; originMs?: number } = {}) {
  if (!(speed > 0) || !Number.isFinite(speed)) throw new Error('clock speed must be a positive number');
  const realStart = realNow();
  const origin = originMs ?? realStart;
  let offset = 0;
  return {
    now: () => Math.floor(origin + (realNow() - realStart) * speed + offset),
    advance(ms: number) {
      if (!(ms >= 0) || !Number.isFinite(ms)) throw new Error('advance() takes a non-negative number of ms');
      offset += ms;
    },
  };
}
