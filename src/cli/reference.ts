// What the build generates from the specs (scripts/build.mjs bundles this as dist/reference.js): the
// input of the manual page and docs/command-reference.md (scripts/ render both), and the completion
// scripts. Not loaded by hedge when it runs.
import { COMMAND_GROUPS } from './runner/command-spec.js';
import { COMMANDS, GLOBAL_OPTIONS } from './manifest.js';
import { EXIT_CODES } from '../platform/terminal/exit-codes.js';
import { VERSION } from '../core/version.js';

export { completionScript } from './completion-scripts.js';
/** `hedge --help` (at 80 columns, as the front door prints it: bin/hedge.js answers with dist/help.txt). */
export { rootHelp } from './help.js';

/** The input of scripts/man-page.mjs's renderManPage and scripts/command-reference-text.mjs. */
export function manPageInput() {
  return {
    commands: COMMANDS,
    globalOptions: GLOBAL_OPTIONS,
    groups: COMMAND_GROUPS,
    exitCodes: EXIT_CODES,
    version: VERSION,
  };
}
