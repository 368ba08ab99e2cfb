import { EXIT_CODES } from '../exit-codes.js';

export function renderExitCodes(): string {
  const lines = EXIT_CODES.map(({ code, name, meaning }) => `${String(code).padStart(3)}  ${name.padEnd(12)} ${meaning}`);
  return `Exit codes of hedge:\n${lines.join('\n')}\n`;
}
