// A notice that names a card: drawn by the command that declares that card, said as its text by any other.
import { sayNotice, type Notice } from '../../src/platform/results/notices.js';
import { output } from '../support/output/fake-output.js';

const QUOTED: Notice = {
  kind: 'roll-preview',
  level: 'note',
  text: 'Roll buy USDTNGN to 7 days, the new hedge quoted at 1,530.10.',
  show: { card: 'roll-preview', days: 7 },
};

it('sayNotice: a card the command declares is drawn from the facts the notice gives, in place of its text', () => {
  const { out, stdout, stderr } = output('table');
  const drawn: unknown[] = [];
  out.prepare(undefined, 'roll', {
    'roll-preview': (shown, facts: { days: number }) => {
      drawn.push(facts.days);
      shown.write(`card of ${facts.days} days`);
    },
  });
  sayNotice(out, QUOTED);
  expect(drawn).toEqual([7]);
  expect(stdout()).toBe('card of 7 days\n');
  expect(stderr()).toBe('');
});

it('sayNotice: a command that declares no card of that name says the notice as its text; another card draws nothing', () => {
  for (const cards of [undefined, { 'open-quote': () => expect.unreachable('not this card') }]) {
    const { out, stdout, stderr } = output('table');
    out.prepare(undefined, 'close', cards);
    sayNotice(out, QUOTED);
    expect(stdout()).toBe('');
    expect(stderr()).toBe(`${QUOTED.text}\n`);
  }
});
