// Set up for every test file. Workers run file after file in one process (isolate: false, see
// vitest.config.ts), so what a file leaves running is ended when it ends.
import { appendFileSync, readFileSync } from 'node:fs';
import { loadTableDrawer } from '../../src/platform/terminal/table.js';
import { killRunningChildren } from './hedge-cli.js';
import { listenForMisuse, takeMisuse } from './misuse-warnings.js';
import { removeReachableCli } from './another-user.js';

// Cards are drawn synchronously by cli-table3, which a command's screen output loads first (src/cli/run.ts): a test drawing one from src/ has it loaded here.
await loadTableDrawer();

afterAll(() => {
  killRunningChildren();
  removeReachableCli();
});

// A warning that names a misuse fails the file it showed in (misuse-warnings.ts).
listenForMisuse();
afterAll(() => {
  const warnings = takeMisuse();
  if (warnings.length) throw new Error(`warnings that name a misuse:\n${warnings.join('\n')}`);
});

// HEDGE_TEST_CPU_LOG=file: one JSON line per test file with the CPU its tests used, in the worker
// and in the processes they ran (CONTRIBUTING.md#tests).
const cpuLog = process.env.HEDGE_TEST_CPU_LOG;
if (cpuLog) {
  // Children's CPU once they are reaped: cutime + cstime, in clock ticks of 10 ms.
  const childrenMs = () => {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(fields[13]) + Number(fields[14])) * 10;
  };
  let own = process.cpuUsage();
  let children = 0;
  let started = 0;
  beforeAll(() => {
    own = process.cpuUsage();
    children = childrenMs();
    started = Date.now();
  });
  afterAll(() => {
    const used = process.cpuUsage(own);
    const line = {
      file: expect.getState().testPath,
      ownMs: Math.round((used.user + used.system) / 1000),
      childrenMs: childrenMs() - children,
      wallMs: Date.now() - started,
    };
    appendFileSync(cpuLog, `${JSON.stringify(line)}\n`);
  });
}
