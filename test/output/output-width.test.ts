// What a person sees on a terminal (drawn in-process as on one; the card also on a real
// pseudo-terminal, the same to the byte) at 80 and 120 columns: no line of any read command is
// wider than the terminal (measured as the terminal measures, string-width of the visible text);
// hashes are shortened on screen and whole in --format csv. The screens of the commands whose data
// is fixed (frozen simulator, pinned clock) are reviewed snapshots.
import { parse } from 'csv-parse/sync';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeStore } from '../support/config-store.js';
import { tempDir } from '../support/hedge-cli.js';
import { FROZEN_KEY, LIVE_KEY } from '../support/keys.js';
import { drawScreen } from '../support/servers/pseudo-terminal.js';
import { apiData, pinnedClockEnv, startSimulator, type Simulator } from '../support/simulator.js';
import { ok } from '../support/cli-runs.js';

let simulator: Simulator;
let profiles: { path: string; remove: () => void };
let buyId: string;

function env() {
  return { ...simulator.env, ...pinnedClockEnv(simulator) };
}

/**
 * The command on a terminal `cols` wide: what it showed (stdout and stderr, as the terminal has them)
 * and its exit code. Drawn in-process as on a terminal; `real`: on a pseudo-terminal.
 */
function onTerminal(args: string[], cols: number, configDir = simulator.configDir, real = false) {
  return drawScreen({ configDir, args, env: env(), cols, rows: 60, real });
}

function widest(screen: string) {
  return Math.max(...screen.split('\n').map((line) => stringWidth(line)));
}

beforeAll(async () => {
  simulator = await startSimulator({ preset: 'frozen' });
  simulator.sandbox.seedHedges({ apiKey: FROZEN_KEY, count: 3, status: 'closed' });
  simulator.sandbox.seedHedges({ apiKey: FROZEN_KEY, count: 1, status: 'failed' });
  buyId = (
    await apiData(simulator, 'POST', '/hedges', {
      market: 'USDTNGN',
      side: 'buy',
      notional_usd: 25_000,
      tenor_days: 7,
      client_reference: 'DEAL-42',
    })
  ).id;
  simulator.sandbox.clock.advance(3_600_000);
  await apiData(simulator, 'POST', '/hedges', { market: 'USDTNGN', side: 'sell', notional_usd: 10_000, tenor_days: 3 });
  // One action through the CLI: the screens below are of the book it left.
  ok(await simulator.hedge('add USDTNGN buy 5000 --no-wait', { env: pinnedClockEnv(simulator) }));
  profiles = tempDir();
  writeStore(profiles.path, {
    current: 'desk',
    profiles: {
      desk: {
        base_url: 'https://hedging-partner.example.com/partners/sandbox/v2',
        api_key: FROZEN_KEY,
        saved_at: '2026-03-01T09:00:00.000Z',
      },
      prod: {
        base_url: 'https://hedging-partner.example.com/partners/v2',
        api_key: LIVE_KEY,
        ca_file: '/etc/ssl/certs/partner-ca-bundle.pem',
      },
      gone: { base_url: 'https://hedging-partner.example.com/partners/v2' },
    },
  });
});

afterAll(async () => {
  await simulator?.close();
  profiles?.remove();
});

const SNAPSHOTS = [
  ['markets'],
  ['price'],
  ['hedges'],
  ['history'],
  ['positions'],
  ['account'],
  'quote USDTNGN buy 10000 --tenor 3'.split(' '),
];

describe.each([80, 120])('at %i columns', (cols) => {
  it.each(SNAPSHOTS.map((args) => [args.join(' '), args] as const))(
    '%s fits, and reads as reviewed',
    async (_name, args) => {
      const { screen, code } = await onTerminal(args, cols);
      expect(code, screen).toBe(0);
      expect(widest(screen), screen).toBeLessThanOrEqual(cols);
      expect(screen).toMatchSnapshot();
    },
  );

  it('a hedge card fits, its hashes shortened on screen and whole in --format csv', async () => {
    const [{ screen, code }, csv] = await Promise.all([
      onTerminal(['hedges', buyId], cols),
      simulator.hedge(`hedges ${buyId} --format csv`, { env: pinnedClockEnv(simulator) }),
    ]);
    expect(code, screen).toBe(0);
    expect(widest(screen), screen).toBeLessThanOrEqual(cols);
    const [header, row] = parse(csv.stdout);
    for (const key of ['order_key', 'order_tx_hash', 'fill_tx_hash']) {
      const hash = row[header.indexOf(key)];
      expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(screen).not.toContain(hash);
      expect(screen).toContain(`${hash.slice(0, 6)}…${hash.slice(-4)}`);
    }
    expect(screen).toMatchSnapshot();
  });

  it('profile list fits', async () => {
    const { screen, code } = await onTerminal(['profile', 'list'], cols, profiles.path);
    expect(code, screen).toBe(0);
    expect(screen).toMatch(/\* desk\s+test/);
    expect(screen).toMatch(/prod\s+LIVE/);
    expect(widest(screen), screen).toBeLessThanOrEqual(cols);
  });
});

it('on a real terminal (its width read from the terminal itself) the card is the screen drawn in-process', async () => {
  const [real, drawn] = await Promise.all([
    onTerminal(['hedges', buyId], 80, simulator.configDir, true),
    onTerminal(['hedges', buyId], 80),
  ]);
  expect(real.code, real.screen).toBe(0);
  expect(real.screen).toBe(drawn.screen);
});
