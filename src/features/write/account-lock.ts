// Check and act under one lock: a per-account lock of the journal, so two processes never both
// decide from the same book. A waiter reads the book afresh; still held at its bound, exit 11.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { WritePorts } from './ports.js';
import { DEFAULT_WAIT_BOUND_MS } from '../../platform/config/wait-bound.js';
import { HeldError } from '../../core/errors.js';
import { describeHolder, type Holder } from '../../platform/journal/index.js';
import { safeText } from '../../core/security/safe-text.js';
import { identityOf } from './identity.js';

/** The scopes this async chain holds: an inner check-and-act runs under its outer hold instead of waiting for itself; two agent calls in one `hedge mcp` process still exclude each other. */
const heldScopes = new AsyncLocalStorage<ReadonlySet<string>>();

/** Runs `body` holding the account lock `parts` names; `what` says in messages what is guarded ("the book of this
 * account"). `body` is told who held the lock first, when this run waited for it: the book may have changed under it. */
export async function withAccountLock<T>(
  ports: WritePorts,
  what: string,
  parts: string[],
  body: (waitedFor?: Holder) => Promise<T>,
) {
  const journal = await ports.journal();
  // The account's: its key in its environment, whichever host name of the base URL a run goes through.
  const { environment, key_id } = await identityOf(ports);
  const scope = [environment, key_id, ...parts].join('|');
  const held = heldScopes.getStore();
  if (held?.has(scope)) return body();
  let answer = await journal.lock(scope, { waitMs: 0 });
  let waitedFor: Holder | undefined;
  if (!answer.held) {
    waitedFor = answer.holder;
    const now = ports.clock.now();
    const deadline = ports.waitDeadline(now);
    const waitMs = deadline === undefined ? Number.MAX_SAFE_INTEGER : Math.max(0, deadline - now);
    const bound = deadline === undefined ? 'no bound (--timeout 0)' : `at most ${Math.ceil(waitMs / 1000)} s`;
    ports.notify({
      kind: 'waiting-for-lock',
      level: 'note',
      text: `Waiting for ${what}: another hedge process holds it (${safeText(describeHolder(answer.holder))}); ${bound}.`,
    });
    answer = await journal.lock(scope, { waitMs });
    if (!answer.held) {
      throw new HeldError(
        `${what[0].toUpperCase()}${what.slice(1)} is still held by another hedge process (${safeText(describeHolder(answer.holder))}); this run stopped waiting and sent nothing.`,
        {
          holder: answer.holder,
          details: { scope: parts.join('|') },
          hint: `Run it again once that process is done${deadline === undefined ? '' : `, or wait longer with --timeout SECONDS (now ${Math.ceil(waitMs / 1000)} s; the default is ${DEFAULT_WAIT_BOUND_MS / 1000} s)`}.`,
        },
      );
    }
  }
  try {
    return await heldScopes.run(new Set([...(held ?? []), scope]), () => body(waitedFor));
  } finally {
    await answer.hold.release();
  }
}

/** Whether this async chain holds an account lock already (a step of a plan that holds its locks). */
export const holdingLocks = () => (heldScopes.getStore()?.size ?? 0) > 0;
