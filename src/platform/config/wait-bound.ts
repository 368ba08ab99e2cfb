/** How long a wait lasts when --timeout does not say (`--timeout 0` means no bound at all). */
export const DEFAULT_WAIT_BOUND_MS = 120_000;

/** When a wait that starts at `startedAt` must give up. */
export function waitDeadline(
  timeoutSeconds: number | undefined,
  commandDeadline: number | undefined,
  startedAt: number,
) {
  if (timeoutSeconds === 0) return;
  return commandDeadline ?? startedAt + DEFAULT_WAIT_BOUND_MS;
}
