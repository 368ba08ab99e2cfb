import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';

import { parseSandboxServeOptions } from '../../src/cli/cmd/tools/sandbox-serve.js';
import { serveSandbox } from '../../src/sandbox/http/serve.js';
import { until } from '../support/polling.js';
import { runHedge } from '../support/hedge-cli.js';
import { collector } from '../support/hedge-in-process.js';
import { usageRefusal } from '../support/output/refusal.js';

it('serveSandbox: prints one KEY=value line per setting on stdout, notes on stderr (the behaviours switched on too), and stops cleanly', async () => {
  const stdout = collector();
  const stderr = collector();
  const stop = new AbortController();
  const behaviours = { viewLagMs: 3_000, severalPerSide: true, settlementDelayMs: 5_000, dayMs: 60_000 };
  const serving = serveSandbox(
    { fillDelayMs: 50, tls: true, ...behaviours },
    { stdout: stdout.stream, stderr: stderr.stream, signal: stop.signal },
  );
  await until(() => stdout.text().split('\n').length >= 8);

  const lines = stdout.text().trimEnd().split('\n');
  expect(lines.map((line) => line.split('=')[0])).toEqual([
    'HEDGE_BASE_URL',
    'HEDGE_API_KEY',
    'NODE_EXTRA_CA_CERTS',
    'HEDGE_WIRE_PAGE_SIZE_PARAM',
    'HEDGE_WIRE_NOTIONAL_FIELD',
    'HEDGE_WIRE_PRICES_PARAM',
    'HEDGE_WIRE_CURSOR_PARAM',
  ]);
  const settings = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  expect(settings).toMatchObject({
    HEDGE_BASE_URL: expect.stringMatching(/^https:\/\/127\.0\.0\.1:\d+\/partners\/sandbox\/v2$/),
    HEDGE_API_KEY: expect.stringMatching(/^hpk_test_[A-Za-z0-9]{24}$/),
  });
  expect(stderr.text()).toMatch(/Ctrl-C/);
  // Which behaviours were switched on: the reference dialect, told to take several hedges per side.
  expect(stderr.text()).toContain(
    'Timing: positions, history and account trail the hedge records by 3 s, a hedge settles 5 s after its maturity, a tenor day lasts 60 s.',
  );
  expect(stderr.text()).toMatch(/reference wire dialect[\s\S]*several hedges per side/);

  stop.abort();
  await serving;
  expect(stderr.text()).toMatch(/stopped/);
});

it('serveSandbox: stops on SIGTERM and prints no CA line without TLS', async () => {
  // Other files of this worker may have left listeners of their own: serve's is the one it adds.
  const before = process.listeners('SIGTERM');
  const stdout = collector();
  const stderr = collector();
  const serving = serveSandbox(
    { apiKeys: ['hpk_test_ServeServeServeServe1234'] },
    { stdout: stdout.stream, stderr: stderr.stream },
  );
  await until(() => stderr.text().includes('Ctrl-C'));
  expect(stdout.text()).toMatch(
    /^HEDGE_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/partners\/sandbox\/v2\nHEDGE_API_KEY=hpk_test_ServeServeServeServe1234\nHEDGE_WIRE_PAGE_SIZE_PARAM=limit\nHEDGE_WIRE_NOTIONAL_FIELD=notional_usd\nHEDGE_WIRE_PRICES_PARAM=symbols\nHEDGE_WIRE_CURSOR_PARAM=cursor\n$/,
  );
  // The printed settings reach the server: dialects-lifecycle.test.ts runs the CLI on them.
  const added = process.listeners('SIGTERM').filter((listener) => !before.includes(listener));
  expect(added).toHaveLength(1);
  added[0]('SIGTERM');
  await serving;
  expect(process.listeners('SIGTERM')).toEqual(before);
});

// `hedge sandbox serve`'s flags for the behaviours a test switches on: each reaches the simulator
// as its option, in ms, and a value outside its range is a usage error before anything starts.
const parse = (options: Record<string, unknown>) =>
  parseSandboxServeOptions({ args: {}, options } as Parameters<typeof parseSandboxServeOptions>[0]);

it('hedge sandbox serve: trailing views, several per side, late settlement, short days: maps seconds to ms and the flag to severalPerSide, and leaves each unset without its flag', () => {
  expect(parse({ viewLag: '3', severalPerSide: true, settlementDelay: '2.5', day: '60' })).toMatchObject({
    viewLagMs: 3_000,
    severalPerSide: true,
    settlementDelayMs: 2_500,
    dayMs: 60_000,
  });
  expect(parse({ viewLag: '0', day: '0.001' })).toMatchObject({ viewLagMs: 0, dayMs: 1 });
  // Each unset without its flag: the dialect and the simulator decide.
  const unset = parse({});
  expect([unset.viewLagMs, unset.severalPerSide, unset.settlementDelayMs, unset.dayMs]).toEqual(
    Array(4).fill(undefined),
  );
});

// --day's refusals, word for word: test/cli/decimals.test.ts.
it.each([
  ['viewLag', '-1', /^--view-lag: "-1" is not allowed/],
  ['viewLag', 'soon', /^--view-lag: "soon" is not allowed/],
  ['settlementDelay', '86401', /^--settlement-delay: "86401" is not allowed/],
])(
  'hedge sandbox serve: trailing views, several per side, late settlement, short days: refuses --%s %s',
  (key, value, message) => {
    expect(usageRefusal(() => parse({ [key]: value }))).toMatch(message);
  },
);

it('hedge sandbox serve --port on a port another process holds: says so in one line naming the port and --port (exit 2), not an unexpected failure', async () => {
  const holder = createServer();
  await new Promise<void>((listening) => holder.listen(0, '127.0.0.1', listening));
  try {
    const { port } = holder.address() as AddressInfo;
    const result = await runHedge(['sandbox', 'serve', '--port', String(port)]);
    expect([result.code, result.stdout, result.stderr]).toEqual([
      2,
      '',
      `hedge: --port: ${port} on 127.0.0.1 is in use by another process; choose another with --port, or leave --port out for any free one.\n`,
    ]);
  } finally {
    await new Promise((closed) => holder.close(closed));
  }
});

it.each(['127.0.0.256', '[::1]'])(
  'hedge sandbox serve --host that is not a loopback address listen() takes: %s: one line naming --host and what is allowed (exit 2), nothing started',
  async (host) => {
    const result = await runHedge(['sandbox', 'serve', '--host', host]);
    expect([result.code, result.stdout, result.stderr]).toEqual([
      2,
      '',
      `hedge: --host: "${host}" is not allowed; expected a loopback address (127.0.0.1, ::1, localhost).\n`,
    ]);
  },
);

it.each([
  ['SIGHUP', 129],
  ['SIGTERM', 0],
] as const)(
  'hedge sandbox serve --tls when its terminal closes: %s: exit %i, its temporary CA folder removed',
  async (signal, exitCode) => {
    let caFile = '';
    const result = await runHedge(['sandbox', 'serve', '--tls'], {
      spawn: true,
      onSpawn: (child) => {
        let stdout = '';
        child.stdout!.on('data', (chunk: string) => {
          stdout += chunk;
          caFile ||= /^NODE_EXTRA_CA_CERTS=(.+)$/m.exec(stdout)?.[1] ?? '';
          if (caFile && stdout.includes('HEDGE_WIRE_CURSOR_PARAM=')) child.kill(signal);
        });
      },
    });
    expect([result.code, result.signal], result.stderr).toEqual([exitCode, null]);
    expect(caFile).not.toBe('');
    expect(existsSync(dirname(caFile))).toBe(false);
  },
);
