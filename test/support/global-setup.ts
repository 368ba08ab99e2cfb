import { execFileSync } from 'node:child_process';

// End-to-end tests spawn bin/hedge.js, which runs dist/: build it from the current source first.
export default function setup(): void {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
}
