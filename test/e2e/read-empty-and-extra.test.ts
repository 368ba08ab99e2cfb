// Two edges of "show what the server returned": a fresh account (empty lists: `[]` for scripts,
// a sentence for people, nothing on stdout in plain mode), and a richer server that sends a field
// the CLI has never heard of (it must appear in the table, the TSV and the JSON).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { runHedge, tempDir } from '../support/hedge-cli.js';
import { api, sandboxEnv, startFieldProxy, startFrozenSandbox, TEST_KEY, type FieldProxy } from '../support/read.js';

let empty: RunningSandbox;
let rich: RunningSandbox;
let proxy: FieldProxy;
let config: { path: string; remove: () => void };
let hedgeId: string;

const EXTRA_FIELD = 'desk_region';
const EXTRA_LABEL = 'Desk region';
const EXTRA_VALUE = 'lagos-2';

beforeAll(async () => {
  [empty, rich] = await Promise.all([startFrozenSandbox(), startFrozenSandbox()]);
  rich.seedHedges({ apiKey: TEST_KEY, count: 1, status: 'closed' });
  hedgeId = (await api(rich, 'POST', '/hedges', { market: 'USDTNGN', side: 'sell', notional_usd: 20_000, tenor_days: 1 })).id;
  rich.clock.advance(60_000);
  proxy = await startFieldProxy(rich, EXTRA_FIELD, EXTRA_VALUE);
  config = tempDir();
});

afterAll(async () => {
  await proxy?.close();
  await Promise.all([empty?.close(), rich?.close()]);
  config?.remove();
});

describe('empty lists', () => {
  const cases: Array<[string[], string]> = [
    [['hedges'], 'No hedges yet.'],
    [['hedges', '--status', 'failed'], 'No hedges match these filters.'],
    [['history'], 'No closed hedges yet.'],
    [['positions'], 'No open positions.'],
  ];

  it.each(cases.map(([args, sentence]) => [args.join(' '), args, sentence] as const))('%s: [] in JSON, a sentence for people, an empty stdout in plain mode', async (_name, args, sentence) => {
    const env = sandboxEnv(empty);
    const [json, plain, tty] = await Promise.all([
      runHedge([...args, '--json'], { env, configDir: config.path }),
      runHedge(args, { env, configDir: config.path }),
      runHedge(args, { env: { ...env, HEDGE_FORCE_TTY: '1' }, configDir: config.path }),
    ]);
    for (const result of [json, plain, tty]) expect(result.code, result.stderr).toBe(0);
    expect(json.stdout).toBe('[]\n');
    expect(json.stderr).toBe('');
    expect(plain.stdout).toBe('');
    expect(plain.stderr).toBe(`${sentence}\n`);
    expect(tty.stdout).toBe(`${sentence}\n`);
  });
});

describe('a field the CLI does not know', () => {
  const commands: string[][] = [
    ['markets'],
    ['price'],
    ['price', 'USDTNGN'],
    ['quote', 'USDTNGN', 'sell', '5000', '--tenor', '1'],
    ['hedges'],
    ['history'],
    ['positions'],
    ['account'],
  ];

  it.each(commands.map((args) => [args.join(' '), args] as const))('%s shows it in the table, the TSV and the JSON', async (_name, args) => {
    const env = sandboxEnv(proxy);
    const [json, plain, tty] = await Promise.all([
      runHedge([...args, '--json'], { env, configDir: config.path }),
      runHedge(args, { env, configDir: config.path }),
      runHedge(args, { env: { ...env, HEDGE_FORCE_TTY: '1' }, configDir: config.path }),
    ]);
    for (const result of [json, plain, tty]) expect(result.code, result.stderr).toBe(0);
    const data = JSON.parse(json.stdout) as Record<string, unknown> | Array<Record<string, unknown>>;
    const records = Array.isArray(data) ? data : [data];
    expect(records.length).toBeGreaterThan(0);
    for (const record of records) expect(record[EXTRA_FIELD]).toBe(EXTRA_VALUE);
    expect(tty.stdout).toContain(EXTRA_LABEL);
    expect(tty.stdout).toContain(EXTRA_VALUE);
    expect(plain.stdout).toContain(EXTRA_VALUE);
  });

  it('hedges ID shows it too', async () => {
    const env = sandboxEnv(proxy);
    const [json, tty] = await Promise.all([
      runHedge(['hedges', hedgeId, '--json'], { env, configDir: config.path }),
      runHedge(['hedges', hedgeId], { env: { ...env, HEDGE_FORCE_TTY: '1' }, configDir: config.path }),
    ]);
    expect(JSON.parse(json.stdout)).toMatchObject({ id: hedgeId, [EXTRA_FIELD]: EXTRA_VALUE });
    expect(tty.stdout).toMatch(new RegExp(`${EXTRA_LABEL}\\s+│ ${EXTRA_VALUE}`));
  });
});
