import type { CommandContext } from '../../platform/runtime/context.js';

/** What the write path and the trades on it use of a command's context (a keeper's step gives the same). */
export type WritePorts = Pick<
  CommandContext,
  // Settings, the process's streams, and who asked
  | 'clock'
  | 'signal'
  | 'deadline'
  | 'env'
  | 'globals'
  | 'io'
  | 'origin'
  | 'interactive'
  // An agent's call: its limits, its token's plan
  | 'tradeGate'
  | 'planCheck'
  // Services
  | 'client'
  | 'credentials'
  | 'journal'
  | 'prompter'
  | 'confirm'
  | 'startProgress'
  | 'waitDeadline'
  // What it says
  | 'notify'
  | 'log'
  | 'hedgeCommand'
>;
