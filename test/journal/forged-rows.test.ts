// Trust nothing you re-send: a journal row is data that crossed a network (a team store other
// machines write to, a copied file). A row that does not verify under the API key — written without
// the key, or changed after it was written — is never sent again: not by the keeper, not by a bare
// `hedge resume`, not by `resume ID --yes`, not through a re-run's --idempotency-key. A genuine row
// begun on another machine needs a person's yes; a row that cannot be read at all is skipped, named,
// and every command goes on. Asserted on the simulator's request log and state, and on the store's rows.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { keyFingerprint, rowSealer, type SealedFields } from '../../src/platform/journal/row-integrity.js';
import { exits, journalEntries, lastJson, markTrades as mark, ok, okJson } from '../support/cli-runs.js';
import { appendRow, insertRow, NESTED_HERE, nestedJson, nextSeq } from '../support/journal-rows.js';
import { activeNotional, lines, writeTarget } from '../support/keeper.js';
import { describeWithPostgres } from '../support/servers/postgres.js';
import { MARKET, useSimulators, type Simulator } from '../support/simulator.js';
import { useDesks, type Machine } from '../support/team.js';
import type { RunOptions } from '../support/hedge-cli.js';
import { eventIs } from '../keeper/filled.js';

/** The notionals of the hedges the server holds on that side. */
const held = (t: Simulator, side: 'buy' | 'sell') => t.active(side).map((hedge) => hedge.notionalUsd);
/** A command line on a team machine, as a person types it. */
const run = (machine: Machine, line: string, options?: RunOptions) => machine.hedge(line.split(' '), options);

/**
 * A journal row as a writer with access to the store (but maybe not the key) would put it there:
 * its request `body` on MARKET, sealed under `sealWith` (a genuine row of that key) when given, with
 * the sealed fields in `more` (group, leg, via, host, what its process read before its send).
 */
function rowFor(
  t: Simulator,
  { command, body, sealWith, ...more }: Partial<SealedFields> & { command: string; body: object; sealWith?: string },
) {
  const at = new Date().toISOString();
  const sealed: SealedFields = {
    id: `z${randomBytes(6).toString('hex')}`,
    created_at: at,
    environment: 'test',
    base_url_host: new URL(t.baseUrl).host,
    key_id: keyFingerprint(t.apiKey),
    host: hostname(),
    command,
    request: {
      method: 'POST',
      path: command === 'open' ? '/hedges' : `/hedges/${command}`,
      body: { market: MARKET, ...body },
    },
    idempotency_key: `forged-${randomBytes(6).toString('hex')}`,
    ...more,
  };
  const seal = sealWith ? { seal: rowSealer(sealWith).seal(sealed) } : {};
  return { updated_at: at, ...sealed, argv: [command, MARKET], outcome: 'pending', holder: null, ...seal };
}

