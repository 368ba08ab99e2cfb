// What the build generates from the specs (scripts/build.mjs bundles this as dist/reference.js):
// the manual page's input and the completion scripts. Not loaded by hedge when it runs.
import { COMMAND_GROUPS } from './command-spec.js';
import { COMMANDS, GLOBAL_OPTIONS } from './manifest.js';
import { EXIT_CODES } from '../exit-codes.js';
import { VERSION } from '../version.js';

export { completionScript } from './completion-scripts.js';

/** The input of scripts/man-page.mjs's renderManPage. */
export function manPageInput() {
  return { commands: COMMANDS, globalOptions: GLOBAL_OPTIONS, groups: COMMAND_GROUPS, exitCodes: EXIT_CODES, version: VERSION };
}
