// Entry ids: `a_` + the creation time in base 36 + 4 random base-36 characters, e.g.
import { randomInt } from 'node:crypto';

const RANDOM_CHARS = 4;

export function newEntryId(nowMs: number) {
  const random = randomInt(36 ** RANDOM_CHARS)
    .toString(36)
    .padStart(RANDOM_CHARS, '0');
  return `a_${Math.max(0, Math.floor(nowMs)).toString(36)}${random}`;
}
