// hedge profile reset-wire: forgets the wire names learned from the server; the next command learns anew, and what
// you set yourself (HEDGE_WIRE_*, a profile's `wire`) stays.
import { type CommandContext, type In, AuthError, plural } from '../command-input.js';
import { describeScope, learnedScopeOf, resetLearned } from '../../../platform/runtime/wire-memory.js';

/** What this command uses of its context. */
export type Options = Pick<CommandContext, 'credentials' | 'globals' | 'hedgeCommand' | 'output' | 'store'>;

/** The scope in use, without starting the demo just to name it. */
async function scopeInUse(ctx: Options) {
  if (ctx.globals.demo) return { kind: 'server', key: 'demo' } as const;
  try {
    return learnedScopeOf(await ctx.credentials());
  } catch (error) {
    if (!(error instanceof AuthError)) throw error;
    throw new AuthError(`${error.message} Nothing says which server's learned names to forget.`, {
      hint: `Name the profile (\`hedge --profile NAME profile reset-wire\`), or forget them everywhere with \`hedge profile reset-wire --all\`.`,
    });
  }
}

export async function run(ctx: Options, input: In<'PROFILE_RESET_WIRE'>) {
  const { output } = ctx;
  const scope = input.options.all === true ? 'all' : await scopeInUse(ctx);
  const where = scope === 'all' ? 'every profile and server' : describeScope(scope);
  const forgotten = await resetLearned(await ctx.store(), scope);
  // A script reads the names on stdout, a person among the notes below.
  output.document(
    { scope: where, forgotten },
    () => forgotten.forEach((line) => output.write(line)),
    () => {},
  );
  if (!forgotten.length) {
    output.note(`Nothing learned to forget for ${where}.`);
    return;
  }
  output.note(`Forgot ${plural(forgotten.length, 'learned wire name')} for ${where}:`);
  for (const line of forgotten) output.tableNote(`  ${line}`);
  output.note(
    `The next command starts from hedge's guesses and learns again; \`${ctx.hedgeCommand('whoami')}\` shows the names in use.`,
  );
}
