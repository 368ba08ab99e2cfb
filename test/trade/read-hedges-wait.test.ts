// `hedge hedges ID --wait`: polls until the hedge is final; a filled hedge exits 0, a failed one
// exits 6 (order failed) with the hedge still printed. The sandboxes run on real time here so the
// fill lands while the CLI waits (300 ms after the open, well before its first poll a second later).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hedgeSchema } from '../../src/platform/api/schemas.js';
import { runHedge, tempDir } from '../support/hedge-cli.js';
import { apiData, startSimulator, type Simulator } from '../support/simulator.js';
import { ok, exits } from '../support/cli-runs.js';
import { openBody } from '../support/engine.js';

let filling: Simulator;
let failing: Simulator;
let config: { path: string; remove: () => void };
const order = openBody('buy', 10_000, 1);
/** `hedge hedges …` against `on`, in the file's one config folder. */
const hedges = (on: Simulator, args: string) => runHedge(`hedges ${args}`, { env: on.env, configDir: config.path });

beforeAll(async () => {
  [filling, failing] = await Promise.all([
    startSimulator({ seed: 7, fillDelayMs: 300 }),
    startSimulator({ seed: 7, fillDelayMs: 300, failRate: 1 }),
  ]);
  config = tempDir();
});

afterAll(async () => {
  await Promise.all([filling?.close(), failing?.close()]);
  config?.remove();
});

describe('hedges ID --wait', () => {
  it('waits for the fill (exit 0), and for a failure (exit 6, the hedge still on stdout)', async () => {
    const [toFill, toFail] = await Promise.all([
      apiData(filling, 'POST', '/hedges', order),
      apiData(failing, 'POST', '/hedges', order),
    ]);
    expect([toFill.status, toFail.status]).toEqual(['submitted', 'submitted']);
    const [filled, failed, failedPlain] = await Promise.all([
      hedges(filling, `${toFill.id} --wait --json`),
      hedges(failing, `${toFail.id} --wait --json`),
      hedges(failing, `${toFail.id} --wait`),
    ]);
    ok(filled);
    expect(hedgeSchema.parse(JSON.parse(filled.stdout))).toMatchObject({ id: toFill.id, status: 'filled' });

    exits(failed, 6);
    expect(hedgeSchema.parse(JSON.parse(failed.stdout))).toMatchObject({ id: toFail.id, status: 'failed' });
    expect(JSON.parse(failed.stderr.trim())).toMatchObject({
      error: { code: 'order_failed', details: { hedge_id: toFail.id } },
    });

    exits(failedPlain, 6);
    const [keys, values] = failedPlain.stdout.split('\n').map((line) => line.split('\t'));
    expect(values[keys.indexOf('status')]).toBe('failed');
    expect(failedPlain.stderr).toContain(`Hedge ${toFail.id} failed on-chain`);
  });

  it('a hedge already final is returned at once, with one request', async () => {
    const hedge = await apiData(filling, 'POST', '/hedges', { ...order, side: 'sell' });
    // Past its fill on the simulator's clock (no sleep): the hedge is final before the CLI asks.
    filling.advance(300);
    const before = filling.sandbox.requestLog.length;
    expect(JSON.parse(ok(await hedges(filling, `${hedge.id} --wait --json`)).stdout)).toMatchObject({
      id: hedge.id,
      status: 'filled',
    });
    expect(filling.sandbox.requestLog.slice(before).map((entry) => `${entry.method} ${entry.path}`)).toEqual([
      `GET /hedges/${hedge.id}`,
    ]);
  });
});
