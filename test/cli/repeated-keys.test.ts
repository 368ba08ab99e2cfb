// A JSON file hedge reads says one thing: a key given twice in one object (which JSON.parse would read as the last) is
// refused by the one bounded JSON reader, whatever the file: a relationship, an `--accounts` map, `--values` rows, an
// `api --input` body, the config store. The line names the file, the key and where its second use is; exit 2 (the
// config store: 1), nothing recorded or sent. An answer of the server is read tolerantly (the contract): its last wins.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, hedgeIn, tempFolders } from '../support/hedge-cli.js';
import { exits } from '../support/cli-runs.js';
import { useSimulators } from '../support/simulator.js';
import { parseBoundedJson } from '../../src/core/security/json-keys.js';

const folder = tempFolders('hedge-keys-');
const start = useSimulators({ stepped: true });
const ONCE = 'each key may appear once (JSON would keep only the last)';
const clock = { now: () => Date.parse('2026-03-02T12:00:00Z'), sleep: async () => {} };

/** The example relationship with its ratio given twice, the second on line 24. */
const twiceRatio = () =>
  readFileSync(join(ROOT, 'docs', 'examples', 'relationship.json'), 'utf8').replace(
    '"ratio": "1",',
    '"ratio": "1",\n  "ratio": "100",',
  );

it('acct designate: a relationship file with its ratio given twice is refused naming the file, the key, its line and column; nothing recorded', async () => {
  const dir = folder();
  const file = join(dir, 'twice.json');
  const text = twiceRatio();
  writeFileSync(file, text);
  // The repeat's line, counted in the example as it stands.
  const line = text.split('\n').indexOf('  "ratio": "100",') + 1;
  const run = exits(await hedgeIn(dir, ['acct', 'designate', file, '--recorded-late', 'moved'], { clock }), 2);
  expect(run.stderr).toBe(
    `hedge: ${file}: the key ratio appears more than once in one object (line ${line}, column 3); ${ONCE}\n`,
  );
  expect(existsSync(join(dir, 'acct'))).toBe(false);
});

it('acct journal --accounts: a role given twice is refused naming the file, the role, its line and column', async () => {
  const dir = folder();
  const file = join(dir, 'gl.json');
  writeFileSync(file, '{\n  "hedging_instrument": "1450",\n  "hedging_instrument": "9999"\n}\n');
  const run = exits(await hedgeIn(dir, ['acct', 'journal', '--accounts', file], { clock }), 2);
  // The roles allowed follow it on the same line.
  expect(run.stderr).toMatch(
    `hedge: --accounts ${file}: the key hedging_instrument appears more than once in one object (line 3, column 3); ${ONCE}; expected {"role": "account"} for roles `,
  );
  expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
});

it('acct test --values (JSON rows): a key given twice in a row is refused with its line and column', async () => {
  const dir = folder();
  const relationship = join(dir, 'r.json');
  writeFileSync(relationship, readFileSync(join(ROOT, 'docs', 'examples', 'relationship.json')));
  exits(await hedgeIn(dir, ['acct', 'designate', relationship, '--recorded-late', 'moved'], { clock }), 0);
  const values = join(dir, 'values.json');
  writeFileSync(
    values,
    '[{"date": "2018-12-31", "instrument_value": "50000", "hedged_item_value": "-49000", "instrument_value": "1"}]',
  );
  exits(
    await hedgeIn(dir, ['acct', 'test', 'EUR-SALE-1', '--values', values], { clock }),
    2,
    `${values}:1: item 1: the key instrument_value appears more than once (line 1, column 85); ${ONCE}.`,
  );
});

it('api --input: a body with a key given twice is refused before anything is sent; the config store with one is refused naming it', async () => {
  const simulator = await start();
  const body = join(simulator.configDir, 'body.json');
  writeFileSync(body, '{"market": "USDTNGN", "side": "buy",\n "notional_usd": 500, "notional_usd": 500000}');
  const run = exits(await simulator.hedge(`api -X POST /hedges/add --input ${body}`), 2);
  expect(run.stderr).toBe(
    `hedge: --input: ${body}: a key appears more than once in one object (line 2, column 23); ${ONCE}; the API takes JSON bodies only (a few fields, a few levels deep).\n`,
  );
  expect(simulator.requests()).toEqual([]);

  const store = join(simulator.configDir, 'config.json');
  writeFileSync(store, '{"profiles": {},\n"current": "a", "current": "b"}', { mode: 0o600 });
  exits(
    await simulator.hedge('profile list'),
    1,
    `The config store ${store}: a key appears more than once in one object (line 2, column 17); ${ONCE}.`,
  );
});

it('the one reader: a key is told from a value by the colon after it, whatever the spacing and escapes; the same key in two objects is no repeat; an answer of the server keeps the last', () => {
  const text = '{"a": {"k": 1, "x": [{"k": 1}, {"k" : 2, "\\u006b"\n :3}]},\n "k": "k:", "v": "\\"k\\":"}';
  expect(parseBoundedJson(text, { named: ['k'] })).toMatchObject({
    problem: `the key k appears more than once in one object (line 1, column 42); ${ONCE}`,
    repeated: [{ key: 'k', path: ['a', 'x', 1], line: 1, column: 42 }],
    value: { a: { k: 1, x: [{ k: 1 }, { k: 3 }] }, k: 'k:', v: '"k":' },
  });
  expect(parseBoundedJson(text.replace('\\u006b', 'j'))).toEqual({
    value: { a: { k: 1, x: [{ k: 1 }, { k: 2, j: 3 }] }, k: 'k:', v: '"k":' },
  });
  expect(parseBoundedJson('{"ok": 1, "ok": 2}', { lastKeyWins: true })).toEqual({ value: { ok: 2 } });
  expect(parseBoundedJson('{"ok": 1, "ok": 2}').problem).toBe(
    `a key appears more than once in one object (line 1, column 11); ${ONCE}`,
  );
});
