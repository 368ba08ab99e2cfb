// A write whose answer was lost is found by the account it acts on (the key and its environment) and the change it
// makes (kind, market, side), whichever command wrote it (`hedge api -X POST /hedges/add` included) and whichever host
// name of the base URL it went through (127.0.0.1 or localhost): a new write of that change on that side sends
// nothing, exit 12, naming it — on the local journal file and on the team store alike. Asserted on the simulator's
// request log and book, and on the journal's rows.
import { exits, journalEntries, lastJson, ok } from '../support/cli-runs.js';
import type { RunOptions, RunResult } from '../support/hedge-cli.js';
import { describeWithPostgres } from '../support/servers/postgres.js';
import { useSimulators, type Simulator } from '../support/simulator.js';
import { useDesks } from '../support/team.js';

/** Where runs go: a simulator, and how a command line is run against it (a machine of a team, or the simulator's own). */
interface Desk {
  t: Simulator;
  runner: { hedge(args: string[], options?: RunOptions): Promise<RunResult> };
  /** The environment that sends through another host name of the same base URL. */
  env: Record<string, string>;
}

/** The buy side's notional on the server. */
const held = (t: Simulator) => t.active('buy').reduce((sum, hedge) => sum + hedge.notionalUsd, 0);
/** [status, body] of each add the server got. */
const adds = (t: Simulator) => t.requests('POST', '/hedges/add').map((entry) => [entry.status, entry.body]);

/** Every add is committed by the server and its answer lost, retries too: the run ends not knowing (exit 5). */
async function lost(desk: Desk, line: string, options?: RunOptions) {
  desk.t.sandbox.setFaults({ dropAfterCommit: 1, match: { method: 'POST', path: '/hedges/add' } });
  const run = exits(await hedge(desk, line, options), 5);
  desk.t.sandbox.setFaults({ dropAfterCommit: 0, match: null });
  const [entry] = await journalEntries(desk.runner, '--pending');
  return { run, entry };
}

/** A command line, as a person types it. */
const hedge = (desk: Desk, line: string, options?: RunOptions) => desk.runner.hedge(line.split(' '), options);

const scenarios = {
  "a `hedge api` add whose answer was lost: `hedge add` of the same change sends nothing (exit 12) naming the api's row; once resolved as landed, the add goes":
    async (desk: Desk) => {
      const { t } = desk;
      t.seedOpen('buy', 1000);
      const { entry } = await lost(desk, 'api -X POST /hedges/add -f market=USDTNGN -f side=buy -F notional_usd=500');
      expect([entry.command, entry.outcome]).toEqual(['api POST /hedges/add', 'unknown']);
      expect(held(t)).toBe(1500);
      const sent = adds(t).length;

      const refused = exits(await hedge(desk, 'add USDTNGN buy 500 --json'), 12);
      const error = lastJson(refused.stderr).error;
      expect(error).toMatchObject({ class: 'unresolved', details: { journal_id: entry.id, command: entry.command } });
      expect(error.message).toContain(
        `An earlier add on the buy side of USDTNGN has no known outcome: api POST /hedges/add (journal ${entry.id}`,
      );
      expect(error.hint).toContain(`journal resolve ${entry.id} --landed`);
      // The same change, however its market and side are spelled.
      exits(await hedge(desk, 'add usdtngn BUY 700'), 12);
      // And another `hedge api` add of another amount is stopped by it as well.
      exits(await hedge(desk, 'api -X POST /hedges/add -f market=usdtngn -f side=buy -F notional_usd=900'), 12);
      expect([adds(t).length, held(t)]).toEqual([sent, 1500]);

      ok(await hedge(desk, `journal resolve ${entry.id} --landed`));
      ok(await hedge(desk, 'add USDTNGN buy 500'));
      expect([adds(t).slice(sent), held(t)]).toEqual([
        [[200, { market: 'USDTNGN', side: 'buy', notional_usd: 500 }]],
        2000,
      ]);
    },

  'an add lost through 127.0.0.1, typed again through localhost: sends nothing (exit 12) naming the row and the credentials to resume it with; typed again through 127.0.0.1, it is resumed under its own key and lands once':
    async (desk: Desk) => {
      const { t } = desk;
      t.seedOpen('buy', 1000);
      const { entry } = await lost(desk, 'add USDTNGN buy 500');
      expect(entry.base_url_host).toMatch(/^127\.0\.0\.1:/);
      const sent = adds(t).length;

      const refused = exits(await hedge(desk, 'add USDTNGN buy 500 --json', { env: desk.env }), 12);
      const error = lastJson(refused.stderr).error;
      expect(error).toMatchObject({ details: { journal_id: entry.id, base_url_host: entry.base_url_host } });
      expect(error.hint).toContain(`HEDGE_BASE_URL=<https://${entry.base_url_host}/…> hedge resume ${entry.id}`);
      expect([adds(t).length, held(t)]).toEqual([sent, 1500]);

      // Where it was sent: today's resume of the same request, with its key, which the server answers once.
      ok(await hedge(desk, 'add USDTNGN buy 500'));
      expect(new Set(t.requests('POST', '/hedges/add').map((one) => one.idempotencyKey))).toEqual(
        new Set([entry.idempotency_key]),
      );
      expect(held(t)).toBe(1500);
    },
};

describe('on the local journal file', () => {
  const start = useSimulators({ stepped: true });
  for (const [name, scenario] of Object.entries(scenarios))
    it(name, async () => {
      const t = await start();
      await scenario({
        t,
        runner: t,
        env: { HEDGE_BASE_URL: t.baseUrl.replace('127.0.0.1', 'localhost') },
      });
    });
});

describeWithPostgres('on the team store', (server) => {
  const newDesk = useDesks(server, { stepped: true });
  for (const [name, scenario] of Object.entries(scenarios))
    it(name, async () => {
      const { t, team } = await newDesk();
      // Machine C: key, base URL and store from the environment.
      await scenario({
        t,
        runner: team.c,
        env: { HEDGE_BASE_URL: t.baseUrl.replace('127.0.0.1', 'localhost') },
      });
    });
});
