// The one `until` of the tests (test/support/polling.ts): it fails at once, with how the process
// ended, when the run it waits on ends first — and otherwise only at its backstop.
import { until } from '../support/polling.js';

it('until: resolves once the condition holds; fails at once when the watched process ended first, naming its exit and stderr, and at the backstop when nothing ends and the condition never holds', async () => {
  let polls = 0;
  await until(() => ++polls === 3, 'the third poll');
  expect(polls).toBe(3);
  const process = Promise.resolve({ code: 4, stderr: 'hedge: refused' });
  // A backstop no test could reach: the rejection must come from the process check.
  const waited = until(() => false, 'the request', { process, timeoutMs: 3_600_000 });
  await expect(waited).rejects.toThrow('the process ended before the request (exit 4):\nhedge: refused');
  await expect(until(() => false, 'nothing', 0)).rejects.toThrow('timed out after 0 ms waiting for nothing');
});
