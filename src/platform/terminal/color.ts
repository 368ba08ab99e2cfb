// Colour is decided once, here, for the whole process.
import { Chalk } from 'chalk';
import type { Env } from '../config/env.js';

export function colorEnabled(input: { flag: boolean | undefined; env: Env; stdoutIsTTY: boolean }) {
  if (input.flag === false) return false;
  if (input.env.NO_COLOR !== undefined && input.env.NO_COLOR !== '') return false;
  const force = input.env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  if (input.env.TERM === 'dumb') return false;
  return input.stdoutIsTTY;
}

export function makeChalk(enabled: boolean) {
  return new Chalk({ level: enabled ? 1 : 0 });
}
