// A list's cut check (a page of one asked, to see whether the server reads the page size) that fails on the
// network: the list already read is still given, with the warning that it may be cut — as for a refused check.
import { describe, expect, it } from 'vitest';
import { startAnswerProxy } from '../support/servers/field-proxy.js';
import { envFor, useSimulators } from '../support/simulator.js';
import { ok } from '../support/cli-runs.js';

const startSimulator = useSimulators();

describe('the page-size check of a list', () => {
  it('--all whose page-size check fails on the network (every attempt): the list read is still given, with the warning it may be cut', async () => {
    const simulator = await startSimulator();
    const ids = simulator.sandbox.seedHedges({ apiKey: simulator.apiKey, count: 51 });
    let lists = 0;
    // The list passes; every later GET /hedges (the page of one) has its connection dropped after the server answered.
    const proxy = await startAnswerProxy(simulator.sandbox, (request) => {
      if (request.method === 'GET' && request.path === '/hedges' && ++lists > 1) throw new Error('connection dropped');
    });
    try {
      const result = ok(await simulator.hedge('hedges --all --json', { env: envFor(proxy) }));
      expect(new Set(JSON.parse(result.stdout).map((hedge: { id: string }) => hedge.id))).toEqual(new Set(ids));
      expect(result.stderr).toMatch(/may be cut at 51 hedges: the server gave no next page/);
      const asked = simulator.requests('GET', '/hedges').map((entry) => entry.query);
      expect(asked[0]).toEqual({ limit: '500' });
      expect(asked.length).toBeGreaterThan(1);
      expect(asked.slice(1).every((query) => query.limit === '1')).toBe(true);
    } finally {
      await proxy.close();
    }
  });
});
