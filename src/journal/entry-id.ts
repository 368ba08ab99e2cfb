// Entry ids: `a_` + the creation time in base 36 + 4 random base-36 characters, e.g. a_m3k9x2p1q7zd.
// Short enough to type, sorted by time (the time part keeps 8 characters until 2059), and unique:
// the writer also checks the id against the file under the lock before using it.
import { randomInt } from 'node:crypto';

const RANDOM_CHARS = 4;

export function newEntryId(nowMs: number): string {
  const random = randomInt(36 ** RANDOM_CHARS)
    .toString(36)
    .padStart(RANDOM_CHARS, '0');
  return `a_${Math.max(0, Math.floor(nowMs)).toString(36)}${random}`;
}
