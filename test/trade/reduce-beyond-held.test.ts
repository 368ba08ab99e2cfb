// A reduce larger than what every view agrees the side holds is refused before it is journaled or sent (the server
// would answer notional_too_large), saying what the side holds; up to what it holds is sent. On the simulator's log.
import { useSimulators } from '../support/simulator.js';
import { exits, ok } from '../support/cli-runs.js';

const startTrading = useSimulators({ stepped: true });

it('reduce beyond the side: exit 3 naming what is held, no reduce sent, nothing journaled; the whole side is sent', async () => {
  const rig = await startTrading();
  ok(await rig.hedge('open USDTNGN buy 20000 --tenor 7 --yes'));
  const [{ id }] = rig.active('buy');
  const before = rig.trades().length;
  const refused = exits(
    await rig.hedge('reduce USDTNGN buy 50000 --yes'),
    3,
    `The buy side of USDTNGN holds 20,000.00 USD (${id}): a reduce of 50,000.00 USD is more than it holds. Nothing was sent.`,
    'hedge close USDTNGN buy',
  );
  expect(refused.stderr).toContain('held_usd: 20000');
  const json = exits(await rig.hedge('reduce USDTNGN buy 20000.01 --yes --json'), 3);
  expect(JSON.parse(json.stderr).error).toMatchObject({ code: 'notional_too_large', class: 'rejected' });
  expect(rig.trades()).toHaveLength(before);
  expect(JSON.parse(ok(await rig.hedge('journal --json')).stdout).map((row: any) => row.command)).toEqual(['open']);
  ok(await rig.hedge('reduce USDTNGN buy 5000 --yes'));
  expect(
    rig
      .trades()
      .slice(before)
      .map((entry) => entry.path),
  ).toEqual(['/hedges/reduce']);
  expect(rig.active('buy').map((hedge) => hedge.notionalUsd)).toEqual([15_000]);
});
