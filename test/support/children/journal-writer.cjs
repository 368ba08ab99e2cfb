// A separate hedge process writing to the journal, for test/journal/processes.test.ts. Plain
// CommonJS: it loads the journal module bundled by the test (esbuild) from the path it is given.
// Argument: JSON { bundle, dir, writer, count (null: until killed), lockStaleMs, rotateBytes, umask, barrier }.
// Prints "begun <id>" once an entry's creation is on disk and "updated <id>" once its update is.
// With barrier, it prints "ready" once loaded and starts when its stdin ends: writers started
// together that way race from their first append, however long each took to start.
'use strict';

const options = JSON.parse(process.argv[2]);
if (options.umask !== undefined) process.umask(options.umask);
const { openJournal } = require(options.bundle);

async function main() {
  const journal = openJournal({ dir: options.dir, lockStaleMs: options.lockStaleMs, rotateBytes: options.rotateBytes });
  for (let index = 0; options.count === null || index < options.count; index++) {
    const entry = await journal.begin({
      profile: 'desk',
      environment: 'test',
      base_url_host: '127.0.0.1:9',
      key_id: '0123456789ab',
      command: 'open',
      argv: ['hedge', 'open', 'USDTNGN', 'buy', String(1000 + index), '--tenor', '3'],
      request: {
        method: 'POST',
        path: '/hedges',
        body: { market: 'USDTNGN', side: 'buy', notional_usd: 1000 + index, tenor_days: 3 },
      },
      idempotency_key: `writer-${options.writer}-${index}`,
    });
    process.stdout.write(`begun ${entry.id}\n`);
    await journal.update(entry.id, { outcome: 'filled', hedge_id: `hdg_${options.writer}_${index}` });
    process.stdout.write(`updated ${entry.id}\n`);
  }
}

function run() {
  main().catch((error) => {
    process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
    process.exitCode = 1;
  });
}

if (options.barrier) {
  process.stdin.on('end', run).resume();
  process.stdout.write('ready\n');
} else run();
