// A simulator process on a shared state file (test/sandbox/state-file.test.ts): started on the file
// with the demo's lock, it opens a hedge on each side for each key it is given, one after another,
// prints each answer's status and exits. With a marker path, it stops itself (SIGSTOP) inside its
// first save, the new state written beside the file and not committed, its pid in the marker.
// With barrier, it prints "ready" once its simulator is up and opens nothing until its stdin ends:
// writers started together that way race from their first request.
const { writeFileSync } = require('node:fs');

const { sandbox: sandboxBundle, demo: demoBundle, stateFile, keys, marker, barrier } = JSON.parse(process.argv[2]);
const { startSandbox } = require(sandboxBundle);
const { lockDemoState } = require(demoBundle);

async function main() {
  let stopped = false;
  const stopInSave = () => {
    if (stopped) return;
    stopped = true;
    writeFileSync(marker, String(process.pid));
    process.kill(process.pid, 'SIGSTOP');
  };
  const sandbox = await startSandbox({
    apiKeys: keys,
    stateFile,
    stateFileLock: lockDemoState,
    fillDelayMs: 50,
    ...(marker ? { stateFileBeforeCommit: stopInSave } : {}),
  });
  if (barrier) {
    process.stdout.write('ready\n');
    await new Promise((resolve) => process.stdin.on('end', resolve).resume());
  }
  for (const key of keys) {
    for (const side of ['buy', 'sell']) {
      const response = await fetch(`${sandbox.baseUrl}/hedges`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': key + side },
        body: JSON.stringify({ market: 'USDTNGN', side, notional_usd: 1_000, tenor_days: 3 }),
      });
      process.stdout.write(`${key} ${side} ${response.status}\n`);
    }
  }
  await sandbox.close();
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
