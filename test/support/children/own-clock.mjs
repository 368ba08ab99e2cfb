// Preloaded into a spawned hedge (NODE_OPTIONS=--import) by a test that times it on its own clock (hedge-cli.ts
// `ownClock`): when the process began and when it exited, as it saw them, written to HEDGE_TEST_OWN_CLOCK_FILE. A
// bound checked on them holds however late a busy machine lets the test process see the exit.
import { writeFileSync } from 'node:fs';

const file = process.env.HEDGE_TEST_OWN_CLOCK_FILE;
const startedAt = Date.now() - performance.now();
if (file) process.on('exit', () => writeFileSync(file, JSON.stringify({ startedAt, exitedAt: Date.now() })));
