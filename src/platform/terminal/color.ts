// Colour is decided once, here, for the whole process.
import { Chalk } from 'chalk';
import type { Env } from '../config/env.js';

/** `flag`: --color or --no-color (undefined: neither). */
export function colorEnabled(flag: boolean | undefined, env: Env, stdoutIsTTY: boolean) {
  // An empty NO_COLOR asks nothing.
  if (flag === false || env.NO_COLOR) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  return env.TERM !== 'dumb' && stdoutIsTTY;
}

export function makeChalk(enabled: boolean) {
  return new Chalk({ level: enabled ? 1 : 0 });
}
