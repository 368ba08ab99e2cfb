// Where the journal lives. The environment is passed in, never read from process.env here.
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { Env } from '../config/env.js';

/** $HEDGE_CONFIG_DIR itself when set (beside the config: tests, portable set-ups); else $XDG_STATE_HOME/hedge. */
export function journalDir(env: Env) {
  return env.HEDGE_CONFIG_DIR || stateDir(env, homedir());
}

/** $XDG_STATE_HOME/hedge, else ~/.local/state/hedge. */
export function stateDir(env: Env, home: string) {
  // The XDG base-directory spec says a relative value is invalid and must be ignored.
  if (env.XDG_STATE_HOME && isAbsolute(env.XDG_STATE_HOME)) return join(env.XDG_STATE_HOME, 'hedge');
  return join(env.HOME || home, '.local', 'state', 'hedge');
}
