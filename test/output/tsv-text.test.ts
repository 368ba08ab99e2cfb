// TSV cells hold text, never JSON: add's and reduce's `hedge` and `answer` as words, the journal's `seal` as JSON
// carries it (the verdict on an unresolved row's under JSON's `seal_check`).
import { useSimulators } from '../support/simulator.js';
import { ok } from '../support/cli-runs.js';

const startTrading = useSimulators({ stepped: true });

/** A TSV document as records by its header. */
function records(tsv: string) {
  const [header, ...rows] = tsv
    .trimEnd()
    .split('\n')
    .map((line) => line.split('\t'));
  return rows.map((row) => Object.fromEntries(header.map((key, index) => [key, row[index]])));
}

it('add and reduce in TSV: hedge and answer as words; the journal in TSV: the seal as JSON has it', async () => {
  const rig = await startTrading();
  ok(await rig.hedge('open USDTNGN buy 5000 --tenor 7 --yes'));
  const [{ id }] = rig.active('buy');
  for (const [command, after, answered] of [
    ['add USDTNGN buy 1000 --yes --format tsv', 6000, 'add submitted 1000 0x'],
    ['reduce USDTNGN buy 2000 --yes --format tsv', 4000, 'reduce submitted 2000 0x'],
  ] as const) {
    const [row] = records(ok(await rig.hedge(command)).stdout);
    expect(Object.values(row).filter((cell) => /^[[{]/.test(cell))).toEqual([]);
    expect(row.hedge).toMatch(new RegExp(`^${id} filled ${after}$`));
    expect(row.answer.startsWith(answered)).toBe(true);
  }
  const json = JSON.parse(ok(await rig.hedge('journal --json')).stdout);
  const tsv = records(ok(await rig.hedge('journal --format tsv')).stdout);
  expect(tsv.map((row) => [row.id, row.seal])).toEqual(json.map((entry: any) => [entry.id, entry.seal]));
  expect(tsv.every((row) => /^v\d+\./.test(row.seal))).toBe(true);
});
