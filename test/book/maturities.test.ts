// hedge maturities against a frozen simulator (the CLI's clock pinned to it): settlements soonest
// first with the server's own mark, P&L and carry, grouped by UTC day on a terminal table that fits
// 80 columns, --within, bad input, and servers that name positions differently (dialects).
import stringWidth from 'string-width';
import {
  apiData,
  envFor,
  FILL_DELAY_MS,
  FROZEN_START_MS,
  pinnedClockEnv,
  useSimulators,
  type Simulator,
} from '../support/simulator.js';
import { exits, ok, okJson } from '../support/cli-runs.js';
import { openByApi } from './open-by-api.js';
import { startRewriteProxy } from '../support/servers/field-proxy.js';

const startSimulator = useSimulators({ preset: 'frozen' });

function maturities(simulator: Simulator, ...args: string[]) {
  return simulator.hedge(['maturities', ...args], { env: { ...pinnedClockEnv(simulator), COLUMNS: '80' } });
}

/** A buy for 1 day and a sell for 3 days, opened at the frozen start and filled. */
async function twoSides(simulator: Simulator) {
  const buy = await openByApi(simulator, 'buy', 10_000, 1, 'DEAL-7');
  const sell = await openByApi(simulator, 'sell', 5_000, 3);
  simulator.advance(FILL_DELAY_MS + 1);
  return { buy, sell };
}

it('--json: one settlement per open hedge, soonest first, with its day and the positions list’s mark, P&L and carry; --within keeps what matures within it, nothing within is said, not an error; on a terminal: one table fitting 80 columns, a line per UTC day above its settlements; times sent without a zone (the spec: UTC) are read as UTC, not as local time: the same settlements on a machine in Lagos (UTC+1); --within 3x, 0d or 3 is bad input: exit 2 naming --within, nothing sent; no open hedges: an empty list, exit 0', async () => {
  const simulator = await startSimulator();
  for (const within of ['3x', '0d', '3'])
    exits(await maturities(simulator, '--within', within), 2, `--within: "${within}" is not allowed`);
  expect(simulator.requests()).toEqual([]);
  expect(okJson(await maturities(simulator, '--json'))).toEqual([]);

  const { buy, sell } = await twoSides(simulator);
  const positions = await apiData(simulator, 'GET', '/positions');
  const line = (side: string) => positions.find((position: any) => position.side === side)!;
  const now = FROZEN_START_MS + FILL_DELAY_MS + 1;

  const settlement = (
    side: string,
    hedge_id: string,
    ref: string | null,
    notional: number,
    day: string,
    tenor: number,
  ) => {
    const maturity_at = `${day}T09:00:00.000Z`;
    const { mark_price, net_pnl_usd, accrued_carry_usdc } = line(side);
    return {
      day,
      maturity_at,
      matures_in_seconds: Math.round((Date.parse(maturity_at) - now) / 1000),
      market: 'USDTNGN',
      side,
      hedge_id,
      client_reference: ref,
      notional_usd: notional,
      tenor_days: tenor,
      mark_price,
      net_pnl_usd,
      accrued_carry_usdc,
    };
  };
  expect(okJson(await maturities(simulator, '--json'))).toEqual([
    settlement('buy', buy, 'DEAL-7', 10_000, '2026-03-03', 1),
    settlement('sell', sell, null, 5_000, '2026-03-05', 3),
  ]);

  const within = async (days: string) =>
    okJson(await maturities(simulator, '--within', days, '--json')).map((item: any) => item.hedge_id);
  expect([await within('2d'), await within('3d')]).toEqual([[buy], [buy, sell]]);
  expect(ok(await maturities(simulator, '--within', '12h', '--format', 'table')).stdout.trim()).toBe(
    'Nothing matures within 12h.',
  );

  const result = ok(await maturities(simulator, '--format', 'table'));
  const lines = result.stdout.trimEnd().split('\n');
  expect(lines.every((text) => stringWidth(text) <= 80)).toBe(true);
  const buyDay = lines.indexOf('Tue 03 Mar 2026 · 1 hedge · 10,000.00 USD');
  const sellDay = lines.indexOf('Thu 05 Mar 2026 · 1 hedge · 5,000.00 USD');
  expect([buyDay, sellDay]).toEqual([2, 4]);
  // The deal reference is a column of its own (— where the hedge has none). One market: its rate's
  // unit in the Mark header names it, and at 80 columns the desk's columns come first.
  expect(lines[buyDay + 1]).toMatch(/^09:00 +23h 59m +buy +DEAL-7 +10,000\.00 /);
  expect(lines[sellDay + 1]).toMatch(/^09:00 +2d 23h +sell +— +5,000\.00 /);
  expect(lines[0]).toMatch(/^UTC +Left +Side +Ref +Notional USD +P&L USD +Carry USDC +Mark NGN\/USDT$/);
  expect(result.stderr).toMatch(/^Hidden(?: at 80 columns)?: market, [^\n]* — see --fields or --json\.$/m);

  // The zone: the same settlements from a server that writes its times without one, on a machine in Lagos.
  const env = { ...pinnedClockEnv(simulator), TZ: 'UTC' };
  const asSent = okJson(await simulator.hedge(['maturities', '--json'], { env }));
  // The same service writing its stamps as `2026-03-03T09:00:00.000` (no `Z`).
  const zoneless = await startRewriteProxy(simulator.sandbox, (_path, item) => {
    for (const [name, value] of Object.entries(item))
      if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/.test(value)) item[name] = value.slice(0, -1);
  });
  try {
    expect((await apiData(zoneless, 'GET', '/hedges')).find((hedge: any) => hedge.id === buy).maturity_at).toBe(
      '2026-03-03T09:00:00.000',
    );
    const lagosEnv = { env: { ...env, ...envFor(zoneless), TZ: 'Africa/Lagos' } };
    const lagos = okJson(await simulator.hedge(['maturities', '--json'], lagosEnv));
    expect(lagos).toEqual(asSent);
    // A position line and a hedge's record show that instant as UTC (the line keeps the server's text beside it).
    expect(
      okJson(await simulator.hedge(['positions', '--json'], lagosEnv)).find((line: any) => line.side === 'buy'),
    ).toMatchObject({
      maturity_at: '2026-03-03T09:00:00.000Z',
      _wire: { maturity_at: '2026-03-03T09:00:00.000' },
    });
    expect(okJson(await simulator.hedge(['hedges', sell, '--json'], lagosEnv))).toMatchObject({
      maturity_at: '2026-03-05T09:00:00.000Z',
    });
  } finally {
    await zoneless.close();
  }
});

it('positions that carry only their hedge id (dialect beta): side, notional and maturity come from the hedge', async () => {
  const simulator = await startSimulator({ dialect: 'beta' });
  const { buy, sell } = await twoSides(simulator);
  expect(okJson(await maturities(simulator, '--json'))).toMatchObject([
    { hedge_id: buy, side: 'buy', notional_usd: 10_000, day: '2026-03-03', tenor_days: 1 },
    { hedge_id: sell, side: 'sell', notional_usd: 5_000, day: '2026-03-05', tenor_days: 3 },
  ]);
});
