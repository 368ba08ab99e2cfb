// A server amount that cannot be — an open side, or a filled hedge, holding a notional of zero or
// less — is a reading problem: `positions` shows it and says why, and a write that would act on
// that side is refused before it sends (exit 14). Asserted on the simulator's request log; a proxy
// in front of it plays the server that answers the impossible amount in every view.
import { ok, exits } from '../support/cli-runs.js';
import { startRewriteProxy } from '../support/servers/field-proxy.js';
import type { HedgeArgs } from '../support/hedge-cli.js';
import { useSimulators } from '../support/simulator.js';

const startSimulator = useSimulators();

it.each([-500, 0])(
  'an open side the server gives a notional of %d USD: shown by positions, and reduce, close and add send nothing (exit 14)',
  async (usd) => {
    const simulator = await startSimulator();
    simulator.seedOpen('buy', 1_000);
    // Both views agree on the impossible figure: the positions line and the hedge's record.
    const proxy = await startRewriteProxy(simulator.sandbox, (path, item) => {
      if ((path === '/positions' || path.startsWith('/hedges')) && item.side === 'buy') item.notional_usd = usd;
    });
    const hedge = (args: HedgeArgs) => simulator.hedge(args, { env: { HEDGE_BASE_URL: proxy.baseUrl } });
    try {
      const shown = ok(await hedge('positions --json'));
      expect(JSON.parse(shown.stdout)).toMatchObject([{ side: 'buy', notional_usd: usd }]);
      expect(shown.stderr).toContain(`a notional of ${usd.toFixed(2)} USD, which cannot be`);

      for (const args of ['reduce USDTNGN buy 100', 'close USDTNGN buy --yes', 'add USDTNGN buy 100 --yes'])
        exits(
          await hedge(args),
          14,
          `hedge: The buy side of USDTNGN is not acted on: the positions list gives the open side a notional of ${usd.toFixed(2)} USD, which cannot be.`,
        );
      expect([
        simulator.requests('POST', /^\/hedges\/(reduce|close|add)$/),
        simulator.active('buy').map((record) => record.notionalUsd),
      ]).toEqual([[], [1_000]]);
    } finally {
      await proxy.close();
    }
  },
);
