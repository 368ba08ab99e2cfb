/** How long a wait lasts when --timeout does not say (`--timeout 0` means no bound at all). */
export const DEFAULT_WAIT_BOUND_MS = 120_000;
