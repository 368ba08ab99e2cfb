// What a person acts on at 80 and 60 columns (drawn in-process as on a terminal, frozen simulator,
// pinned clock): keep's "reported only" on a drifted row, a watch's title with the time of its last
// good refresh, whoami's base URL and labels whole, and a narrow report that drops its bar (a
// figure drawn again) before any figure. Nothing is cut where it is read, no word split across lines.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FROZEN_KEY } from '../support/keys.js';
import { drawScreen } from '../support/servers/pseudo-terminal.js';
import { MARKET, pinnedClockEnv, startSimulator, type Simulator } from '../support/simulator.js';

const WIDTHS = [80, 60] as const;

let simulator: Simulator;

/** Drawn in-process as on a terminal `cols` wide: its lines as drawn, and whether the terminal had to wrap one. */
async function onTerminal(args: string[], cols: number) {
  const { code, drawn } = await drawScreen({
    configDir: simulator.configDir,
    args,
    env: { ...simulator.env, ...pinnedClockEnv(simulator) },
    cols,
    rows: 60,
  });
  expect(code, drawn.map((line) => line.text).join('\n')).toBe(0);
  const lines = drawn.map((line) => line.text);
  for (const line of drawn) {
    expect(line.wrapped, `${cols}: ${line.text}`).toBe(false);
    expect(stringWidth(line.text), `${cols}: ${line.text}`).toBeLessThanOrEqual(cols);
  }
  // The text as read: lines joined, a wrapped line's indent gone.
  return { lines, text: lines.join('\n').replace(/\s+/g, ' ') };
}

beforeAll(async () => {
  simulator = await startSimulator({ preset: 'frozen' });
  simulator.sandbox.seedHedges({ apiKey: FROZEN_KEY, count: 3, status: 'closed' });
  // A sell side at 1,500 USD whose target is 2,000: drift, which keep only reports without --converge.
  simulator.seedOpen('sell', 1500);
});

afterAll(async () => {
  await simulator?.close();
});

describe.each(WIDTHS)('at %i columns', (cols) => {
  it('keep: a drifted row says, whole, that it is reported only and how to bring it back', async () => {
    const file = join(simulator.configDir, 'target.csv');
    writeFileSync(file, `market,side,notional_usd,tenor_days,until,roll_before\n${MARKET},sell,2000,7,,\n`);
    const { lines, text } = await onTerminal(['keep', file, '--once'], cols);
    // The row itself (it stays on screen while events scroll away) and the drift event.
    expect(text).toContain('drifted to 1,500.00 USD (target 2,000.00 USD): reported only (run with --converge');
    expect(text).toContain('reported only; run with --converge to bring it back');
    expect(
      lines.filter((line) => line.includes('…')),
      lines.join('\n'),
    ).toEqual([]);
    expect(simulator.writes()).toHaveLength(0);
  });

  it.each([['price', MARKET], ['hedges']])(
    '%s --watch: the title keeps the time of the last good refresh and how to stop',
    async (...command) => {
      // `hedges ID --watch`: the title carries the hedge's id.
      const args = command[0] === 'hedges' ? ['hedges', simulator.active('sell')[0].id] : command;
      const { lines } = await onTerminal([...args, '--watch', '--count', '1'], cols);
      // Each part of the title whole on a line (a narrow title wraps between them), none cut.
      const title = lines.slice(0, 2);
      for (const part of [/every 2s/, /last good refresh \d\d:\d\d:\d\d/, /\* changed/, /Ctrl-C to stop/])
        expect(
          title.some((line) => part.test(line)),
          `${part}\n${lines.join('\n')}`,
        ).toBe(true);
      expect(
        title.filter((line) => line.includes('…')),
        lines.join('\n'),
      ).toEqual([]);
    },
  );

  it('whoami: the base URL and every label whole, no word broken across lines', async () => {
    const wide = (await onTerminal(['whoami'], 200)).lines.join(' ');
    const { lines } = await onTerminal(['whoami'], cols);
    expect(
      lines.some((line) => line.includes(simulator.baseUrl)),
      lines.join('\n'),
    ).toBe(true);
    // Every word on the narrow card is one the wide card shows (none is the piece of a broken one).
    const words = (text: string) => text.split(/[\s│┌┐└┘┬┴─]+/).filter(Boolean);
    const known = new Set(words(wide));
    expect(words(lines.join('\n')).filter((word) => !known.has(word))).toEqual([]);
  });

  it('report: the bar goes before any figure; a figure left out is named', async () => {
    const { lines, text } = await onTerminal(['report'], cols);
    const notShown = /Not shown at \d+ columns: ([^(]*)\(/.exec(text)?.[1] ?? '';
    const left = notShown.split(/[,;]\s*/).map((word) => word.trim());
    const figures = ['gross P&L', 'carry', 'fees'].filter((figure) => left.includes(figure));
    // A bar (net P&L drawn again) on screen only when every figure is.
    if (figures.length) expect(left, lines.join('\n')).toContain('bars');
    expect(lines.some((line) => /[▒█│]$/.test(line))).toBe(figures.length === 0);
    if (cols === 60) expect(figures, lines.join('\n')).not.toEqual([]);
  });
});
