import { PassThrough } from 'node:stream';

import { describe, expect, it } from 'vitest';

import { serveSandbox } from '../../src/sandbox/index.js';
import { until } from '../support/polling.js';

function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  return { stream, text: () => text };
}

describe('serveSandbox', () => {
  it('prints one KEY=value line per setting on stdout, notes on stderr (the behaviours switched on too), and stops cleanly', async () => {
    const stdout = capture();
    const stderr = capture();
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
    expect(settings.HEDGE_BASE_URL).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/partners\/sandbox\/v2$/);
    expect(settings.HEDGE_API_KEY).toMatch(/^hpk_test_[A-Za-z0-9]{24}$/);
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

  it('stops on SIGTERM and prints no CA line without TLS', async () => {
    // Other files of this worker may have left listeners of their own: serve's is the one it adds.
    const before = process.listeners('SIGTERM');
    const stdout = capture();
    const stderr = capture();
    const serving = serveSandbox(
      { apiKeys: ['hpk_test_ServeServeServeServe1234'] },
      { stdout: stdout.stream, stderr: stderr.stream },
    );
    await until(() => stderr.text().includes('Ctrl-C'));
    expect(stdout.text()).toMatch(
      /^HEDGE_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/partners\/sandbox\/v2\nHEDGE_API_KEY=hpk_test_ServeServeServeServe1234\nHEDGE_WIRE_PAGE_SIZE_PARAM=limit\nHEDGE_WIRE_NOTIONAL_FIELD=notional_usd\nHEDGE_WIRE_PRICES_PARAM=symbols\nHEDGE_WIRE_CURSOR_PARAM=cursor\n$/,
    );
    const response = await fetch(`${stdout.text().split('\n')[0].split('=')[1]}/markets`, {
      headers: { authorization: 'Bearer hpk_test_ServeServeServeServe1234' },
    });
    expect(response.status).toBe(200);
    const added = process.listeners('SIGTERM').filter((listener) => !before.includes(listener));
    expect(added).toHaveLength(1);
    added[0]!('SIGTERM');
    await serving;
    expect(process.listeners('SIGTERM')).toEqual(before);
  });
});
