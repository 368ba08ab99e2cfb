// Do parallel `hedge --demo add` runs all land? Not part of `npm test` nor of
// `npm run bench` (it counts lost writes, it does not time anything): run it by hand after
// `npm run build`.
//
//   node bench/demo-parallel-adds.mjs [--runs 20] [--parallel 10] [--no-wait]
//
// Each run: a fresh config dir, `hedge --demo open USDTNGN buy 1000 --tenor 7` (waits for the fill),
// then `--parallel` adds of 11, 12, … at once (each waits for its landing, as a user would, unless
// --no-wait), then two readings:
//   - in the file: the demo's own state file once every add has exited, its buy hedge's notional
//     plus the add still landing on it, if any (what the demo committed; an add accepted and
//     then written over is missing here);
//   - at exit: `hedge --demo positions --json` right after the last add exited (what a script
//     sees when every add said done; an add that exits 0 before its own landing shows short here
//     until it lands).
// A run is good when every add exited 0 and the file holds 1,000 plus their sum.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'hedge.js');
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '20' },
    parallel: { type: 'string', default: '10' },
    'no-wait': { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
const parallel = Number(values.parallel);

function hedge(dir, args) {
  return new Promise((resolve) => {
    const env = { PATH: process.env.PATH, HOME: dir, HEDGE_CONFIG_DIR: dir, NO_COLOR: '1', TZ: 'UTC', LANG: 'C.UTF-8' };
    const child = spawn(process.execPath, [BIN, '--demo', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The buy side in demo-state.json (one JSON document, the state under `engine`): notional plus an add landing. */
function buyInFile(dir) {
  const { engine } = JSON.parse(readFileSync(join(dir, 'demo-state.json'), 'utf8'));
  let total = 0;
  for (const account of Object.values(engine.accounts)) {
    for (const hedge of Object.values(account.hedges)) {
      if (hedge.side !== 'buy' || hedge.status !== 'filled') continue;
      total += hedge.notionalUsd + (hedge.pendingChange?.action === 'add' ? hedge.pendingChange.notionalUsd : 0);
    }
  }
  return total;
}

let good = 0;
let shortAtExit = 0;
for (let run = 1; run <= runs; run++) {
  const dir = mkdtempSync(join(tmpdir(), 'hedge-demo-adds-'));
  try {
    const opened = await hedge(dir, ['open', 'USDTNGN', 'buy', '1000', '--tenor', '7', '--json']);
    if (opened.code !== 0) throw new Error(`open exited ${opened.code}: ${opened.stderr}`);
    const notionals = Array.from({ length: parallel }, (_, index) => 11 + index);
    const started = Date.now();
    const adds = await Promise.all(
      notionals.map((notional) =>
        hedge(dir, ['add', 'USDTNGN', 'buy', String(notional), '--json', ...(values['no-wait'] ? ['--no-wait'] : [])]),
      ),
    );
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const exits = adds.map((add) => add.code);
    const inFile = buyInFile(dir);
    const atExit = JSON.parse((await hedge(dir, ['positions', '--json'])).stdout).map((position) =>
      Number(position.notional_usd),
    );
    const want = 1000 + notionals.reduce((sum, notional) => sum + notional, 0);
    const ok = exits.every((code) => code === 0) && inFile === want;
    if (ok) good += 1;
    if (atExit.length !== 1 || atExit[0] !== want) shortAtExit += 1;
    console.log(
      `run ${run}: exits ${exits.join(',')}; in the file ${inFile}, at exit ${atExit.join(',') || 'none'} (want ${want}); ${seconds} s; ${ok ? 'all landed' : 'LOST'}`,
    );
    if (!ok)
      for (const add of adds)
        if (add.code !== 0) console.log(`  exit ${add.code}: ${add.stderr.trim().split('\n')[0]}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
console.log(`${good}/${runs} runs: every add exited 0 and is in the demo's state file`);
console.log(`${shortAtExit}/${runs} runs: positions read right after the last add exited showed less than the sum`);
