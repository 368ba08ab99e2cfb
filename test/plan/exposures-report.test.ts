// hedge exposures FILE --report on a frozen simulator with a history the test makes (a buy opened,
// closed early, opened again; a sell left open): the cost to date reconciles to the cent with the
// server's own history, the current week's coverage is what the server holds, the effectiveness
// rows follow the first cover; and the HTML file, measured in a real Chromium where one is
// installed (skipped with the reason otherwise): both charts drawn at a size, the 80–125% band
// there, nothing wider than the window.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FILL_DELAY_MS, FROZEN_START_MS, pinnedClockEnv, useSimulators, type Simulator } from '../support/simulator.js';
import { tempDir } from '../support/hedge-cli.js';
import { ok, okJson } from '../support/cli-runs.js';

const startSimulator = useSimulators();
const DAY_MS = 86_400_000;
const day = (days: number) => new Date(FROZEN_START_MS + days * DAY_MS).toISOString().slice(0, 10);

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));

async function withHistory() {
  const rig = await startSimulator({ preset: 'frozen' });
  rig.seedOpen('buy', 300_000);
  rig.advance(2 * DAY_MS);
  const closed = await rig.api('POST', '/hedges/close', {
    body: { market: 'USDTNGN', side: 'buy' },
    idempotencyKey: 'close-1',
  });
  expect(closed.status).toBe(200);
  rig.advance(FILL_DELAY_MS + 1);
  rig.seedOpen('buy', 250_000);
  rig.seedOpen('sell', 20_000);
  rig.advance(DAY_MS);
  return rig;
}

function exposuresFile(rig: Simulator) {
  const path = join(rig.configDir, 'exposures.csv');
  writeFileSync(
    path,
    [
      'id,market,type,amount,currency,due',
      `INV-1,USDTNGN,receivable,450m,NGN,${day(40)}`,
      `FRT-2,USDTNGN,payable,120m,NGN,${day(50)}`,
      `AP-3,USDTNGN,payable,100k,USD,${day(20)}`,
    ].join('\n'),
  );
  return path;
}

