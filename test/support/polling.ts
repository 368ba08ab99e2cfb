// Waiting in a test for something another party does (a server receiving a request, a process
// printing a line): checked every few milliseconds, and a named failure if it never happens — or
// at once when the process it waits on ended first. The bound is a backstop against a hang, never
// what a test asserts on.

/**
 * Resolves once `condition` holds (a promise of it: asked again once it settled, e.g. a query of a store); rejects naming `what` after the bound (`timeoutMs`, default 45 s: within a
 * test's 60 s, so a hang fails naming what it waited for), or when the run it waits on (`process`) ended first.
 */
export async function until(
  condition: () => boolean | Promise<boolean>,
  what = 'the condition',
  options: number | { timeoutMs?: number; process?: Promise<{ code: number | null; stderr: string }> } = {},
) {
  const { timeoutMs = 45_000, process } = typeof options === 'number' ? { timeoutMs: options } : options;
  let ended: Awaited<typeof process>;
  void process?.then((result) => (ended = result)).catch(() => undefined);
  const started = Date.now();
  while (!(await condition())) {
    if (ended) throw new Error(`the process ended before ${what} (exit ${ended.code}):\n${ended.stderr}`);
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
