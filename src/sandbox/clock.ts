// Sandbox time: origin + real elapsed × speed + manual offset.

interface SandboxClockOptions {
  realNow?: () => number;
  /** Sandbox milliseconds per real millisecond (default 1). */
  speed?: number;
  /** Sandbox time at start (default the real time at start). */
  originMs?: number;
}

export function createClock(options: SandboxClockOptions = {}) {
  const realNow = options.realNow ?? Date.now;
  const speed = options.speed ?? 1;
  if (!(speed > 0) || !Number.isFinite(speed)) throw new Error('clock speed must be a positive number');
  const realStart = realNow();
  const origin = options.originMs ?? realStart;
  let offset = 0;
  return {
    now: () => Math.floor(origin + (realNow() - realStart) * speed + offset),
    advance(ms: number) {
      if (!(ms >= 0) || !Number.isFinite(ms)) throw new Error('advance() takes a non-negative number of ms');
      offset += ms;
    },
  };
}
