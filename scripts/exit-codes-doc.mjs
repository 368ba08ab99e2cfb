// Rewrites the exit-code table of docs/exit-codes.md from src/platform/terminal/exit-codes.ts (the test in
// test/docs/docs.test.ts checks they agree): `node scripts/exit-codes-doc.mjs` after adding a code.
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const out = join(tmpdir(), `hedge-exit-codes-${process.pid}.mjs`);
await build({
  entryPoints: ['src/platform/terminal/exit-codes.ts'],
  bundle: true,
  platform: 'node',
  format: 'esm',
  outfile: out,
  logLevel: 'error',
});
const { EXIT_CODES } = await import(pathToFileURL(out).href);
const table =
  '| code | name | meaning |\n|---:|---|---|\n' +
  EXIT_CODES.map((r) => `| ${r.code} | \`${r.name}\` | ${r.meaning.replace(/\|/g, '\\|')} |\n`).join('');
const p = 'docs/exit-codes.md';
const d = readFileSync(p, 'utf8').replace(
  /(<!-- exit-codes:start -->\n)[\s\S]*?(<!-- exit-codes:end -->)/,
  (_, a, b) => a + table + b,
);
writeFileSync(p, d);
rmSync(out, { force: true });
console.log(`docs/exit-codes.md: ${EXIT_CODES.length} codes`);