describe('hedge exposures --report', () => {
  it("cost to date reconciles to the cent with history; the week's coverage is what the server holds; nothing is sent", async () => {
    const rig = await withHistory();
    const postsBefore = rig.writes().length;
    const data = okJson(
      await rig.hedge(['exposures', exposuresFile(rig), '--report', '--json'], { env: pinnedClockEnv(rig) }),
    );

    const history = (await rig.api('GET', '/hedges/history')).body.data;
    expect(history).toHaveLength(1);
    const cents = history.reduce(
      (total: any, record: any) =>
        total + Math.round(Number(record.carry_usdc) * 100) + Math.round(Number(record.fees_usdc) * 100),
      0,
    );
    // On the account's side: the server's positive (paid) is negative here.
    expect(data.cost).toEqual([
      {
        market: 'USDTNGN',
        closed_hedges: 1,
        carry_pnl_usdc: -Number(history[0].carry_usdc),
        fees_pnl_usdc: -Number(history[0].fees_usdc),
        cost_usdc: -cents / 100,
      },
    ]);

    // Weeks from the first cover (Monday 2 March) to now (Thursday 5 March): one.
    expect(data.coverage.map((row: any) => row.week)).toEqual(['2026-03-02']);
    const week = data.coverage[0];
    // Netted: the book holds 250,000 buy − 20,000 sell in the exposure's (buy) direction.
    expect(week.hedged_usd).toBe(230_000);
    expect(week.coverage_pct).toBeCloseTo((230_000 / week.exposure_usd) * 100, 2);
    expect(week.at).toBe(new Date(rig.sandbox.clock.now()).toISOString());

    const first = rig.hedges().sort((a, b) => a.openedAtMs - b.openedAtMs)[0];
    const byId = Object.fromEntries(data.effectiveness.map((row: any) => [row.id, row]));
    expect(byId['INV-1']).toMatchObject({
      cover_side: 'buy',
      first_cover_at: new Date(first.openedAtMs).toISOString(),
      first_price: first.entryPrice,
    });
    expect(byId['FRT-2'].cover_side).toBe('sell');
    expect(byId['AP-3']).toMatchObject({ cover_side: null, offset_pct: null });
    // The payable's share of the cover is opposite to the receivable's, as its revaluation is.
    expect(Math.sign(byId['INV-1'].cover_pnl_usd)).toBe(-Math.sign(byId['FRT-2'].cover_pnl_usd));
    expect(byId['INV-1'].offset_pct).toBeCloseTo(byId['FRT-2'].offset_pct, 6);
    expect(rig.writes().length).toBe(postsBefore);
  });

  it('--show cost --format csv is the cost rows alone', async () => {
    const rig = await withHistory();
    const csv = ok(
      await rig.hedge(`exposures ${exposuresFile(rig)} --report --show cost --format csv`, {
        env: pinnedClockEnv(rig),
      }),
    );
    expect(csv.stdout.trim().split('\n')[0]).toBe('market,closed_hedges,carry_pnl_usdc,fees_pnl_usdc,cost_usdc');
  });

  it.skipIf(!CHROMIUM)(
    'the HTML report in Chromium: both charts drawn, the 80–125% band marked, nothing wider than the window (needs chromium; skipped without it)',
    async () => {
      const rig = await withHistory();
      const html = join(rig.configDir, 'report.html');
      ok(
        await rig.hedge(['exposures', exposuresFile(rig), '--report', '--html', html, '--json'], {
          env: pinnedClockEnv(rig),
        }),
      );
      const page = readFileSync(html, 'utf8');
      expect(page).not.toMatch(/<script|https?:\/\//);

      // The page with a measuring script added (a copy: the report itself holds no script).
      const work = tempDir('hedge-exposures-html-');
      try {
        const measured = join(work.path, 'measured.html');
        const measure = `<script>window.addEventListener('load', () => {
        const box = (el) => { const r = el.getBoundingClientRect(); return { w: Math.round(r.width), h: Math.round(r.height) }; };
        const charts = [...document.querySelectorAll('svg.chart')].map((el) => ({ name: el.dataset.chart, ...box(el) }));
        const band = document.querySelector('[data-band="80-125"]');
        const out = { charts, band: band ? box(band) : null, scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth,
          bars: document.querySelectorAll('svg.chart .bar').length };
        const pre = document.createElement('pre'); pre.id = 'measure'; pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
      });</script>`;
        writeFileSync(measured, page.replace('</body>', `${measure}</body>`));
        const dom = execFileSync(
          CHROMIUM!,
          [
            '--headless',
            '--no-sandbox',
            '--disable-gpu',
            '--disable-background-networking',
            '--disable-component-update',
            '--no-first-run',
            `--user-data-dir=${join(work.path, 'profile')}`,
            '--window-size=800,1200',
            '--virtual-time-budget=5000',
            '--dump-dom',
            `file://${measured}`,
          ],
          { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'ignore'] },
        );
        const found = /<pre id="measure">(.*?)<\/pre>/s.exec(dom);
        expect(found, 'the measuring script ran').not.toBeNull();
        const out = JSON.parse(found![1].replace(/&quot;/g, '"').replace(/&amp;/g, '&'));
        expect(out.charts.map((chart: any) => chart.name)).toEqual(['coverage', 'effectiveness']);
        for (const chart of out.charts) {
          expect(chart.w).toBeGreaterThan(300);
          expect(chart.h).toBeGreaterThan(80);
        }
        expect(out.band.w).toBeGreaterThan(20);
        expect(out.bars).toBeGreaterThanOrEqual(4);
        expect(out.scrollWidth).toBeLessThanOrEqual(out.innerWidth);
      } finally {
        work.remove();
      }
    },
  );
});
