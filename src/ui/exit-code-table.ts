import { EXIT_CODES } from '../exit-codes.js';

/** `hedge help exit-codes`: the table for people, or `[{code, name, meaning}]` with --json. */
export function renderExitCodes(options: { json?: boolean } = {}): string {
  if (options.json) return `${JSON.stringify(EXIT_CODES, null, 2)}\n`;
  const lines = EXIT_CODES.map(({ code, name, meaning }) => `${String(code).padStart(3)}  ${name.padEnd(12)} ${meaning}`);
  return `Exit codes of hedge:\n${lines.join('\n')}\n`;
}
