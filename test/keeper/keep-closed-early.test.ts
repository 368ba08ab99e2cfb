// A colleague's early close of a kept side, between two keeper cycles: on the reference dialect (the hedge shows
// `closed`) a hedge the keeper opened, closed from its own config dir (its journal holds the close, not a roll); on
// alpha (it stays `filled` on GET /hedges; only the history says it ended) one held before, closed from another. On
// each the close stands (drift, change "open") and no re-open is sent, judged on one clock (the server's 45 s behind
// ours) though the target file last changed 10 s ago by this machine's; --converge restores the side. Asserted on the
// simulator's request log.
import { utimesSync } from 'node:fs';
import { keepOnce, writeTarget } from '../support/keeper.js';
import { MARKET, useSimulators } from '../support/simulator.js';
import { tempFolders } from '../support/hedge-cli.js';
import { eventIs, holds, oneFilled } from './filled.js';

const startSimulator = useSimulators({ stepped: true, realNow: () => Date.now() - 45_000 });
const colleagueDir = tempFolders('hedge-colleague-');

it.each([
  ['reference', 'opened by the keeper, closed from its own config dir'],
  ['alpha', 'held before, closed from another config dir'],
] as const)(
  "hedge keep after a colleague's early close: %s: the kept buy side (%s) after the target file last changed is left flat as drift, no POST /hedges sent, until --converge restores it",
  async (dialect, _how) => {
    const simulator = await startSimulator({ dialect });
    if (dialect === 'alpha') simulator.seedOpen('buy', 1_000);
    const file = writeTarget(simulator, ['USDTNGN,buy,1000,7,,']);
    await keepOnce(simulator, file);
    await oneFilled(simulator, 'buy', 'the fill');
    const [hedge] = simulator.active('buy');
    utimesSync(file, new Date(Date.now() - 10_000), new Date(Date.now() - 10_000));
    const configDir = dialect === 'alpha' ? colleagueDir() : simulator.configDir;
    const closed = await simulator.hedge(['close', MARKET, 'buy', '--yes'], { configDir });
    expect(closed.code, closed.stderr).toBe(0);
    expect(simulator.active('buy')).toHaveLength(0);
    const opens = simulator.requests('POST', '/hedges').length;
    expect((await keepOnce(simulator, file, 0, '--json')).find(eventIs('drift'))).toMatchObject({
      side: 'buy',
      change: 'open',
      hedge_ids: [hedge.id],
    });
    expect([opens, simulator.requests('POST', '/hedges').length]).toEqual(dialect === 'alpha' ? [0, 0] : [1, 1]);
    expect(simulator.active('buy')).toHaveLength(0);
    expect((await keepOnce(simulator, file, 0, '--converge')).some(eventIs('reopen', 'buy'))).toBe(true);
    await oneFilled(simulator, 'buy', 'the restored fill');
    holds(simulator, 1000, 'buy');
  },
);
