// One reading kit: a position that gives its P&L under two names is read the same by
// every command — `positions` and `report` used to read `{pnl_usd: 5, unrealized_pnl_usd: 7}` as
// 5 and 7. The one table (api/wire/fields.ts) reads `pnl_usd` first: the spec's figure of a
// line is its net P&L, price plus carry; "unrealized" is the spec's word for the account's figure.
// The real binary against a real sandbox behind a real proxy that renames the fields.
import { afterEach, describe, expect, it } from 'vitest';
import { startRewriteProxy, type FieldProxy } from '../support/servers/field-proxy.js';
import { envFor, useSimulators } from '../support/simulator.js';
import { ok, okJson } from '../support/cli-runs.js';

const start = useSimulators();
const proxies: FieldProxy[] = [];
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
});

describe("a position's P&L under two names", () => {
  it('positions and report read the same value from the same payload', async () => {
    const t = await start();
    t.seedOpen('buy', 10_000);
    const proxy = await startRewriteProxy(t.sandbox, (path, item) => {
      if (path !== '/positions') return;
      delete item.net_pnl_usd;
      Object.assign(item, { pnl_usd: 5, unrealized_pnl_usd: 7 });
    });
    proxies.push(proxy);
    const env = envFor(proxy);

    const positions = ok(await t.hedge('positions --json', { env }));
    const lines = JSON.parse(positions.stdout);
    expect(lines).toHaveLength(1);
    expect(lines[0].net_pnl_usd).toBe(5);

    const report = okJson(await t.hedge('report --json', { env }));
    expect(report.unrealized).toEqual({ positions: 1, net_pnl_usd: 5 });
  });
});
