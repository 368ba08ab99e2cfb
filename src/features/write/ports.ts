import type { CommandContext } from '../../platform/runtime/context.js';

/** What the write path and the trades on it use of a command's context (which fits, as a keeper's step does). */
export type WritePorts = CommandContext;
