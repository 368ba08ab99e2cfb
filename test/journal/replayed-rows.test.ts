// Money moves once: a journal row is valid once, and an action is sent again after its key may be
// forgotten only on proof that it did not land.
// - A genuine row replayed — copied whole, seal and all, under a new id, a later time and the next
//   seq, set back to `unknown` — after the server forgot its key is sent by nothing: not `resume ID
//   --yes`, not the keeper, not apply.
// - A row whose key already has a finished row is a copy: never sent, and said to be one.
// - An add that acted, moved back to its old figure by a colleague whose journal hedge never sees,
//   is "cannot tell" past its key's lifetime (exit 12): not resent by resume, the keeper or apply;
//   `resume ID --resend-unproven` is a person's word.
// Asserted on the simulator's request log and state.
import { rowSealer, type SealedFields } from '../../src/platform/journal/row-integrity.js';
import { exits, journalEntries, lastJson, markTrades as mark, ok } from '../support/cli-runs.js';
import { runHedge, type RunResult } from '../support/hedge-cli.js';
import { appendRow, nextSeq, replayOf } from '../support/journal-rows.js';
import { activeNotional, lines, writeTarget } from '../support/keeper.js';
import { MARKET, useSimulators, type Simulator } from '../support/simulator.js';
import { eventIs } from '../keeper/filled.js';

const HOUR = 3_600_000;
const adds = (t: Simulator) => t.requests('POST', '/hedges/add');
const sellUsd = (t: Simulator) => activeNotional(t, 'sell');

const startSimulator = useSimulators({ stepped: true });
/** A sell side of 1,000. */
async function sideOf1000() {
  const t = await startSimulator();
  t.seedOpen('sell', 1_000);
  return t;
}
/** From here on: checks that nothing is sent and the side stays at 1,000. */
function unchangedFrom(t: Simulator) {
  const nothingSent = mark(t);
  return () => {
    nothingSent();
    expect(sellUsd(t)).toBe(1_000);
  };
}
/** `run` (an add of 100) lands while its answer is lost: exit 5. */
async function answerLost(t: Simulator, run: () => Promise<RunResult>) {
  t.sandbox.setFaults({ dropAfterCommit: 1, match: { method: 'POST', path: '/hedges/add' } });
  const lost = await run();
  t.sandbox.setFaults({ dropAfterCommit: 0, match: null });
  return exits(lost, 5);
}

