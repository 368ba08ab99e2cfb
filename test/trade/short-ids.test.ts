// An id hedge shows shortened (`hdg_0mw…9bif` at 80 columns) is taken back wherever an id is taken:
// as shown, or its start or its end alone, as git takes a short hash. Resolving it reads the hedge
// list (or the journal); an ambiguous one lists the candidates (exit 2); nothing is written.
import { describe, expect, it } from 'vitest';
import { MARKET, useSimulators } from '../support/simulator.js';
import { ok, exits, journalEntries, okJson } from '../support/cli-runs.js';

const start = useSimulators({ stepped: true });
const SCREEN = { HEDGE_FORCE_TTY: '1', COLUMNS: '80' };

describe('hedges ID', () => {
  it('at 80 columns each id the list shortens, pasted back, is that hedge — as shown, and by its end alone; so is a journal id', async () => {
    const simulator = await start();
    for (const [side, ref] of [
      ['buy', 'DEAL-7'],
      ['sell', 'DEAL-8'],
    ] as const) {
      ok(await simulator.hedge(`open ${MARKET} ${side} 1000 --tenor 3 --ref ${ref} --json`));
    }
    const writes = simulator.writes().length;
    const table = ok(await simulator.hedge('hedges', { env: SCREEN }));
    const shown = [...table.stdout.matchAll(/^(hdg_\S*…\S+) /gm)].map((match) => match[1]);
    expect(shown).toHaveLength(2);
    const ids = simulator.hedges().map((hedge) => hedge.id);
    const found: string[] = [];
    for (const typed of [...shown, ...shown.map((id) => id.split('…')[1])]) {
      found.push(okJson(await simulator.hedge(`hedges ${typed} --json`)).id);
    }
    expect(found.slice(0, 2).sort()).toEqual([...ids].sort());
    expect(found.slice(2)).toEqual(found.slice(0, 2));

    // A live view of one hedge takes it too.
    const watched = ok(
      await simulator.hedge(['hedges', shown[0], '--watch', '1', '--count', '1', '--format', 'ndjson']),
    );
    expect(JSON.parse(watched.stdout.trim()).data.id).toBe(found[0]);
    expect(simulator.writes()).toHaveLength(writes);

    // `journal show` takes the end of a journal id, or its start and end around …
    const [{ id }] = await journalEntries(simulator);
    for (const typed of [id.slice(-5), `${id.slice(0, 6)}…${id.slice(-4)}`])
      expect(okJson(await simulator.hedge(`journal show ${typed} --json`)).id).toBe(id);
  });

  it('an id that names several hedges lists them (exit 2); one that names none says so (exit 2); nothing is written', async () => {
    const simulator = await start();
    const ids = [simulator.seedOpen('buy', 1000).id, simulator.seedOpen('sell', 2000).id];
    const ambiguous = exits(await simulator.hedge('hedges hdg_'), 2, '"hdg_" matches 2 hedges');
    for (const id of ids) expect(ambiguous.stderr).toContain(id);
    exits(await simulator.hedge('hedges zz…zz'), 2, 'no hedge of this account matches "zz…zz"');
    expect(simulator.requests('GET', /^\/hedges(\?|$)/).length).toBeGreaterThanOrEqual(2);
    expect(simulator.writes()).toEqual([]);
  });
});