describeWithPostgres('rows in the team store are verified before anything is sent again', (server) => {
  const newDesk = useDesks(server, { stepped: true });

  async function desk() {
    const { t, team } = await newDesk();
    // The store's schema is made by the first write of any machine.
    ok(await run(team.a, `open ${MARKET} sell 100 --tenor 1`));
    /** rowFor's row, put in the store. */
    const plant = async (fields: Parameters<typeof rowFor>[1]) => {
      const row = rowFor(t, fields);
      await insertRow(server(), team, row);
      return row;
    };
    return { t, team, plant };
  }

  it('the keeper leaves a genuine row of another machine to a person (its side waits, nothing is sent), and sends no forged row: neither an unsealed add on its own side claiming to be its own, nor one on a side it does not keep', async () => {
    const { t, team, plant } = await desk();
    const file = writeTarget(t, [`${MARKET},sell,100,1,,`]);
    const elsewhere = await plant({
      command: 'add',
      body: { side: 'sell', notional_usd: 300 },
      group: 'keep-20261123T000002000Z-abcdef',
      leg: 'converge',
      via: 'keeper',
      host: 'desk-far-away',
      sealWith: t.apiKey,
    });
    const nothingSent = mark(t);
    const skipped = lines(ok(await team.a.hedge(['keep', file, '--once'])).stdout).filter(eventIs('skip'));
    expect(skipped.map((event) => [event.side, event.reason])).toEqual([
      [
        'sell',
        `the add of journal ${elsewhere.id} is unresolved (pending): left alone until it is finished by its key`,
      ],
    ]);

    // The row: an unresolved add of 66,666 in a keep- group, the account's fingerprint, no holder.
    await plant({
      command: 'add',
      body: { side: 'buy', notional_usd: 66_666 },
      group: 'keep-20261123T000000000Z-abcdef',
      leg: 'converge',
    });
    // The same, dressed as this machine's keeper on the target's own side.
    const dressed = await plant({
      command: 'add',
      body: { side: 'sell', notional_usd: 66_666 },
      group: 'keep-20261123T000001000Z-abcdef',
      leg: 'converge',
      via: 'keeper',
    });

    // The dressed row is refused by its seal (exit 13, named); the other is not the keeper's to finish.
    const kept = exits(await team.a.hedge(['keep', file, '--once']), 13);
    const refused = lines(kept.stdout).filter(eventIs('error', { code: 'unverified_row' }));
    expect(refused.map((event) => event.journal_id)).toEqual([dressed.id]);
    nothingSent();
    expect([t.active('buy'), held(t, 'sell')]).toEqual([[], [100]]);
  });

  it('`hedge resume` (bare, or an id with --yes) refuses a forged open (exit 13, unverified_row, nothing sent); `hedge journal` shows it unverified', async () => {
    const { t, team, plant } = await desk();
    const unsealed = await plant({
      command: 'open',
      body: { side: 'buy', notional_usd: 77_777, tenor_days: 3 },
    });
    const nothingSent = mark(t);

    const bare = exits(await run(team.c, 'resume --json'), 13);
    expect(lastJson(bare.stderr).error).toMatchObject({
      code: 'unverified_row',
      details: { journal_id: unsealed.id, seal: 'unsealed' },
    });

    // A seal that is not this key's (made under another key: someone without this key wrote it).
    const foreign = await plant({
      command: 'open',
      body: { side: 'sell', notional_usd: 250_000, tenor_days: 7 },
      sealWith: 'sk_test_someone_elses_key_0000000000',
    });
    exits(
      await run(team.c, `resume ${foreign.id} --yes`),
      13,
      `Journal ${foreign.id} (open: POST /hedges) does not verify as this account's own row`,
      'its seal does not match',
    );
    nothingSent();

    const listed = await journalEntries(team.c, '--pending');
    const checks = Object.fromEntries(listed.map((entry) => [entry.id, entry.seal_check]));
    expect(checks).toEqual({ [unsealed.id]: 'unsealed', [foreign.id]: 'forged' });
    const table = await run(team.c, 'journal --pending');
    // The header's last column, then each row's: the verdict under JSON's name, JSON's words.
    const tsvRows = table.stdout
      .trimEnd()
      .split('\n')
      .map((row) => row.split('\t'));
    expect(tsvRows.map((row) => row.at(-1))).toEqual(['seal_check', ...tsvRows.slice(1).map((row) => checks[row[0]])]);
    expect(
      tsvRows
        .slice(1)
        .map((row) => row.at(-1))
        .sort(),
    ).toEqual(['forged', 'unsealed']);
    // Said under any table, whatever columns its width leaves out.
    expect(table.stderr).toContain(
      `2 rows ${foreign.id}, ${unsealed.id} do not verify as this account's own: hedge never sends them again`,
    );
  });

  it("a genuine open set back to unknown in the store, its hedge id removed, past the key's lifetime: its time made new, it no longer verifies (exit 13); with its own time, resume finds its hedge and sends nothing", async () => {
    const { t, team } = await desk();
    ok(await run(team.a, `open ${MARKET} buy 700 --tenor 7 --ref DEAL-77`));
    // A day on: the server has forgotten the key (the simulator keeps keys 24 h).
    t.advance(25 * 3_600_000);
    // "Now" on the server's clock: the row made to look as if it began after its hedge was opened.
    const now = new Date(Date.now() + 25 * 3_600_000 + 60_000).toISOString();
    const { rows } = await server().query(
      team.database,
      `SELECT id, entry->>'created_at' AS created_at FROM hedge.entries WHERE command = 'open' AND entry->'request'->'body'->>'client_reference' = 'DEAL-77'`,
    );
    const id = rows[0]!.id;
    const reset = (at: string) =>
      server().query(
        team.database,
        `UPDATE hedge.entries SET outcome = 'unknown', created_at = $2::timestamptz, entry = (entry - 'hedge_id' - 'resolved_at') || jsonb_build_object('outcome', 'unknown', 'created_at', $3::text) WHERE id = $1`,
        [id, at, at],
      );
    const resume = () => run(team.c, `resume ${id} --yes`, { env: { HEDGE_KEY_LIFETIME: '1' } });
    await reset(now);
    const nothingSent = mark(t);
    // The seal covers the row's time: a row made to look newer is not this account's row as written.
    exits(await resume(), 13, 'its seal does not match what it would send');
    nothingSent();

    await reset(rows[0]!.created_at);
    exits(await resume(), 0, 'The book shows it landed');
    nothingSent();
    expect(held(t, 'buy')).toEqual([700]);
  });

  it('a row nested 10,000 deep in the store is skipped with a notice naming it: journal, journal show, resume, journal resolve and a write go on; a forged "done" add in the store is no earlier run of the same add: the add is sent (exit 0), never refused as a repeat', async () => {
    const { t, team } = await desk();
    // An unresolved add on the side the write below adds to: the row a write looks at before it sends.
    const row = rowFor(t, { command: 'add', body: { side: 'sell', notional_usd: 100, deeper: NESTED_HERE } });
    await insertRow(server(), team, row, nestedJson(row, 10_000));
    const skipped = `row ${row.id} (nested deeper than 64 levels).`;
    const nothingSent = mark(t);

    const listed = exits(await run(team.c, 'journal --json'), 0, 'Journal row skipped: postgres://', skipped);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ command: 'open', outcome: 'filled' }]);
    exits(await team.a.hedge(['journal']), 0, skipped);
    exits(await run(team.c, `journal show ${row.id}`), 2, skipped);
    exits(await run(team.c, `journal resolve ${row.id} --landed`), 2, skipped);
    exits(await team.b.hedge(['resume']), 0, skipped);
    nothingSent();
    const added = exits(await run(team.c, `add ${MARKET} sell 100`), 0, skipped);
    expect(added.stderr).not.toMatch(/unexpected|call stack/i);
    expect([t.sends('/hedges/add').length, held(t, 'sell')]).toEqual([1, [200]]);

    // A forged "done" add in the store is no earlier run of the same add: the add is sent (exit 0), never refused as
    // a repeat of an action that did not happen.
    const at = new Date().toISOString();
    // Written without the key: an add said to have ended just now, the same request as the one typed.
    const forged = { ...rowFor(t, { command: 'add', body: { notional_usd: 400, side: 'sell' } }), outcome: 'done' };
    await insertRow(server(), team, { ...forged, resolved_at: at });
    const before = t.trades().length;

    ok(await run(team.c, `add ${MARKET} sell 400 --json`));
    const sent = t.trades().slice(before);
    expect([sent.map((entry) => entry.path), activeNotional(t, 'sell')]).toEqual([['/hedges/add'], 600]);
    expect(sent[0].idempotencyKey).not.toBe(forged.idempotency_key);
  });

  it('a row whose id carries colour codes and a newline (a writer without the key): every line that names it shows it escaped, never raw', async () => {
    const { t, team } = await desk();
    const row = {
      ...rowFor(t, { command: 'add', body: { side: 'sell', notional_usd: 100 } }),
      id: 'z\u001b[8mx\nhedge: FORGED',
    };
    await insertRow(server(), team, row);
    const said = [
      await run(team.c, 'journal'),
      await run(team.c, `add ${MARKET} sell 100`),
      await team.c.hedge(['resume']),
      await team.c.hedge(['journal', 'show', row.id]),
    ].map((result) => result.stdout + result.stderr);
    for (const text of said) {
      expect(text).not.toContain('\u001b');
      expect(text).not.toMatch(/^hedge: FORGED/m);
    }
    expect(said.join('\n')).toContain('z\\x1b[8mx');
  });

  it('a genuine row begun on another machine, and the same add typed on this machine while a genuine one begun on another is unresolved: without a terminal each needs --yes (exit 2, nothing sent), as `hedge resume` does; with --yes it is finished once, with its own key', async () => {
    const { t, team, plant } = await desk();
    // Its body's keys as the store keeps a body (sorted), as a machine's own write stores it, or in the order the add's own request writes them.
    for (const [body, command, after] of [
      [{ notional_usd: 400, side: 'sell' }, () => `add ${MARKET} sell 400`, 500],
      [{ side: 'sell', notional_usd: 400 }, (id: string) => `resume ${id}`, 900],
    ] as const) {
      const elsewhere = await plant({
        command: 'add',
        body,
        host: 'desk-far-away',
        sealWith: t.apiKey,
        // As that machine's add journaled it: the side's notional before the send, which its wait compares with.
        context: { baseline_notional_usd: after - 400 },
      });
      const before = t.trades().length;

      exits(
        await run(team.c, command(elsewhere.id)),
        2,
        'was begun on desk-far-away, not on this machine: pass --yes to resume it from here',
      );
      expect(t.trades().slice(before)).toEqual([]);

      ok(await run(team.c, `${command(elsewhere.id)} --yes`));
      const sent = t.trades().slice(before);
      expect(sent.map((entry) => [entry.path, entry.idempotencyKey])).toEqual([
        ['/hedges/add', elsewhere.idempotency_key],
      ]);
      expect(activeNotional(t, 'sell')).toBe(after);
    }
  });
});