// A done add replayed after the server forgot its key (the side back at 1,000 by a reduce since, so
// that the book reads as if it never landed). The store the row is read from does not matter: the
// decision is above it, and each backend's list by idempotency key is conformance.test.ts's.
describe('a genuine row replayed in the local journal file', () => {
  /** A side of 1,000; `landAdd` adds 100 and returns its row; a reduce of 100 takes the side back to 1,000. */
  async function addedThenReduced(landAdd: (t: Simulator) => Promise<void>) {
    const t = await sideOf1000();
    await landAdd(t);
    expect(sellUsd(t)).toBe(1_100);
    ok(await t.hedge(`reduce ${MARKET} sell 100`));
    expect(sellUsd(t)).toBe(1_000);
    const row = (await journalEntries(t)).find((entry) => entry.command === 'add' && entry.outcome === 'done');
    expect(row).toBeDefined();
    // A day on, on the server's clock: it has forgotten the add's key (the simulator keeps keys 24 h).
    t.advance(26 * HOUR);
    const copy = replayOf(row!, nextSeq(t.configDir));
    appendRow(t.configDir, copy);
    return { t, row: row!, id: String(copy.id), unchanged: unchangedFrom(t) };
  }

  it('`resume ID --yes` of a replayed add, or of a copy of it sealed anew by a holder of the key: refused (exit 13, unverified_row), said to be a copy never sent as its own, nothing sent, the side stays 1,000', async () => {
    const { t, row, id, unchanged } = await addedThenReduced(async (t) => {
      ok(await t.hedge(`add ${MARKET} sell 100`));
    });
    const resumed = exits(
      await t.hedge(`resume ${id} --yes --json`),
      13,
      `Its idempotency key is also journal ${row.id}'s (done): this row is a copy`,
    );
    expect(lastJson(resumed.stderr).error).toMatchObject({ code: 'unverified_row', details: { journal_id: id } });
    // Duplicated by hand, and sealed anew with the key: its seal verifies, its key is spent.
    const copy = replayOf(row, nextSeq(t.configDir));
    appendRow(t.configDir, { ...copy, seal: rowSealer(t.apiKey).seal(copy as unknown as SealedFields) });
    const sealed = exits(
      await t.hedge(['resume', String(copy.id), '--yes', '--no-wait', '--json']),
      13,
      `(add: POST /hedges/add): a row is valid once. Its idempotency key is also journal ${row.id}'s (done): this row is a copy, never sent as an action of its own. hedge does not send it; nothing was sent.`,
    );
    expect(lastJson(sealed.stderr).error).toMatchObject({
      code: 'unverified_row',
      details: { journal_id: copy.id, seal: 'duplicate' },
    });
    unchanged();
  });

  it("`keep --once` with a replay of the keeper's own add: not sent (an error event, exit 13), the side stays 1,000", async () => {
    let file = '';
    const { t, row, id, unchanged } = await addedThenReduced(async (t) => {
      file = writeTarget(t, [`${MARKET},sell,1100,7,,`]);
      ok(await t.hedge(['keep', file, '--once', '--converge']));
    });
    expect(row).toMatchObject({ via: 'keeper' });
    // Without --converge: the keeper only reports the drift, so anything sent is the replay.
    const kept = exits(await t.hedge(['keep', file, '--once']), 13);
    expect(lines(kept.stdout).filter(eventIs('error'))).toMatchObject([{ code: 'unverified_row', journal_id: id }]);
    unchanged();
  });

  it("`apply` with a replay of an earlier apply's step: not sent (exit 13), nothing sent at all", async () => {
    const { t, row, id, unchanged } = await addedThenReduced(async (t) => {
      ok(await t.hedge(['apply', writeTarget(t, [`${MARKET},sell,1100,7,,`])]));
    });
    expect(String(row.group)).toMatch(/^apply-/);
    // The target is what the side holds: anything sent is the replay (and what would undo it).
    const applied = exits(
      await t.hedge(['apply', writeTarget(t, [`${MARKET},sell,1000,7,,`], 'same.csv'), '--json']),
      13,
    );
    expect(lastJson(applied.stderr).error).toMatchObject({ code: 'unverified_row', details: { journal_id: id } });
    unchanged();
  });
});

describe('a row is valid once', () => {
  it("a sealed copy of a roll's finished open leg, set back to planned: resume refuses it as a copy (exit 13) naming `journal resolve`, which records it (exit 0) saying it is a copy; nothing is sent", async () => {
    const t = await sideOf1000();
    ok(await t.hedge(`roll ${MARKET} sell --tenor 7 --yes`));
    const leg = (await journalEntries(t)).find((entry) => entry.leg === 'open')!;
    const copy = { ...replayOf(leg, nextSeq(t.configDir)), outcome: 'planned' };
    appendRow(t.configDir, { ...copy, seal: rowSealer(t.apiKey).seal(copy as unknown as SealedFields) });
    const nothingSent = mark(t);
    const resolve = `journal resolve ${copy.id} --not-landed`;
    exits(await t.hedge(['resume', String(copy.id), '--yes']), 13, 'this row is a copy', `hedge ${resolve}`);
    exits(await t.hedge(resolve), 0, `is a copy: its idempotency key is also journal ${leg.id}'s (filled)`);
    expect((await journalEntries(t)).find((entry) => entry.id === copy.id)).toMatchObject({ outcome: 'abandoned' });
    exits(await t.hedge('resume'), 0, 'Nothing to resume');
    nothingSent();
  });

  it('--idempotency-key of an action that ended (resolved as not landed) is refused: a key is one action (exit 2, nothing sent)', async () => {
    const t = await sideOf1000();
    const lost = await answerLost(t, () => t.hedge(`add ${MARKET} sell 100 --json`));
    const key = lastJson(lost.stderr).error.idempotency_key;
    const [entry] = await journalEntries(t, '--pending');
    ok(await t.hedge(`journal resolve ${entry.id} --not-landed`));
    const nothingSent = mark(t);
    exits(
      await t.hedge(`add ${MARKET} sell 100 --idempotency-key ${key}`),
      2,
      `that key's action (journal ${entry.id}`,
      'ended abandoned; a key is one action, so nothing was sent',
    );
    nothingSent();
  });
});

