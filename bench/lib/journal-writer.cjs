// A process appending to the journal, for bench/journal.mjs: loads the journal module bundled by
// the bench and writes `count` entries, each begun, then updated.
// Argument: JSON { bundle, dir, writer, count }.
'use strict';

const options = JSON.parse(process.argv[2]);
const { openJournal } = require(options.bundle);

async function main() {
  const journal = openJournal({ dir: options.dir });
  for (let index = 0; index < options.count; index++) {
    const entry = await journal.begin({
      profile: 'desk',
      environment: 'test',
      base_url_host: '127.0.0.1:9',
      key_id: '0123456789ab',
      command: 'open',
      argv: ['open', 'USDTNGN', 'buy', String(1000 + index), '--tenor', '3'],
      request: { method: 'POST', path: '/hedges', body: { market: 'USDTNGN', side: 'buy', notional_usd: 1000 + index, tenor_days: 3 } },
      idempotency_key: `writer-${options.writer}-${index}`,
    });
    await journal.update(entry.id, { outcome: 'filled', hedge_id: `hdg_${options.writer}_${index}` });
  }
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
  process.exitCode = 1;
});
