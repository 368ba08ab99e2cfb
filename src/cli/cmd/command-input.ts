// What a command's code is written against: its context, and the input its declaration (specs.ts) types.
import type { CommandSpec, InputOf } from '../runner/command-spec.js';
import type * as SPECS from './specs.js';

export type { CommandContext } from '../../platform/runtime/context.js';

/** `In<'HISTORY'>`: the input `hedge history`'s code takes, typed by its declaration. */
export type In<K extends keyof typeof SPECS> = InputOf<Extract<(typeof SPECS)[K], CommandSpec>>;
