// The lock around each request of the demo simulator (load → act → save of demo-state.json), so
// parallel `hedge --demo` runs add up instead of the last save winning. proper-lockfile (already
// the journal's lock): a directory created atomically beside the file, refreshed while held, taken
// over when its holder died (older than STALE_MS).
import { lock } from 'proper-lockfile';

/** A holder that stopped refreshing the lock this long ago is dead (kill -9) and is taken over. */
const STALE_MS = 10_000;
const RETRY_MAX_WAIT_MS = 50;

/** Resolves to the release function; rejects (ELOCKED) after waiting out a stale holder and more. */
export function lockDemoState(path: string): Promise<() => Promise<void>> {
  return lock(path, {
    realpath: false,
    stale: STALE_MS,
    // Many short waits (a request holds the lock for a few milliseconds), adding up to more than
    // STALE_MS so that a lock left by a killed run is waited out rather than failing the request.
    retries: { retries: Math.ceil((STALE_MS * 1.5) / RETRY_MAX_WAIT_MS) + 20, minTimeout: 2, maxTimeout: RETRY_MAX_WAIT_MS, factor: 1.5 },
    // The default throws from a timer and would crash the CLI mid-command; a lock held this briefly
    // is only ever compromised by a stall of seconds, and the next request reloads the file anyway.
    onCompromised: () => {},
  });
}
