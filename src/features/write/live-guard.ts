// Live keys are unmistakable: every state-changing command on a `*_live_*` key shows a red LIVE banner on
// stderr and asks before it sends; without a terminal it needs --yes.
import { redactKey } from '../../core/security/secrets.js';
import { DeclinedError, UsageError } from '../../core/errors.js';
import type { WritePorts } from './ports.js';

/** Declining a confirmation ends the run with nothing sent: exit 8 (`declined`), not Ctrl-C's 130. */
export class NotConfirmedError extends DeclinedError {
  constructor() {
    super('Not confirmed; nothing was sent.');
  }
}

/** `action` completes "this will …" and "--yes is required to …": "open a hedge", "close a position". The guard says
 * whether a confirmation prompt must come before the write (live key, terminal, no --yes), and asks (default No) when
 * needed: a "No" ends the command with nothing sent. */
export async function guardLiveAction(
  ports: Pick<WritePorts, 'credentials' | 'notify' | 'confirmedAhead' | 'interactive' | 'globals'>,
  input: { action: string; dryRun: boolean },
) {
  const credentials = await ports.credentials();
  const live = credentials.environment === 'live';
  if (live) {
    ports.notify({
      kind: 'live-key',
      level: 'live',
      text: `production key ${redactKey(credentials.apiKey)}: this will ${input.action} with real funds.`,
    });
  }
  const needsConfirmation = live && !input.dryRun && !ports.confirmedAhead;
  if (needsConfirmation && !ports.interactive) {
    const why = ports.globals.input ? 'there is no terminal to confirm on' : '--no-input forbids asking';
    throw new UsageError(`--yes is required to ${input.action} with a LIVE key (${why}); nothing was sent.`);
  }
  return { live, needsConfirmation };
}

/** A yes/no question defaulting to No (`live`: marked LIVE); anything but Yes stops the command before it sends. */
export async function confirmOrStop(
  ports: Pick<WritePorts, 'confirm'>,
  question: string,
  options: { live?: boolean } = {},
) {
  const yes = await ports.confirm({ message: question, default: false, live: options.live });
  if (!yes) throw new NotConfirmedError();
}
