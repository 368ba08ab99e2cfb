// Every line a person reads is wrapped to the terminal at word boundaries: prompt texts before the
// prompt library gets them (it would break them at the last column, mid-word), the error report
// when stderr is a terminal, and notes on a terminal's stderr in every format. A script (a pipe)
// still gets one line per message.
import { Chalk } from 'chalk';
import { describeError } from '../../src/platform/terminal/exit-codes.js';
import { InterruptedError } from '../../src/core/errors.js';
import { fitToTerminal } from '../../src/platform/terminal/prompter.js';
import { reportError } from '../../src/platform/terminal/report-error.js';
import { displayWidth } from '../../src/platform/terminal/width.js';
import { collector, output as fakeOutput } from '../support/output/fake-output.js';

const QUESTION = 'Open buy 10,000.00 USD on USDTNGN for 3 days (ref DEAL-2026-000042), 1,507.50 USDC upfront?';
const words = (text: string) => text.split(/\s+/).filter((word) => word !== '');

it('fitToTerminal (prompt texts): leaves room for the prompt\'s "? " on the first line and for " (y/N) " after the last word, one column spare', () => {
  const fitted = fitToTerminal(QUESTION, 80, { lead: 2, tail: 7, hangingIndent: 2 });
  const lines = fitted.split('\n');
  expect(lines.length).toBe(2);
  expect(2 + displayWidth(lines[0])).toBeLessThanOrEqual(79);
  expect(displayWidth(lines[1]) + 7).toBeLessThanOrEqual(79);
  expect(lines[1]).toMatch(/^ {2}\S/);
  // Nothing lost, no word cut: the same words in the same order.
  expect(words(fitted)).toEqual(words(QUESTION));
});

it("fitToTerminal (prompt texts): moves the last word down with its tail rather than leaving the tail past the edge; keeps colour codes and the text's own line breaks", () => {
  // 70 columns of text then "upfront?": the tail does not fit after it on the first line.
  const text = `${'x'.repeat(68)} upfront?`;
  expect(fitToTerminal(text, 80, { lead: 2, tail: 7 }).split('\n')).toEqual(['x'.repeat(68), 'upfront?']);
  const red = new Chalk({ level: 1 }).red('LIVE');
  const fitted = fitToTerminal(`${red} ${QUESTION}\nsecond line`, 60, { lead: 2 });
  expect(fitted).toContain('\u001b[31mLIVE\u001b[39m');
  expect([fitted.split('\n').at(-1), fitted.split('\n').every((line) => displayWidth(line) <= 59)]).toEqual([
    'second line',
    true,
  ]);
});

const interrupted = new InterruptedError(
  'Stopped waiting. The order stands: hedge hdg_000001avyhmzx1xu6r26d644 is still being processed.',
  {
    hint: 'Check it with `hedge hedges hdg_000001avyhmzx1xu6r26d644 --wait`; or pick up the wait with: hedge resume a_mwrrf5p1',
  },
);

/** What reportError wrote on stderr (uncoloured), and the exit code it gave. */
const reported = (json: boolean, columns?: number) => {
  const err = collector();
  const code = reportError(describeError(interrupted), interrupted, {
    stderr: err.stream,
    chalk: new Chalk({ level: 0 }),
    json,
    verbose: false,
    columns,
  });
  return { code, text: err.text() };
};

it('reportError on a terminal wraps each line at spaces to its width, the hint continuing under its text; in a pipe (no width) or under --json, one line per message', () => {
  const { code, text } = reported(false, 60);
  expect(code).toBe(130);
  const lines = text.trimEnd().split('\n');
  expect(lines.every((line) => displayWidth(line) <= 60)).toBe(true);
  expect(lines.length).toBeGreaterThan(2);
  const hintAt = lines.findIndex((line) => line.startsWith('  → '));
  expect([lines.slice(hintAt + 1).every((line) => line.startsWith('    ')), words(text)]).toEqual([
    true,
    words(`${interrupted.message} → ${interrupted.hint}`),
  ]);
  expect(reported(false).text.trimEnd().split('\n')).toHaveLength(2);
  expect(JSON.parse(reported(true, 40).text)).toMatchObject({
    error: { code: 'interrupted', message: interrupted.message },
  });
});

// In a pipe, one line (test/scripting/ui-formats.test.ts: notes wrap on a terminal, not in a pipe).
it("Output.note is wrapped to a terminal's stderr under --json too", () => {
  const note =
    'Note: the buy side of USDTNGN is already open (10,000.00 USD, hedge hdg_000001avyhmzx1xu6r26d644). To add to that hedge: hedge add USDTNGN buy 2500.';
  const { out, stderr } = fakeOutput('json', { chalk: new Chalk({ level: 0 }), columns: 80, stderrColumns: 50 });
  out.note(note);
  const lines = stderr().trimEnd().split('\n');
  expect(lines.length).toBeGreaterThan(2);
  expect(lines.every((line) => displayWidth(line) <= 50)).toBe(true);
});
