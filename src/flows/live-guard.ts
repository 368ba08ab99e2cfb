// Live keys are unmistakable: every state-changing command on a `*_live_*` key shows a red LIVE
// banner on stderr and asks before it sends; without a terminal it needs --yes. The decision is
// taken before the first request of the command (even a read), so a refused run sends nothing.
import { redactKey } from '../security/secrets.js';
import type { CommandContext } from '../runtime/context.js';
import { DeclinedError, UsageError } from '../errors.js';

export interface LiveGuard {
  live: boolean;
  /** True when a confirmation prompt must come before the write (live key, terminal, no --yes). */
  needsConfirmation: boolean;
  /** Asks (default No) when needed; a "No" ends the command with nothing sent. */
  confirm(question: string): Promise<void>;
}

/** Declining a confirmation ends the run with exit 8 (`declined` in src/exit-codes.ts), nothing sent. */
export class NotConfirmedError extends DeclinedError {
  constructor() {
    super('Not confirmed; nothing was sent.');
  }
}

/** `action` completes "this will …" and "--yes is required to …": "open a hedge", "close a position". */
export async function guardLiveAction(ctx: CommandContext, input: { action: string; dryRun: boolean }): Promise<LiveGuard> {
  const credentials = await ctx.credentials();
  const live = credentials.environment === 'live';
  if (live) {
    const c = ctx.output.chalk;
    ctx.output.note(
      `${c.bgRed.white.bold(' LIVE ')} ${c.red.bold(`production key ${redactKey(credentials.apiKey)}: this will ${input.action} with real funds.`)}`,
    );
  }
  const needsConfirmation = live && !input.dryRun && !ctx.globals.yes;
  if (needsConfirmation && !ctx.interactive) {
    const why = ctx.globals.input ? 'there is no terminal to confirm on' : '--no-input forbids asking';
    throw new UsageError(`--yes is required to ${input.action} with a LIVE key (${why}); nothing was sent.`);
  }
  return {
    live,
    needsConfirmation,
    async confirm(question: string) {
      if (!needsConfirmation) return;
      await confirmOrStop(ctx, `${ctx.output.chalk.red.bold('LIVE')} ${question}`);
    },
  };
}

/** A yes/no question defaulting to No; anything but Yes stops the command before it sends. */
export async function confirmOrStop(ctx: CommandContext, question: string): Promise<void> {
  const prompter = await ctx.prompter();
  const yes = await prompter.confirm({ message: question, default: false });
  if (!yes) throw new NotConfirmedError();
}
