// Hedges are a target row's by reference: a hedge on a row's side that carries another reference (or none) is never
// closed, reduced or counted as drift by plan, apply or keep (--exposures too) unless the user adopts it (--adopt REF|ID).
// Plan shows the row as "not this row's"; apply refuses naming the hedge and the option; the keeper leaves the side
// alone and says why in its status. Asserted on the simulator's state and request log.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useSimulators, type Simulator } from '../support/simulator.js';
import { exits, ok } from '../support/cli-runs.js';
import { keepOnce } from '../support/keeper.js';

const startTrading = useSimulators({ stepped: true });

function file(rig: Simulator, name: string, lines: string[]) {
  const path = join(rig.configDir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** A hedge opened by hand on the buy side under `ref`; its id. */
async function openByHand(rig: Simulator, ref: string, notional = 3000) {
  ok(await rig.hedge(`open USDTNGN buy ${notional} --tenor 7 --ref ${ref} --yes`));
  return rig.active('buy').find((hedge) => hedge.clientReference === ref)!.id;
}

const TARGET = ['market,side,notional_usd,tenor_days,client_reference', 'USDTNGN,buy,500,3,IMPORTS-DEC'];

it("plan shows a side held under another reference as not this row's; apply refuses naming the hedge and --adopt, sending nothing; with --adopt it reduces the adopted hedge to the target", async () => {
  const rig = await startTrading();
  const id = await openByHand(rig, 'DEAL-43');
  const target = file(rig, 'target.csv', TARGET);
  const before = rig.trades().length;

  const plan = exits(await rig.hedge(`plan ${target} --json`), 9);
  const data = JSON.parse(plan.stdout);
  expect(data.steps).toEqual([]);
  expect(data.not_this_rows).toEqual([
    expect.objectContaining({
      side: 'buy',
      line: 2,
      current_usd: 3000,
      target_usd: 500,
      client_reference: 'IMPORTS-DEC',
      hedges: [{ id, client_reference: 'DEAL-43' }],
      adopt: ['DEAL-43'],
    }),
  ]);
  expect(exits(await rig.hedge(`plan ${target}`), 9).stderr).toContain(
    `line 2: the buy side of USDTNGN holds ${id} (DEAL-43), not this row's (IMPORTS-DEC): nothing is planned for it. --adopt DEAL-43 makes it the row's.`,
  );

  const refused = exits(await rig.hedge(`apply ${target} --yes`), 3, id, '--adopt DEAL-43');
  expect(refused.stderr).toContain("not this row's");
  expect(rig.trades()).toHaveLength(before);
  expect(rig.active('buy').map((hedge) => hedge.notionalUsd)).toEqual([3000]);

  ok(await rig.hedge(`apply ${target} --adopt DEAL-43 --yes`));
  expect(
    rig
      .trades()
      .slice(before)
      .map((entry) => entry.path),
  ).toEqual(['/hedges/reduce']);
  expect(rig.active('buy').map((hedge) => [hedge.id, hedge.notionalUsd])).toEqual([[id, 500]]);
});

it('a row without a reference owns only hedges without one: a referenced hedge on its side is not closed by a target of 0', async () => {
  const rig = await startTrading();
  const id = await openByHand(rig, 'DEAL-44');
  const target = file(rig, 'flat.csv', ['market,side,notional_usd,tenor_days', 'USDTNGN,buy,0,3']);
  const before = rig.trades().length;
  exits(await rig.hedge(`apply ${target} --yes`), 3, `${id} (DEAL-44)`, '--adopt DEAL-44');
  expect(rig.trades()).toHaveLength(before);
  // Adopted by its id.
  ok(await rig.hedge(`apply ${target} --adopt ${id} --yes`));
  expect(rig.active('buy')).toEqual([]);
});

it("keep --once leaves a side held under another reference alone: no drift, no write, its status says not this row's and names --adopt", async () => {
  const rig = await startTrading();
  const id = await openByHand(rig, 'DEAL-43');
  const target = file(rig, 'target.csv', TARGET);
  const before = rig.trades().length;
  const events = await keepOnce(rig, target, 0, '--converge', '--yes');
  expect(events.filter((event) => event.event === 'drift')).toEqual([]);
  const skip = events.find((event) => event.event === 'skip');
  expect(skip?.reason).toBe(`not this row's: the side holds ${id} (DEAL-43); --adopt DEAL-43 makes it the row's`);
  expect(rig.trades()).toHaveLength(before);
  // Adopted: the keeper brings the side to the target.
  await keepOnce(rig, target, 0, '--converge', '--adopt', 'DEAL-43', '--yes');
  expect(rig.active('buy').map((hedge) => hedge.notionalUsd)).toEqual([500]);
});

it('keep --exposures never closes a hedge designated under another reference on its side', async () => {
  const rig = await startTrading();
  const id = await openByHand(rig, 'NGN-COST-1', 20_000);
  const due = new Date(rig.sandbox.clock.now() + 20 * 86_400_000).toISOString();
  // A receivable is covered on the buy side; the target is far from the hand-opened 20,000.
  const exposures = file(rig, 'exposures.csv', [
    'id,market,type,amount,currency,due',
    `R1,USDTNGN,receivable,1m,NGN,${due}`,
  ]);
  const before = rig.trades().length;
  const events = await keepOnce(rig, exposures, 0, '--exposures', '--yes');
  expect(events.find((event) => event.event === 'skip')?.reason).toContain(`${id} (NGN-COST-1)`);
  expect(rig.trades()).toHaveLength(before);
  expect(rig.active('buy').map((hedge) => [hedge.id, hedge.notionalUsd])).toEqual([[id, 20_000]]);
});
