// The single executable's main, run once when its Node builds the startup snapshot (scripts/sea.mjs):
// V8 keeps the heap it leaves, so each command starts with hedge's modules already evaluated.
// Nothing here may load node:http or read the environment, clock or terminal at import time.
import { startupSnapshot } from 'node:v8';
import { main } from './main.js';
import { safeText } from '../core/security/safe-text.js';

void Promise.all([
  import('./run.js'),
  import('./runner/run-command.js'),
  import('./cmd/trade/quote.js'),
  import('./cmd/book/markets.js'),
  import('../platform/runtime/context.js'),
  import('../platform/runtime/start-demo.js'),
]);

startupSnapshot.setDeserializeMainFunction(() => {
  // As bin/hedge.js: `hedge … | head` leaves quietly once the reader has what it wanted, and a
  // closed stderr never changes the outcome.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (process.stdout.listenerCount('error') > 1) return;
    if (error.code === 'EPIPE') process.exit(0);
    process.stderr.write(`hedge: stdout could not be written (${error.code ?? error.message}).\n`);
    process.exit(1);
  });
  process.stderr.on('error', () => {});
  main(process.argv.slice(2), { script: process.argv[1] }).then(
    (code) => {
      process.exitCode = code;
    },
    // main() reports every failure itself; this is the last net, without the stack, a secret or a
    // terminal control sequence (the one text filter of security/, which redacts secrets too;
    // bin/hedge.js, loading no code, cannot import it).
    (error: unknown) => {
      const message = safeText(String((error as Error | undefined)?.message ?? error));
      process.stderr.write(`hedge: unexpected failure: ${message}\n`);
      process.exitCode = 1;
    },
  );
});