const startSimulator = useSimulators({ stepped: true });

it('rows in the local journal file are verified before anything is sent again: a forged roll row naming a hedge a colleague closed does not make the keeper open the side again: it stays drift, reported, nothing sent; a forged row appended to the file: `resume ID --yes` and a re-run with its --idempotency-key send nothing (exit 13); a forged "landed add" on the side moves no baseline: a genuine add past its key lifetime is judged by its own effect, not sent a second time', async () => {
  const t = await startSimulator();
  const file = writeTarget(t, [`${MARKET},buy,1000,7,,`]);
  const hedgeId = okJson(await t.hedge(`open ${MARKET} buy 1000 --tenor 7 --json`)).id;
  // A colleague closes the side by hand: the keeper leaves that to a person (drift, without --converge).
  ok(await t.hedge(`close ${MARKET} buy --yes`));
  // A row written without the key, claiming that hedge was closed by a roll (its close leg, done).
  const forged = rowFor(t, {
    command: 'close',
    body: { side: 'buy' },
    group: 'roll-20261123T000000000Z-abcdef',
    leg: 'close',
  });
  appendRow(t.configDir, { ...forged, outcome: 'done', hedge_id: hedgeId });
  const nothingSent = mark(t);
  const kept = await t.hedge(['keep', file, '--once']);
  const events = lines(kept.stdout);
  expect(events.filter(eventIs('drift'))).toMatchObject([
    { market: MARKET, side: 'buy', change: 'open', hedge_ids: [hedgeId] },
  ]);
  expect(events.filter(eventIs('reopen'))).toEqual([]);
  nothingSent();
  expect(t.active('buy')).toEqual([]);

  // A forged row appended to the file: `resume ID --yes` and a re-run with its --idempotency-key send nothing (exit 13).
  const open = () => rowFor(t, { command: 'open', body: { side: 'buy', notional_usd: 3_000, tenor_days: 3 } });
  const unsealed = open();
  appendRow(t.configDir, unsealed);
  exits(await t.hedge(`resume ${unsealed.id} --yes`), 13, 'it carries no seal');

  // A forged "done" row under a script's key would have made the script's own open exit 0 unsent.
  const done = { ...open(), outcome: 'done' };
  appendRow(t.configDir, done);
  exits(await t.hedge(`open ${MARKET} buy 3000 --tenor 3 --idempotency-key ${done.idempotency_key}`), 13);
  nothingSent();

  // On the other side: a forged "landed add" moves no baseline.
  ok(await t.hedge(`open ${MARKET} sell 1000 --tenor 7`));
  // A process of its own, ended: its row is left to whoever resumes it.
  ok(await t.hedge(`add ${MARKET} sell 500 --json`, { spawn: true }));
  expect(held(t, 'sell')).toEqual([1_500]);
  // The add's row set back to "unknown" (as if its process died before the answer), and a day on,
  // past the key's lifetime on the server's clock: the server has forgotten the key.
  const genuine = (await journalEntries(t)).find((entry) => entry.command === 'add')!;
  const at = new Date(Date.now() + 1_000).toISOString();
  appendRow(t.configDir, { id: genuine.id, created_at: at, outcome: 'unknown' });
  t.advance(25 * 3_600_000);
  // A row written by someone without the key: an add of the same 500 on the side, landed. Counted,
  // it would move the add's baseline from 1,000 to 1,500, and the side's 1,500 would read as
  // "the add did not land".
  const landed = {
    ...rowFor(t, { command: 'add', body: { side: 'sell', notional_usd: 500 } }),
    outcome: 'done',
    created_at: at,
  };
  appendRow(t.configDir, landed);
  const nothingMore = mark(t);
  exits(
    await t.hedge(`resume ${genuine.id} --yes`),
    0,
    'The book shows it landed: the sell side is 1,500.00 USD now; it was 1,000.00 USD before the add was sent',
  );
  nothingMore();
  expect([(await journalEntries(t)).find((entry) => entry.id === genuine.id)?.outcome, held(t, 'sell')]).toEqual([
    'done',
    [1_500],
  ]);
});

