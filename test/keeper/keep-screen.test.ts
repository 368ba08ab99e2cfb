// The keeper's live status on a real 80-column pseudo-terminal, read back through a terminal
// emulator: redrawn in place (one header, however many cycles and steps ran), none of the steps'
// own progress lines leaking onto it, times in one clock labelled as such; and a dry run (drawn
// in-process as on a terminal: it ends without a redraw) that says it is one.
import { describeKeepers, writeTarget } from '../support/keeper.js';
import { until } from '../support/polling.js';
import { nearMaturity, keeperCase } from './filled.js';
import { drawScreen, spawnInTerminal } from '../support/servers/pseudo-terminal.js';

describeKeepers('hedge keep on a terminal', () => {
  keeperCase(
    'a dry run on a terminal says it is one, and what it would do; at 80 columns the status redraws in place: one header, no step progress lines, the cycle time in UTC',
    {},
    async (simulator, rig) => {
      // Drawn in-process as on an 80×30 terminal: a dry run ends, and redraws nothing.
      const dry = await drawScreen({
        configDir: simulator.configDir,
        args: ['keep', writeTarget(simulator, ['USDTNGN,sell,2000,1,,']), '--dry-run'],
        env: simulator.env,
        cols: 80,
        rows: 30,
      });
      expect(dry.code).toBe(0);
      const drawnDry = dry.drawn.map((line) => line.text).join('\n');
      expect(drawnDry).toMatch(/DRY RUN/);
      expect(drawnDry).toMatch(/would reopen USDTNGN sell 2,000 USD/);
      expect(simulator.writes()).toHaveLength(0);

      simulator.seedOpen('sell', 2000);
      nearMaturity(simulator);
      const file = writeTarget(simulator, ['USDTNGN,sell,2000,1,,6h', 'USDTNGN,buy,1000,3,,']);
      const startedAt = Date.now();
      // On an 80×30 pseudo-terminal, in a local zone far from UTC: a local time labelled UTC would show.
      const terminal = spawnInTerminal({
        configDir: simulator.configDir,
        args: ['keep', file, '--interval', '2'],
        env: { ...simulator.env, TZ: 'Asia/Kathmandu' },
        cols: 80,
        rows: 30,
      });
      rig.later(() => terminal.kill());
      await until(
        () =>
          simulator.active('buy').some((hedge) => hedge.status === 'filled') &&
          simulator.active('sell').some((hedge) => hedge.status === 'filled' && hedge.tenorDays === 1),
        'the roll and the open landed',
      );
      // Two cycles after the steps: the screen has been redrawn several times.
      const cycles = simulator.requests('GET', '/positions').length;
      await until(() => simulator.requests('GET', '/positions').length >= cycles + 2, 'two more cycles');
      await terminal.waitFor(/roll USDTNGN sell/);
      const drawn = await terminal.drawn();
      const text = drawn.map((line) => line.text);
      expect(
        text.filter((line) => line.includes('hedge keep ')),
        text.join('\n'),
      ).toHaveLength(1);
      for (const line of drawn) expect(line.wrapped, line.text).toBe(false);
      // Nothing but the status: no spinner, "Waiting for…" or "Submitted…" lines of the steps.
      expect(text.join('\n')).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]|Waiting for|Submitted|Opening|Closing|Polling/);
      // The header's `last cycle MM-DD HH:MM:SS UTC`, as an instant.
      const found = /last cycle (\d\d-\d\d) (\d\d:\d\d:\d\d) UTC/.exec(text.join('\n'));
      const at = found ? Date.parse(`${new Date().getUTCFullYear()}-${found[1]}T${found[2]}Z`) : undefined;
      expect(at, text.join('\n')).toBeDefined();
      const firstRequest = simulator.requests().find((entry) => entry.realTimeMs >= startedAt)!.realTimeMs;
      expect(at!).toBeGreaterThanOrEqual(Math.floor(firstRequest / 1000) * 1000);
      expect(at!).toBeLessThanOrEqual(Date.now());
    },
  );
});
