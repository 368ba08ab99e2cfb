// `--demo` on a fresh config dir with no configuration at all: every read command works against
// the in-process simulator and says DEMO on stderr; its state survives between invocations
// (open in one process, see the position in the next) until `hedge demo reset`.
import * as z from 'zod/mini';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hedgeSchema, positionSchema } from '../../src/platform/api/schemas.js';
import { runHedge, tempFolders, type HedgeArgs } from '../support/hedge-cli.js';
import { ok, okJson } from '../support/cli-runs.js';

const folder = tempFolders('hedge-demo-');
/** A fresh config dir (removed after its test): its demo state file, and hedge run in it. */
function fresh() {
  const dir = folder();
  const run = (args: HedgeArgs, env = {}) => runHedge(args, { configDir: dir, env });
  return { stateFile: join(dir, 'demo-state.json'), run };
}

it('every read command works on a fresh config dir and says DEMO on stderr', async () => {
  const commands = [
    ['markets'],
    ['price'],
    ['price', 'USDTNGN'],
    'quote USDTNGN buy 10000 --tenor 3'.split(' '),
    ['hedges'],
    ['history'],
    ['positions'],
    ['account'],
  ];
  const results = await Promise.all(commands.map((args) => fresh().run(['--demo', ...args])));
  results.forEach((result, index) => {
    const where = `hedge --demo ${commands[index].join(' ')}\n${result.stderr}`;
    expect(result.code, where).toBe(0);
    expect(result.stderr.split('\n')[0], where).toMatch(/^DEMO — local simulator with test funds/);
  });
  expect(results[3].stdout).toMatch(/^market\tside\tnotional_usd\ttenor_days\t.*\nUSDTNGN\tbuy\t10000\t3\t/);
  expect(results[6].stderr).toContain('No open positions.');
});

it('state persists: a hedge opened by one invocation is a position in the next, until `hedge demo reset`', async () => {
  const { stateFile, run } = fresh();
  const hedge = hedgeSchema.parse(okJson(await run('--demo open USDTNGN buy 10000 --tenor 3 --ref DEMO-1 --json')));
  expect(hedge.status).toBe('filled');
  expect(statSync(stateFile).mode & 0o777).toBe(0o600);

  const [positions, hedges, table] = await Promise.all([
    run('--demo positions --json'),
    run('--demo hedges --ref DEMO-1 --json'),
    run('--demo positions', { HEDGE_FORCE_TTY: '1' }),
  ]);
  [positions, hedges, table].forEach(ok);
  const [position, ...others] = z.array(positionSchema).parse(JSON.parse(positions.stdout));
  expect(others).toEqual([]);
  expect(position).toMatchObject({ market: 'USDTNGN', side: 'buy', hedge_id: hedge.id, notional_usd: 10_000 });
  expect(
    z
      .array(hedgeSchema)
      .parse(JSON.parse(hedges.stdout))
      .map((h) => h.id),
  ).toEqual([hedge.id]);
  // The terminal table keeps to what a desk watches at 80 columns, the deal reference included (the id is in JSON and TSV).
  expect(table.stdout).toMatch(/buy\s+DEMO-1\s+10,000\.00/);
  expect(table.stderr).toContain('DEMO');

  ok(await run('--demo acct rates --record --market USDTNGN'));
  // `hedge demo reset` starts it afresh, its books too: a second reset says there was no state, and the position and
  // the rate recorded are gone.
  expect(okJson(await run('demo reset --json'))).toEqual({
    reset: true,
    state_file: stateFile,
    removed: true,
    books: join(stateFile, '..', 'acct', 'demo'),
    books_removed: true,
  });
  const again = ok(await run('demo reset'));
  expect(again.stdout + again.stderr).toContain('it had no state yet');
  expect(okJson(await run('--demo positions --json'))).toEqual([]);
  expect(okJson(await run('--demo acct rates --market USDTNGN --json'))).toEqual([]);
});

it('a bad answer cap or wire name in the environment is the one line said, before DEMO, exit 2, no simulator started; a damaged state file is named, with how to start afresh; a state file an earlier hedge wrote in another format: the demo starts afresh and says so in one line', async () => {
  const { stateFile, run } = fresh();
  for (const env of [{ HEDGE_MAX_ANSWER_MB: 'lots' }, { HEDGE_WIRE_PAGE_SIZE_PARAM: 'per page' }]) {
    const result = await run(['--demo', 'markets'], env);
    const variable = Object.keys(env)[0];
    expect([result.code, result.stdout], variable).toEqual([2, '']);
    expect(result.stderr.trim().split('\n'), variable).toEqual([expect.stringMatching(`^hedge: ${variable}: `)]);
    expect(() => statSync(stateFile), variable).toThrow(/ENOENT/);
  }

  writeFileSync(stateFile, '{"version":1,"engine":');
  const result = await run('--demo positions');
  expect([result.code, result.stdout]).toEqual([1, '']);
  expect(result.stderr).toContain('The demo simulator could not start');
  expect(result.stderr).toContain(`Delete ${stateFile} to start the demo afresh`);

  // A state file an earlier hedge wrote in another format: the demo starts afresh and says so in one line.
  writeFileSync(stateFile, '{"version":2,"revision":4,"clockOffsetMs":0,"parts":[],"lengths":[2]}\n{}\n');
  const afresh = ok(await run('--demo positions --json'));
  expect(JSON.parse(afresh.stdout)).toEqual([]);
  expect(afresh.stderr.trim().split('\n')).toEqual([
    `The demo starts afresh: ${stateFile} was written by an earlier hedge, in another format.`,
  ]);
  expect((await run('--demo positions --json')).stderr).toBe('');
});