describe('after its key may be forgotten, an action is sent again only on proof that it did not land', () => {
  /**
   * The side at 1,000; `lose` sends an add of 100 that lands while its answer is lost; a colleague
   * on another machine (a journal hedge never sees) reduces 100; then 30 hours pass on the server.
   */
  async function landedThenMovedBack(lose: (t: Simulator) => Promise<RunResult>) {
    const t = await sideOf1000();
    await answerLost(t, () => lose(t));
    expect(sellUsd(t)).toBe(1_100);
    // A config dir of its own, gone after the run.
    ok(await runHedge(['reduce', MARKET, 'sell', '100'], { env: t.env, clock: t.clock }));
    expect(sellUsd(t)).toBe(1_000);
    t.advance(30 * HOUR);
    return { t, unchanged: unchangedFrom(t) };
  }

  it('`resume --yes`: "cannot tell" (exit 12) with what to check, nothing sent; `resume ID --resend-unproven` sends it with its key', async () => {
    const { t } = await landedThenMovedBack((t) => t.hedge(`add ${MARKET} sell 100 --json`));
    const [entry] = await journalEntries(t, '--pending');
    const before = adds(t).length;
    const resumed = exits(
      await t.hedge('resume --yes --json'),
      12,
      'The book cannot tell whether it landed: the sell side is 1,000.00 USD now; it was 1,000.00 USD before the add was sent',
      'a side back at its old figure proves nothing',
      `hedge resume ${entry.id} --resend-unproven`,
    );
    expect(lastJson(resumed.stderr).error).toMatchObject({ code: 'unresolved', details: { journal_id: entry.id } });
    expect([adds(t).length, sellUsd(t)]).toEqual([before, 1_000]);

    // A person's word: sent again with its own key (the server, having forgotten it, acts).
    exits(
      await t.hedge(`resume ${entry.id} --resend-unproven`),
      0,
      'Sending it again with its key, as --resend-unproven asks',
    );
    expect(
      adds(t)
        .slice(before)
        .map((write) => write.idempotencyKey),
    ).toEqual([entry.idempotency_key]);
    expect(sellUsd(t)).toBe(1_100);
  });

  it("`keep --once`: the keeper's own add is not sent again (an unresolved error, exit 12), the side stays 1,000", async () => {
    let file = '';
    const { t, unchanged } = await landedThenMovedBack((t) => {
      file = writeTarget(t, [`${MARKET},sell,1100,7,,`]);
      // Its pauses (the retries' backoffs) move the server's clock, not its own: the keeper races its step
      // against a sleep to its next cycle, which would move hedge's time past --timeout first.
      return t.hedge(['keep', file, '--once', '--converge', '--timeout', '5'], {
        clock: { ...t.clock!, now: Date.now },
      });
    });
    const kept = exits(await t.hedge(['keep', file, '--once']), 12);
    expect(lines(kept.stdout).filter(eventIs('error'))).toMatchObject([{ code: 'unresolved' }]);
    unchanged();
  });

  it("`apply`: an earlier apply's add is not sent again (exit 12), nothing sent", async () => {
    const { t, unchanged } = await landedThenMovedBack((t) =>
      t.hedge(['apply', writeTarget(t, [`${MARKET},sell,1100,7,,`]), '--json']),
    );
    exits(await t.hedge(['apply', writeTarget(t, [`${MARKET},sell,1000,7,,`], 'same.csv'), '--json']), 12);
    unchanged();
  });
});
