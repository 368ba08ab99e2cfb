// JSON nested deeper than any document hedge reads (100,000 levels), at each door JSON comes in by: a server's answer
// (a command's read, `hedge api`'s, a write's), `hedge api --input`, a target file, an exposures policy. Every door
// reads through the one bounded reader (security/json-keys.ts parseBoundedJson), which measures nesting on the text
// without recursion: an answer is a reading problem (exit 14), an input is bad input (exit 2, nothing sent), never
// "Maximum call stack size exceeded".
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exits } from '../support/cli-runs.js';
import { tempDir } from '../support/hedge-cli.js';
import { MARKET, useSimulators } from '../support/simulator.js';

const start = useSimulators();
const DEEP = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
const STACK = /Maximum call stack|\n\s+at /;

it('a server answer nested 100,000 deep: a read, `hedge api` and a write: exit 14 naming the endpoint and the depth, no stack trace; a write sent once, its outcome unknown with its key (exit 5)', async () => {
  const simulator = await start();
  const deep = (method: string, path: string) =>
    simulator.sandbox.setFaults({ nextMalformed: { count: 1, kind: 'deep' }, match: { method, path } });
  for (const args of ['markets', 'markets --json', 'api /markets']) {
    deep('GET', '/markets');
    const result = exits(await simulator.hedge(args), 14);
    expect(result.stderr, args).toContain('GET /markets answered HTTP 200 with JSON nested deeper than 64 levels.');
    expect(result.stderr + result.stdout).not.toMatch(STACK);
  }
  expect(simulator.requests('GET', '/markets').map((entry) => entry.fault)).toEqual(Array(3).fill('malformed-deep'));

  simulator.seedOpen('buy', 1_000);
  deep('POST', '/hedges/add');
  const add = await simulator.hedge(`add ${MARKET} buy 100`);
  expect(add.stderr + add.stdout).not.toMatch(STACK);
  // The add was acted on and its answer unreadable: outcome unknown, the key shown (exit 5).
  exits(add, 5, 'nested deeper than 64 levels');
  expect(simulator.sends('/hedges/add')).toHaveLength(1);
});

it('hedge api --input, a target file, a policy file nested 100,000 deep: one line naming the file and the depth, exit 2, nothing sent', async () => {
  const simulator = await start();
  const dir = tempDir();
  onTestFinished(dir.remove);
  const file = (name: string, text: string) => {
    const path = join(dir.path, name);
    writeFileSync(path, text);
    return path;
  };
  const body = file('body.json', `{"market":"${MARKET}","note":${DEEP}}`);
  const input = exits(await simulator.hedge(['api', '-X', 'POST', '/hedges/add', '--input', body]), 2);
  expect(input.stderr).toBe(
    `hedge: --input: ${body} is JSON nested deeper than 64 levels; the API takes JSON bodies only (a few fields, a few levels deep).\n`,
  );
  const target = file('target.json', `[{"market":"${MARKET}","side":"buy","notional_usd":${DEEP}}]`);
  const plan = exits(await simulator.hedge(['plan', target]), 2, 'nested deeper than 64 levels');
  const exposures = file(
    'exposures.csv',
    `id,market,type,amount,currency,due\nE1,${MARKET},receivable,1000000,NGN,2026-06-30\n`,
  );
  const policy = file('policy.json', `{"ratios":${DEEP}}`);
  const policed = exits(
    await simulator.hedge(['exposures', exposures, '--policy', policy]),
    2,
    `--policy: ${policy} is JSON nested deeper than 64 levels`,
  );
  for (const run of [input, plan, policed]) expect(run.stderr + run.stdout).not.toMatch(STACK);
  expect(simulator.sandbox.requestLog.filter((entry) => entry.method !== 'GET')).toEqual([]);
});
