import { EXIT_CODES } from './exit-codes.js';
import { wrapWords } from './width.js';

const NAME_WIDTH = Math.max(...EXIT_CODES.map(({ name }) => name.length));

/** `hedge help exit-codes`: the table for people (meanings wrapped to `width`), or `[{code, name, meaning}]` with --json. */
export function renderExitCodes(json: boolean, width: number) {
  if (json) return `${JSON.stringify(EXIT_CODES, null, 2)}\n`;
  const lines = EXIT_CODES.map(({ code, name, meaning }) =>
    wrapWords(`${String(code).padStart(3)}  ${name.padEnd(NAME_WIDTH)}  ${meaning}`, width, {
      hangingIndent: 3 + 2 + NAME_WIDTH + 2,
    }),
  );
  return `Exit codes of hedge:\n${lines.join('\n')}\n`;
}
