// Waiting in a test for something another party does (a server receiving a request, a process
// printing a line): checked every few milliseconds, and a named failure if it never happens. The
// bound is a backstop against a hang, never what a test asserts on.

/** Resolves once `condition` holds; rejects naming `what` after `timeoutMs`. */
export async function until(condition: () => boolean, what = 'the condition', timeoutMs = 15_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
