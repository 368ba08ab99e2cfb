// Sums a HEDGE_TEST_CPU_LOG file: `node scripts/cpu-log.mjs .tmp/cpu.jsonl [top]`.
import { readFileSync } from 'node:fs';

const [file, top = '30'] = process.argv.slice(2);
const rows = readFileSync(file, 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line));
const seconds = (ms) => (ms / 1000).toFixed(1).padStart(6);
const sum = (key) => rows.reduce((total, row) => total + row[key], 0);
console.log(
  `${rows.length} files: ${seconds(sum('ownMs'))} s in workers, ${seconds(sum('childrenMs'))} s in their processes`,
);
console.log('   cpu    own  procs   wall');
for (const row of rows.sort((a, b) => b.ownMs + b.childrenMs - a.ownMs - a.childrenMs).slice(0, Number(top))) {
  const name = row.file.replace(/.*\/test\//, 'test/');
  console.log(
    `${seconds(row.ownMs + row.childrenMs)} ${seconds(row.ownMs)} ${seconds(row.childrenMs)} ${seconds(row.wallMs)} ${name}`,
  );
}
