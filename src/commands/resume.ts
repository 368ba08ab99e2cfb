// `hedge resume [ID]`: finishes an unresolved action from the journal (pending, submitted or
// unknown) with its own idempotency key — the server answers a repeated key with the original
// result, or acts once if the first request never arrived — then waits as the original command
// would. Without ID, the newest unresolved action. The work is the one resume flow (flows/resume.ts).
import type { InputOf } from '../cli/command-spec.js';
import type { RESUME } from './resume.spec.js';
import { chooseEntryToResume, resumeEntry } from '../flows/resume.js';
import type { CommandContext } from '../runtime/context.js';

export interface ResumeOptions {
  /** A journal id or unique prefix; undefined: the newest unresolved entry. */
  id?: string;
  wait: boolean;
}

export function parseResumeOptions(input: InputOf<typeof RESUME>): ResumeOptions {
  const id = input.args.id?.trim();
  return { id: id === '' ? undefined : id, wait: input.options.wait !== false };
}

export async function runResume(ctx: CommandContext, options: ResumeOptions): Promise<number> {
  const entry = await chooseEntryToResume(ctx, options.id);
  if (!entry) {
    ctx.output.note(`Nothing to resume: every action in the journal is resolved. See them with \`${ctx.hedgeCommand('journal')}\`.`);
    return 0;
  }
  return resumeEntry(ctx, entry, { wait: options.wait });
}

export function run(ctx: CommandContext, input: InputOf<typeof RESUME>): Promise<number> {
  return runResume(ctx, parseResumeOptions(input));
}
