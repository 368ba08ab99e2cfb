// A keeper on a LIVE key at a terminal, without --yes: the person's one "yes" at its start approves every write its
// run makes (its roll's close and open, an open of another row); none of them asks again.
import { exits } from '../support/cli-runs.js';
import { HOUR, writeTarget } from '../support/keeper.js';
import { startLiveKeyProxy } from '../support/servers/field-proxy.js';
import { closedAfter, MARKET, withSimulator } from '../support/simulator.js';

it('a keeper confirmed once at its start on a LIVE key rolls and opens on that yes, asked nothing more', async () => {
  await withSimulator({ stepped: true }, async (simulator) => {
    const seeded = simulator.seedOpen('buy', 1000);
    // The seeded hedge is a 7-day one: 5 h before its maturity, within roll_before (6 h).
    simulator.advance(7 * 24 * HOUR - 5 * HOUR);
    const file = writeTarget(simulator, [`${MARKET},buy,1000,7,,6h`, `${MARKET},sell,500,3,,`]);
    const run = await closedAfter(startLiveKeyProxy(simulator.sandbox), (proxy) =>
      simulator.hedge(['keep', file, '--once'], {
        env: proxy.env,
        person: async (person) => {
          if (!(await person.asked('(y/N)'))) return;
          person.type('y\r');
          // Any further question is one too many: declined, so that nothing it asks about is sent.
          while (await person.asked('(y/N)')) person.type('n\r');
        },
      }),
    );
    exits(run, 0);
    // The one question on the screen is the keeper's own, answered once.
    expect(new Set(run.stdout.match(/[?✔✖] LIVE \w+/g))).toEqual(new Set(['? LIVE Keep', '✔ LIVE Keep']));
    expect(simulator.actions('/hedges/close')).toHaveLength(1);
    const [rolled] = simulator.active('buy');
    expect([simulator.active('buy').length, rolled.id === seeded.id, rolled.notionalUsd, rolled.tenorDays]).toEqual([
      1,
      false,
      1000,
      7,
    ]);
    expect(simulator.active('sell').map((hedge) => hedge.notionalUsd)).toEqual([500]);
  });
});
