// A notice that names a card: drawn by the command that declares that card, said as its text by any other; its facts
// are checked, by the type check, against the drawer of the card it names.
import { sayNotice, type CardFacts, type Notice } from '../../src/platform/results/notices.js';
import { CARD_DRAWERS } from '../../src/platform/results/cards.js';
import { runCommand } from '../../src/cli/runner/run-command.js';
import type { CommandModule, CommandSpec } from '../../src/cli/runner/command-spec.js';
import type { Quote } from '../../src/platform/api/schemas.js';
import { output } from '../support/output/fake-output.js';
import type { OutputInit } from '../../src/platform/terminal/output.js';
import { testContext } from '../support/client.js';

const QUOTED: Notice = {
  kind: 'roll-preview',
  level: 'note',
  text: 'Roll buy USDTNGN to 7 days, the new hedge quoted at 1,530.10.',
  show: {
    card: 'roll-preview',
    preview: { market: 'USDTNGN', side: 'buy', notionalUsd: 100, tenorDays: 7, quote: {} as Quote },
    nowMs: 7,
  },
};

it('sayNotice: a card the command shows (on its output) is drawn from the facts the notice gives, in place of its text', () => {
  const drawn: unknown[] = [];
  const { out, stdout, stderr } = output('table', {
    cards: {
      'roll-preview': (shown, facts: CardFacts & { card: 'roll-preview' }) => {
        drawn.push(facts.nowMs);
        shown.write(`card of ${facts.preview.tenorDays} days`);
      },
    },
  });
  sayNotice(out, QUOTED);
  expect(drawn).toEqual([7]);
  expect(stdout()).toBe('card of 7 days\n');
  expect(stderr()).toBe('');
});

it('sayNotice: a command that shows no card of that name says the notice as its text; another card draws nothing', () => {
  const shows: Array<OutputInit['cards']> = [
    undefined,
    {},
    { 'open-quote': () => expect.unreachable('not this card') },
  ];
  for (const cards of shows) {
    const { out, stdout, stderr } = output('table', { cards });
    sayNotice(out, QUOTED);
    expect(stdout()).toBe('');
    expect(stderr()).toBe(`${QUOTED.text}\n`);
  }
});

it("a notice's facts are those of the card it names: other facts, or a card not in the table, fail the type check", () => {
  const wrong: Notice[] = [
    // @ts-expect-error a roll's preview is drawn from the preview and a time, not from days
    { ...QUOTED, show: { card: 'roll-preview', days: 7 } },
    // @ts-expect-error no card of that name
    { ...QUOTED, show: { card: 'rolled', nowMs: 7 } },
  ];
  expect(wrong).toHaveLength(2);
  expect(Object.keys(CARD_DRAWERS).sort()).toEqual(['addition-quote', 'open-quote', 'roll-preview']);
});

it("the runner draws the cards a command declares from the one table, in place of its flows' notices; a command that declares none says their text; a context that takes notices gets them as they are", async () => {
  const notice: Notice = { ...QUOTED, show: { card: 'open-quote', quote: {} as Quote, nowMs: 7 } };
  const said = async (cards?: CommandModule<never>['CARDS'], notify?: (notice: Notice) => void) => {
    const h = testContext({ notify });
    const spec: CommandSpec = {
      name: 'open',
      summary: 'x',
      examples: [],
      load: async () => ({ run: async (ctx) => ctx.notify(notice), ...(cards && { CARDS: cards }) }),
    };
    expect(await runCommand(h.ctx, spec, { args: {}, options: {} })).toBe(0);
    return [h.stdout(), h.stderr()];
  };
  // TSV: the open's quote card says nothing beside a script's data, where the notice says its text.
  expect(await said(['open-quote'])).toEqual(['', '']);
  expect(await said(['roll-preview'])).toEqual(['', `${notice.text}\n`]);
  expect(await said()).toEqual(['', `${notice.text}\n`]);
  const taken: Notice[] = [];
  expect(await said(['open-quote'], (one) => taken.push(one))).toEqual(['', '']);
  expect(taken).toEqual([notice]);
});
