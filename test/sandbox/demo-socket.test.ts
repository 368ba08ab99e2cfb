// The demo's simulator listens on a local socket of its own (no TCP port: listening on one runs
// Node's IP address code at every `--demo` start) and knows its one key's account id, so that a
// `--demo` read loads no node:crypto (docs/performance.md). What test/build/startup-imports.test.ts
// checks on the built binary is checked here at the seams: the names, the transport.
import { tmpdir } from 'node:os';
import { createClient } from '../../src/platform/api/client.js';
import { HttpConnections } from '../../src/platform/api/transport.js';
import { DEMO_API_KEY, demoSocketPath } from '../../src/platform/runtime/start-demo.js';
import { startSandbox } from '../../src/sandbox/http/server.js';
import { realClock } from '../support/client.js';

// The demo key's account is the one the simulator derives from the key (so demo states saved before keep their
// positions): demo-concurrency.test.ts reads the demo runs' book on a simulator that derives it.
it("the demo's socket: is an abstract name on Linux, a named pipe on Windows, a file in the temp folder elsewhere; each start its own", () => {
  const linux = demoSocketPath('linux');
  expect(linux.startsWith('\0hedge-demo-')).toBe(true);
  expect(demoSocketPath('linux')).not.toBe(linux);
  expect(demoSocketPath('win32')).toMatch(/^\\\\\.\\pipe\\hedge-demo-\d+-\d+-[0-9a-z]+$/);
  const darwin = demoSocketPath('darwin');
  expect(darwin.startsWith(tmpdir())).toBe(true);
  expect(darwin).toMatch(/hedge-demo-\d+-\d+-[0-9a-z]+\.sock$/);
});

it.skipIf(process.platform === 'win32')(
  "the demo's socket: carries the client's requests to a simulator listening on it, under the known account id",
  async () => {
    const socketPath = demoSocketPath();
    const sandbox = await startSandbox({
      socketPath,
      apiKeys: [DEMO_API_KEY],
      knownAccountIds: { [DEMO_API_KEY]: 'acct_given0000000001' },
    });
    const connections = new HttpConnections();
    try {
      expect([sandbox.baseUrl, sandbox.socketPath, sandbox.port]).toEqual([
        'http://localhost/partners/sandbox/v2',
        socketPath,
        0,
      ]);
      const client = createClient({
        connections,
        credentials: {
          apiKey: DEMO_API_KEY,
          baseUrl: sandbox.baseUrl,
          localSocket: socketPath,
          environment: 'test',
          sources: { apiKey: 'demo', baseUrl: 'demo' },
        },
        env: {},
        clock: realClock,
      });
      expect(JSON.stringify(await client.listMarkets())).toContain('USDTNGN');
      await client.getAccount();
      expect(sandbox.requestLog.map((entry) => `${entry.method} ${entry.path} ${entry.status}`)).toEqual([
        'GET /markets 200',
        'GET /account 200',
      ]);
      // The id handed in is the account's: the engine did not hash the key.
      expect(Object.keys(sandbox.engine.state.accounts)).toEqual(['acct_given0000000001']);
    } finally {
      await connections.close();
      await sandbox.close();
    }
  },
);
