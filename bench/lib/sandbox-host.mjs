// A sandbox server in its own process (so that it has a core to itself and the bench's own work
// never slows it down), driven over IPC by bench/run.mjs:
//   argv[2]: the sandbox bundle to import (built by the bench from src/sandbox/index.ts)
//   argv[3]: JSON SandboxOptions
// Messages in:  {id, op: 'seed', apiKey, count} | {id, op: 'cpu'} | {id, op: 'log', from}
//               | {id, op: 'hedges'} (how many the server holds, all accounts)
//               | {id, op: 'memory'} (heap after a full GC, RSS) | {id, op: 'close'}
// Messages out: {ready: {baseUrl, apiKey, apiKeys, pageSizeParameter}} once listening, then {id, result} per message.
// 'cpu' is this process's own CPU time (user + system, µs), read before and after a timed burst.
const [bundle, optionsJson] = process.argv.slice(2);
const { startSandbox, wireDialect } = await import(bundle);
const options = JSON.parse(optionsJson);
const sandbox = await startSandbox({ ...options, requestLogLimit: 1_000 });
let logged = 0;
const originalPush = sandbox.requestLog.push.bind(sandbox.requestLog);
// Counts every entry ever logged (the log itself keeps the last 1,000).
sandbox.requestLog.push = (...entries) => {
  logged += entries.length;
  return originalPush(...entries);
};

process.on('message', async (message) => {
  let result;
  if (message.op === 'seed') {
    result = sandbox.seedHedges({ apiKey: message.apiKey, count: message.count }).length;
  } else if (message.op === 'cpu') {
    const usage = process.cpuUsage();
    result = usage.user + usage.system;
  } else if (message.op === 'log') {
    // Entries logged since `from` (a count from an earlier answer), with the count now.
    const fresh = Math.min(logged - message.from, sandbox.requestLog.length);
    result = { count: logged, entries: sandbox.requestLog.slice(sandbox.requestLog.length - fresh).map((entry) => ({ method: entry.method, path: entry.path, status: entry.status })) };
  } else if (message.op === 'hedges') {
    result = Object.values(sandbox.engine.state.accounts).reduce((sum, account) => sum + Object.keys(account.hedges).length, 0);
  } else if (message.op === 'memory') {
    // Live heap after a full collection (the host runs with --expose-gc), and the process's RSS.
    globalThis.gc?.();
    const usage = process.memoryUsage();
    result = { heapUsed: usage.heapUsed, rss: usage.rss, external: usage.external, arrayBuffers: usage.arrayBuffers };
  } else if (message.op === 'close') {
    await sandbox.close();
    result = true;
  }
  process.send({ id: message.id, result }, () => {
    if (message.op === 'close') process.exit(0);
  });
});

process.send({ ready: { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, apiKeys: sandbox.apiKeys, pageSizeParameter: wireDialect(options.dialect ?? 'reference').pageSizeParameter } });