it('a row whose plan no longer matches the hash journaled with it (its amount raised and sealed again under the key): `resume ID --yes` sends nothing (exit 13, unverified_row, the row named and the way out), where its young key alone would have sent it; the genuine row, its plan as journaled, is resumed: the book shows its open landed, nothing sent again', async () => {
  const t = await startSimulator();
  // A process of its own, ended: its row is left to whoever resumes it.
  ok(await t.hedge(`open ${MARKET} sell 1000 --tenor 7`, { spawn: true }));
  const genuine = (await journalEntries(t)).find((entry) => entry.command === 'open')!;
  // Journaled with the row, under its seal: the hash of the open's plan.
  expect(genuine.context.plan_hash).toMatch(/^[0-9a-f]{64}$/);
  // Set back to unknown, as if its process had died before the fill.
  appendRow(t.configDir, { id: genuine.id, created_at: new Date().toISOString(), outcome: 'unknown' });

  // The same open under a new id, place and key, its amount raised and sealed again under the key, with the plan hash
  // journaled for 1,000; no hedge named yet, so only its young key would decide.
  const raised: SealedFields = {
    id: `z${randomBytes(6).toString('hex')}`,
    seq: nextSeq(t.configDir),
    created_at: new Date().toISOString(),
    environment: genuine.environment,
    base_url_host: genuine.base_url_host,
    key_id: genuine.key_id,
    host: genuine.host,
    command: 'open',
    request: { ...genuine.request, body: { ...genuine.request.body, notional_usd: 66_666 } },
    idempotency_key: `raised-${randomBytes(6).toString('hex')}`,
    context: genuine.context,
  };
  appendRow(t.configDir, {
    ...raised,
    argv: ['open', MARKET, 'sell', '66666', '--tenor', '7'],
    outcome: 'unknown',
    holder: null,
    seal: rowSealer(t.apiKey).seal(raised),
  });
  const nothingSent = mark(t);
  const refused = exits(await t.hedge(`resume ${raised.id} --yes --json`), 13);
  const { error } = lastJson(refused.stderr);
  expect(error).toMatchObject({ code: 'unverified_row', details: { journal_id: raised.id, seal: 'plan' } });
  expect(error.message).toBe(
    `Journal ${raised.id} (open: POST /hedges) does not match the plan journaled with it: what it would send, or the side it recorded before its send, is not what was planned (changed after it was written, under this key's seal). hedge does not send it; nothing was sent.`,
  );
  expect(error.hint).toContain(`hedge journal resolve ${raised.id} --not-landed`);
  nothingSent();

  exits(await t.hedge(`resume ${genuine.id} --yes`), 0, 'The book shows it landed');
  nothingSent();
  expect(held(t, 'sell')).toEqual([1_000]);
});
