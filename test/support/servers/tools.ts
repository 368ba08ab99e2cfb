// Whether the machine has a tool a test needs (mkfifo, …): a test that needs one it lacks is
// skipped with `it.skipIf(!hasTool(name))`, its name saying what is needed.
import { spawnSync } from 'node:child_process';

export function hasTool(name: string) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}
