// The team journal store end to end: the real binary on three "machines" (config dirs) sharing one
// real PostgreSQL database (test/support/servers/postgres.ts) and one account on the simulator. What is
// asserted is the server's own state and request log, and the store's own rows: the database down
// refuses a write before anything is sent (exit 13) while reads still work; C sees A's and B's
// actions; `journal migrate` twice adds nothing the second time; the store failing after a send leaves a fallback record that migrate merges.
import { hostname } from 'node:os';
import { loginWith, readStore } from '../support/config-store.js';
import type { RunOptions, RunResult } from '../support/hedge-cli.js';
import { until } from '../support/polling.js';
import { describeWithPostgres } from '../support/servers/postgres.js';
import { useDesks, type Machine } from '../support/team.js';
import { exits, journalEntries, lastJson, heldPauses, waitingAfter, ok, okJson } from '../support/cli-runs.js';

/** A command line on a team machine, as a person types it. */
const run = (machine: Machine, line: string, options?: RunOptions) => machine.hedge(line.split(' '), options);

/** Sandbox time for a fill or a change to land: the tests move the clock, nothing lands by itself. */
const LAND_MS = 3_600_000;
const host = hostname();

/** `hedge journal migrate --json` on `machine`: exit 0, and what it did. */
const migrate = async (machine: Machine) => okJson(await run(machine, 'journal migrate --json'));

