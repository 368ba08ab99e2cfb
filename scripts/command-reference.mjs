// Writes docs/command-reference.md from the command specs, as the build bundled them into
// dist/reference.js (run `npm run build` first). test/docs/docs.test.ts fails when the file and
// the specs disagree, and prints the difference.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { commandReference } from './command-reference-text.mjs';

const reference = await import(new URL('../dist/reference.js', import.meta.url).href);
writeFileSync(
  fileURLToPath(new URL('../docs/command-reference.md', import.meta.url)),
  commandReference(reference.manPageInput()),
);
