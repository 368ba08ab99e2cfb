// A sandbox server in its own process (so that it has a core to itself and the bench's own work
// never slows it down), driven over IPC by bench/run.mjs:
//   argv[2]: the sandbox bundle to import (built by the bench from src/sandbox/index.ts)
//   argv[3]: JSON SandboxOptions
// Messages in:  {id, op: 'seed', apiKey, count} | {id, op: 'fills'} | {id, op: 'close'}
// Messages out: {ready: {baseUrl, apiKey, apiKeys}} once listening, then {id, result} per message.
const [bundle, optionsJson] = process.argv.slice(2);
const { startSandbox } = await import(bundle);
const sandbox = await startSandbox({ ...JSON.parse(optionsJson), requestLogLimit: 1_000 });

/** Hedge id → filledAtMs, over every account: sandbox time, which is real time at clock speed 1. */
function fills() {
  const filled = {};
  for (const account of Object.values(sandbox.engine.state.accounts)) {
    for (const hedge of Object.values(account.hedges)) {
      if (hedge.filledAtMs !== undefined) filled[hedge.id] = hedge.filledAtMs;
    }
  }
  return filled;
}

process.on('message', async (message) => {
  let result;
  if (message.op === 'seed') {
    result = sandbox.seedHedges({ apiKey: message.apiKey, count: message.count }).length;
  } else if (message.op === 'fills') {
    result = fills();
  } else if (message.op === 'close') {
    await sandbox.close();
    result = true;
  }
  process.send({ id: message.id, result }, () => {
    if (message.op === 'close') process.exit(0);
  });
});

process.send({ ready: { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, apiKeys: sandbox.apiKeys } });
