// What a command's code is written against: its context, the input its declaration (specs.ts) types, and the
// vocabulary every command speaks — its errors, the readers of what was typed, safe text, numbers as said, and exit codes.
import type { CommandSpec, InputOf } from '../runner/command-spec.js';
import type * as SPECS from './specs.js';

export type { CommandContext } from '../../platform/runtime/context.js';
export * from '../../core/errors.js';
export * from '../../core/input.js';
export * from '../../core/security/safe-text.js';
export * from '../../core/number-format.js';
export * from '../../platform/terminal/exit-codes.js';

/** `In<'HISTORY'>`: the input `hedge history`'s code takes, typed by its declaration. */
export type In<K extends keyof typeof SPECS> = InputOf<Extract<(typeof SPECS)[K], CommandSpec>>;