describeWithPostgres('the team journal store, three machines', (server) => {
  const desk = useDesks(server, { stepped: true });
  /** Nothing any machine printed carries the store's password. */
  const passwordNowhere = (outputs: string[]) => {
    for (const output of outputs) expect(output).not.toContain(server().password);
  };
  /** The store's URL as hedge shows it, its password redacted. */
  const shownUrl = (url: string) => url.replace(server().password, '***');

  it("the database down: a write is refused before anything is sent (exit 13, the store named without its password), reads of the API still work; back up, machine C's `hedge journal --json` shows A's and B's actions, with host and profile; the store holds each once", async () => {
    const { t, team } = await desk();
    await server().stop();
    try {
      const refused = exits(
        await run(team.a, 'open USDTNGN buy 1000 --tenor 3'),
        13,
        `The team journal store ${team.urlWithoutPassword} cannot be reached: connection refused (while connecting).`,
      );
      expect(refused.stderr).toMatch(
        /refuses writes before sending anything; reads of the API \(positions, hedges, account\) still work/,
      );

      const json = exits(await run(team.c, 'add USDTNGN buy 500 --json --verbose'), 13);
      expect(lastJson(json.stderr).error).toMatchObject({
        code: 'state',
        class: 'state',
        details: { store: shownUrl(team.url) },
      });
      // Nothing of any write reached the server.
      expect(t.writes()).toEqual([]);

      expect(okJson(await run(team.a, 'positions --json'))).toEqual([]);
      expect(t.requests('GET', '/positions').length).toBeGreaterThan(0);
      exits(await run(team.b, 'journal'), 13);
    } finally {
      await server().start();
    }
    ok(await run(team.a, 'open USDTNGN buy 1000 --tenor 3 --json'));
    expect(t.sends()).toHaveLength(1);
    // B is another process: each row names the process and store session that began it.
    ok(await run(team.b, 'open USDTNGN sell 2000 --tenor 7 --json', { spawn: true }));
    expect(t.trades().map((entry) => entry.path)).toEqual(['/hedges', '/hedges']);

    const seen = await journalEntries(team.c);
    expect(seen.map((entry) => [entry.command, entry.profile, entry.host, entry.outcome])).toEqual([
      ['open', 'desk-b', host, 'filled'],
      ['open', 'desk-a', host, 'filled'],
    ]);
    // Each entry carries the key the server saw for it, and the process that began it.
    expect([seen.map((entry) => entry.idempotency_key).sort(), seen.map((entry) => entry.hedge_id).sort()]).toEqual([
      t
        .trades()
        .map((entry) => entry.idempotencyKey)
        .sort(),
      t
        .hedges()
        .map((hedge) => hedge.id)
        .sort(),
    ]);
    for (const entry of seen)
      expect(entry.holder).toMatchObject({
        host,
        pid: expect.any(Number),
        session: expect.stringMatching(/^[0-9a-f]{16}$/),
      });
    expect(seen[0].holder!.session).not.toBe(seen[1].holder!.session);

    // Not in any machine's local file: the store is the journal.
    expect(
      (await server().query(team.database, 'SELECT profile FROM hedge.entries ORDER BY created_at')).rows.map(
        (row) => row.profile,
      ),
    ).toEqual(['desk-a', 'desk-b']);
    expect((await journalEntries(team.a)).map((entry) => entry.id)).toEqual(seen.map((entry) => entry.id));

    // The table and TSV name the machine.
    const [tsvHeader, tsvRow] = (await run(team.c, 'journal')).stdout.split('\n').map((line) => line.split('\t'));
    expect(tsvHeader.slice(-3)).toEqual(['host', 'seal', 'seal_check']);
    expect(tsvRow[tsvHeader.indexOf('host')]).toBe(host);
    const [keys, values] = (await run(team.c, `journal show ${seen[1].id}`)).stdout
      .split('\n')
      .map((line) => line.split('\t'));
    expect(values[keys.indexOf('host')]).toBe(host);
    expect(values[keys.indexOf('holder')]).toBe(
      `pid ${seen[1].holder!.pid} on ${host}, session ${seen[1].holder!.session}`,
    );

    // --verbose says which store, its password redacted.
    expect((await run(team.c, 'journal --json --verbose')).stderr).toContain(
      `journal: team store ${shownUrl(team.url)} (from HEDGE_JOURNAL_URL)`,
    );
    expect(okJson(await run(team.c, 'whoami --json')).journal).toEqual({
      store: 'postgres',
      location: shownUrl(team.url),
      source: 'HEDGE_JOURNAL_URL',
    });
    passwordNowhere(team.outputs);
  });

  it('`hedge journal migrate` moves a local journal into the store; run twice, nothing is added twice', async () => {
    const { t, team } = await desk();
    // A's profile "solo" starts without a store: its actions go to A's local file.
    ok(await loginWith(team.a.dir, t, t.apiKey, ['--profile', 'solo']));
    const solo: Machine = {
      ...team.a,
      hedge: (args, options) => team.a.hedge(['--profile', 'solo', ...args], options),
    };
    ok(await run(solo, 'open USDTNGN buy 1000 --tenor 3 --json'));
    ok(await run(solo, 'open USDTNGN sell 1500 --tenor 1 --json'));
    const mine = await journalEntries(solo);
    expect(mine).toHaveLength(2);
    expect(await journalEntries(team.c)).toEqual([]);

    // Then the profile joins the team store (the password comes from PGPASSWORD, never the command line).
    exits(
      await loginWith(team.a.dir, t, t.apiKey, ['--profile', 'solo', '--journal-url', team.urlWithoutPassword], {
        PGPASSWORD: server().password,
      }),
      0,
      `Its journal is the team store ${team.urlWithoutPassword}`,
    );
    expect(readStore(team.a.dir).profiles.solo.journal_url).toBe(team.urlWithoutPassword);
    const profiles = okJson(await run(team.a, 'profile list --json'));
    expect(profiles.map((row: any) => [row.name, row.journal_url])).toEqual([
      ['desk-a', team.urlWithoutPassword],
      ['solo', team.urlWithoutPassword],
    ]);
    expect(await journalEntries(solo)).toEqual([]);

    const ids = mine.map((entry) => entry.id).reverse();
    expect([await migrate(solo), await migrate(solo)]).toMatchObject([
      { added: ids, merged: [], present: [], conflicts: [] },
      { added: [], merged: [], present: ids, conflicts: [] },
    ]);
    expect((await run(solo, 'journal migrate')).stderr).toContain(
      '0 added, 0 merged (a later outcome or a fallback record), 2 already there.',
    );

    const seen = await journalEntries(team.c);
    expect(seen.map((entry) => entry.id)).toEqual(mine.map((entry) => entry.id));
    expect(seen.map((entry) => [entry.profile, entry.outcome])).toEqual([
      ['solo', 'filled'],
      ['solo', 'filled'],
    ]);
    expect(
      (
        await server().query(
          team.database,
          'SELECT count(*)::int AS n, count(DISTINCT idempotency_key)::int AS keys FROM hedge.entries',
        )
      ).rows[0],
    ).toEqual({ n: 2, keys: 2 });

    // A password on the command line is refused, and not echoed.
    exits(
      await loginWith(team.a.dir, t, t.apiKey, ['--profile', 'solo', '--journal-url', team.url]),
      2,
      'carries a password',
    );
    expect(readStore(team.a.dir).profiles.solo.journal_url).toBe(team.urlWithoutPassword);
    passwordNowhere(team.outputs);
  });

  it('the store failing after the send: "sent, not recorded" with the key, a local fallback record, merged by migrate', async () => {
    const { t, team } = await desk({ fillDelayMs: LAND_MS });
    const hedgeId = okJson(await run(team.c, 'open USDTNGN sell 4000 --tenor 7 --no-wait --json')).hedge_id;
    t.advance(LAND_MS);

    const pauses = heldPauses(waitingAfter(t, '/hedges/add'));
    const running = run(team.a, 'add USDTNGN sell 1000 --timeout 60', { clock: pauses.clock });
    let result: RunResult;
    try {
      await until(pauses.paused, 'the add waiting', { process: running });
      // The add is recorded as submitted and waiting; the store goes away, then the change lands.
      await server().stop();
      t.advance(LAND_MS);
      pauses.wake();
      result = await running;
    } finally {
      await server().start();
    }
    const key = t.writes().find((entry) => entry.path === '/hedges/add')!.idempotencyKey!;
    expect(t.hedges().find((hedge) => hedge.id === hedgeId)!.notionalUsd).toBe(5_000);
    exits(
      result,
      5,
      'The add was sent, but the journal could not record what happened next',
      'is kept in the local journal',
      '`hedge journal migrate` merges it',
      key,
    );

    const theAdd = async () => (await journalEntries(team.c)).find((entry) => entry.command === 'add')!;
    const before = await theAdd();
    expect(before).toMatchObject({ outcome: 'submitted', idempotency_key: key });
    expect(await migrate(team.a)).toMatchObject({ added: [], merged: [before.id], conflicts: [] });
    expect(await theAdd()).toMatchObject({ id: before.id, outcome: 'done', idempotency_key: key });
    expect(await migrate(team.a)).toMatchObject({ merged: [], present: [before.id] });
    expect(t.sends('/hedges/add')).toHaveLength(1);
    passwordNowhere(team.outputs);
  });
});
