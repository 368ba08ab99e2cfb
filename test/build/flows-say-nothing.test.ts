// Flows return outcomes; commands and views print them and choose the exit code. A grep-level check
// that no flow of a feature room (every file but its views) writes to an output, prompts, picks an
// exit code or imports exit-codes.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const SRC = join(import.meta.dirname, '..', '..', 'src');
// Every room of features/: a room added later is checked too.
const ROOMS = readdirSync(join(SRC, 'features')).map((room) => join('features', room));
const VIEW = /-(view|model|html)\.ts$/;

/**
 * What a flow must not touch: the process's streams or exit, the console, the context's output and
 * streams, exit codes (exit-codes.ts included: the command describes a flow's errors). A flow that must ask does it through the injected prompter port (ContextInit.prompter).
 */
const SAYS_OR_ENDS = [
  /process\.(stdout|stderr|exit)/,
  /\bconsole\./,
  /\.io\.(stdout|stderr)\b/,
  /\bctx\.output\b/,
  /\bEXIT_CODES\b/,
  /\b[eE]xitCode\b/,
  /exit-codes\.js/,
];

function offences(text: string) {
  return text
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line) && SAYS_OR_ENDS.some((pattern) => pattern.test(line)));
}

const files = ROOMS.flatMap((room) =>
  readdirSync(join(SRC, room))
    .filter((name) => name.endsWith('.ts') && !VIEW.test(name))
    .map((name) => join(room, name)),
);

// No allow-list: the open wizard is a conversation, so it lives with its command
// (cmd/trade/open-wizard.ts); `--until` repeats a command, so it lives with the runner.
it('flows say nothing and choose no exit code: no flow writes to an output or picks an exit code; the check sees a print and an exit code (it can fail)', () => {
  const found = Object.fromEntries(
    files
      .map((name) => [name, offences(readFileSync(join(SRC, name), 'utf8'))])
      .filter(([, lines]) => lines.length > 0),
  );
  expect(found).toEqual({});
  expect(offences("  ctx.output.note('x');\n  return exitCode;\n  // ctx.output in a comment\n")).toHaveLength(2);
});
