// hedge profile remove NAME — deletes a stored profile (key included). When it was the current
// one, no profile is current afterwards: the next command asks the operator to choose.
import { requireProfile } from '../config/profile-view.js';
import type { CommandContext } from '../runtime/context.js';
import type { InputOf } from '../cli/command-spec.js';
import type { PROFILE_REMOVE } from './profile-remove.spec.js';

export interface ProfileRemoveOptions {
  /** The profile to delete; whether it exists only the store can say (checked in the run). */
  name: string;
}

export function parseProfileRemoveOptions(input: InputOf<typeof PROFILE_REMOVE>): ProfileRemoveOptions {
  return { name: input.args.name ?? '' };
}

export function run(ctx: CommandContext, input: InputOf<typeof PROFILE_REMOVE>): Promise<void> {
  return runProfileRemove(ctx, parseProfileRemoveOptions(input));
}

export async function runProfileRemove(ctx: CommandContext, { name }: ProfileRemoveOptions): Promise<void> {
  const store = await ctx.store();
  requireProfile(store.read(), name, 'name');
  let wasCurrent = false;
  const data = store.update((latest) => {
    requireProfile(latest, name, 'name');
    delete latest.profiles[name];
    if (latest.current === name) {
      wasCurrent = true;
      delete latest.current;
    }
  });
  if (ctx.output.isJson) ctx.output.json({ removed: name, current: data.current ?? null });
  ctx.output.note(`Removed profile "${name}".`);
  const others = Object.keys(data.profiles).sort();
  if (wasCurrent) {
    ctx.output.note(
      others.length
        ? `No profile is current now; choose one with: hedge profile use ${others[0]}  (profiles: ${others.join(', ')})`
        : 'No profiles are left; run `hedge login` to add one.',
    );
  }
}
