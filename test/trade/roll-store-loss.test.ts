// The team store lost between a roll's close and its open. The side
// is then closed and unhedged; the exit must say what was sent (5, 7 or 12, with the key and the
// resume), never 13 "nothing was sent". Judged on the simulator's own request log and state: one
// close sent and landed, no open sent, the side empty. The store is stopped while the roll waits
// for its close to land, so the failure comes as the close's outcome is recorded.
import { expect, it } from 'vitest';
import { waitingAfter } from '../support/cli-runs.js';
import { describeWithPostgres } from '../support/servers/postgres.js';
import { until } from '../support/polling.js';
import { MARKET } from '../support/simulator.js';
import { useDesks } from '../support/team.js';

describeWithPostgres(
  'a roll whose team store is lost between its close and its open ',
  (server) => {
    const desk = useDesks(server);

    it("the exit says what was sent (5, 7 or 12) with the close's key and the resume; never 13 'nothing was sent'; no open sent", async () => {
      const { t: simulator, team } = await desk({ fillDelayMs: 3_000 });
      simulator.seedOpen('sell', 1_000);
      const rolling = team.a.hedge(['roll', MARKET, 'sell', '--tenor', '7', '--yes']);
      await until(waitingAfter(simulator, '/hedges/close'), "the roll's close was answered and its wait began", {
        process: rolling,
      });
      await server().stop();
      let result;
      try {
        result = await rolling;
      } finally {
        await server().start();
      }
      // The store fails while the close's outcome is being recorded: what the close did is not known
      // to this run (5), or known and the open not sent (12); either way with the key and the resume.
      expect([5, 7, 12], result.stderr).toContain(result.code);
      expect(result.stderr).not.toMatch(/nothing was sent|before sending anything/i);
      const posts = (path: string) => simulator.requests('POST', path);
      expect(result.stderr).toContain(`idempotency key: ${posts('/hedges/close')[0]?.idempotencyKey}`);
      expect(result.stderr).toMatch(/hedge resume a_\w+/);
      // And whether the side is covered now: the roll says so (bare, or "if this close landed").
      expect(result.stderr).toMatch(/not covered now/);
      expect(posts('/hedges/close')).toHaveLength(1);
      expect(posts('/hedges')).toHaveLength(0);
      // What the exit says is so: the side is closed and unhedged.
      expect(simulator.active('sell')).toEqual([]);
    });
  },
  { shared: true },
);
