// Hostile server text, for testing that a client never lets a server drive its terminal: a window-title escape, a
// clear-screen, a clipboard write (OSC 52), a right-to-left override and a zero-width space.

import type { EngineResponse } from './envelope.js';

export const HOSTILE_SEQUENCES = [
  '\u001b]0;pwned\u0007',
  '\u001b[2J',
  '\u001b]52;c;ZXZpbA==\u0007',
  '\u202e',
  '\u200b',
] as const;

export const HOSTILE_TEXT = HOSTILE_SEQUENCES.join('');
/** Name of the extra field on every market. */
export const HOSTILE_FIELD_NAME = `note${HOSTILE_TEXT}`;
export const HOSTILE_FIELD_VALUE = `sandbox note ${HOSTILE_TEXT}end`;

export function withHostileText(response: EngineResponse, path: string) {
  const { data, error, meta } = response.body;
  // The engine's markets list holds market objects only.
  const markets =
    path === '/markets' && Array.isArray(data)
      ? data.map((market: object) => ({ ...market, [HOSTILE_FIELD_NAME]: HOSTILE_FIELD_VALUE }))
      : data;
  return {
    ...response,
    body: {
      data: markets,
      error: error ? { ...error, message: `${error.message} ${HOSTILE_TEXT}` } : error,
      meta,
    },
  };
}
